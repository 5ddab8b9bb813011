// Plain-text descriptions of scope-graph nodes shared by the writers (the
// timeline's hover text, the grouped findings, the static join). Plain text:
// whoever prints them escapes them.
#pragma once

#include <string>

#include "tether/graph/scope_graph.hpp"

namespace tether::graph::detail {

// s, cut to max characters with "..." (never inside a UTF-8 sequence).
std::string Clip(const std::string& s, std::size_t max);
// "exec.cpp:16" (full: "/abs/exec.cpp:16 in Exec"); "" when unknown.
std::string SiteText(const SourceSite& site, bool full = false);
// A task's context chain, task to root: "ctx#14 group (a.cpp:9) -> ctx#9
// deadline (a.cpp:296, root)", or what it was spawned on when it has none.
std::string ChainText(const Graph& g, Vertex task);
// Where a zombie's or leak's chain was cut (or that it reached its scope).
std::string CutText(const Graph& g, const OwnershipPath& path);
// The same path, for one line of text: basename of a file.
std::string Basename(const std::string& file);

}  // namespace tether::graph::detail
