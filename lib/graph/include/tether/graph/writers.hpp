// The report writers of `tether report`: JSON (the whole graph and its
// analyses), Graphviz DOT, SVG (DOT laid out by a real `dot` process), one
// self-contained HTML file, and Chrome trace-event JSON for Perfetto.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "tether/error.hpp"
#include "tether/graph/scope_graph.hpp"

namespace tether::graph {

// Above this many tasks the drawn graph (DOT, SVG, HTML) groups nodes by
// kind, spawn site and status, so Graphviz stays fast; JSON and Perfetto
// always keep every node.
inline constexpr std::size_t kGroupTasksAbove = 500;

// What is drawn: the graph itself, or its nodes grouped by (kind, site,
// status). `dom_id` is the node's id in DOT, SVG and HTML.
struct DisplayNode {
  std::string dom_id;
  NodeKind kind = NodeKind::kTask;
  Status status = Status::kOk;
  std::string label;    // plain text with '\n' line breaks; escaped by writers
  std::string tooltip;  // plain text
  std::size_t members = 1;
  bool recorded = true;
  std::string cluster;  // the key of the scope whose cluster holds it ("" none)
};
struct DisplayEdge {
  std::size_t from = 0;
  std::size_t to = 0;
  EdgeKind kind = EdgeKind::kDerivedFrom;
  bool passes_context = false;
  std::size_t count = 1;
  bool cut = false;  // a zombie's detached chain, drawn as one edge to the root that cut it
};
// A scope drawn as a Graphviz cluster around its contexts, groups and tasks.
struct DisplayCluster {
  std::string key;  // the scope's key
  std::string dom_id;
  std::string label;  // plain text
  bool hit = false;   // a task of it outlived it
};
struct DisplayGraph {
  bool grouped = false;
  std::vector<DisplayNode> nodes;
  std::vector<DisplayEdge> edges;
  std::vector<std::size_t> node_of_vertex;  // vertex -> index into nodes
  std::vector<DisplayCluster> clusters;     // traces, ungrouped: one per scope
};

// With `analyses`, every zombie whose chain was cut gets a `cut` edge to the
// root that cut it. Ungrouped trace graphs put each scope's nodes (those
// charged to it: Node::scope_key) in the scope's cluster.
DisplayGraph MakeDisplayGraph(const ScopeGraph& sg,
                              std::size_t group_tasks_above = kGroupTasksAbove,
                              const Analyses* analyses = nullptr);

struct StaticJoin;
// With `join` (tether report --static), the JSON ends with a "static" record.
void WriteJson(const ScopeGraph& sg, const Analyses& analyses, std::ostream& out,
               const StaticJoin* join = nullptr);
void WriteDot(const ScopeGraph& sg, const DisplayGraph& display, std::ostream& out);
// Runs `dot -Tsvg` on `dot_text`; a missing `dot` is a clear error.
Error RenderSvg(const std::string& dot_text, std::string* svg);
// With `join`, a "Static and runtime" section follows the timeline.
void WriteHtml(const ScopeGraph& sg, const Analyses& analyses, const DisplayGraph& display,
               const std::string& svg, std::ostream& out, const StaticJoin* join = nullptr);
// The timeline (traces only: a static graph has no times): one lane per
// scope with its lifetime, its groups and tasks as bars under it, the part of
// a task after its scope ended in red with its length written on it, spawn
// and join arrows, groups destroyed without Wait marked, a time axis. Above
// `fold_tasks_above` tasks, a lane's tasks with the same spawn site and
// status are folded into one bar with a count. `display` (may be null) gives
// the graph node ids that bars link to.
void WriteTimelineSvg(const ScopeGraph& sg, const Analyses& analyses, std::size_t fold_tasks_above,
                      const DisplayGraph* display, std::ostream& out);
// Traces only (static graphs have no times): kInvalidArgument otherwise.
Error WritePerfetto(const ScopeGraph& sg, std::ostream& out);

// Text helpers shared by the writers (exposed for tests).
std::string EscapeHtml(std::string_view text);  // & < > " ' -> entities; invalid UTF-8 -> U+FFFD
std::string EscapeDotString(std::string_view text);         // for inside "...": \ " newline
std::string ValidUtf8(std::string_view text);               // invalid sequences -> U+FFFD
std::string SourceHref(const std::string& file, int line);  // file:// (absolute) or relative link

}  // namespace tether::graph
