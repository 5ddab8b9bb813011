// The timeline's rows, grouped in lanes: one lane per scope (its lifetime
// the first row), then the scope's groups and tasks, as a spawn tree or, above
// the fold threshold, one row per (kind, site, status). The writer
// (timeline_writer.cpp) only draws them.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tether/graph/scope_graph.hpp"

namespace tether::graph::detail {

enum class RowKind { kScope, kGroup, kTask };

struct Row {
  RowKind kind = RowKind::kTask;
  std::vector<Vertex> members;  // one vertex, or the folded ones
  int depth = 0;
  int parent = -1;  // the row a task was spawned from (spawn arrow)
};

struct Lane {
  std::optional<Vertex> scope;
  std::vector<Row> rows;
  std::int64_t first = 0;  // sort key
};

// The lanes of sg's recorded nodes: scopes in time order, the ownerless lane
// last; folded: tasks and groups of one site and status share a row.
std::vector<Lane> BuildTimelineLanes(const ScopeGraph& sg, bool folded);

}  // namespace tether::graph::detail
