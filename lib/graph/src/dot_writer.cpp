// Graphviz output: DOT written by hand (Boost's write_graphviz cannot draw
// clusters and passes backslashes through), and SVG from a real `dot`.
#include <set>
#include <sstream>

#include "tether/graph/writers.hpp"
#include "tether/io/process.hpp"

namespace tether::graph {
namespace {

const char* ShapeOf(NodeKind kind) {
  switch (kind) {
    case NodeKind::kScope:
      return "folder";
    case NodeKind::kContext:
      return "ellipse";
    case NodeKind::kGroup:
      return "hexagon";
    case NodeKind::kTask:
      return "box";
    case NodeKind::kFunction:
      return "component";
  }
  return "box";
}

const char* FillOf(const DisplayNode& n) {
  switch (n.status) {
    case Status::kZombie:
      return "#ef4444";
    case Status::kLeaked:
      return "#f97316";
    case Status::kDetached:
      return "#fde68a";
    case Status::kOk:
      break;
  }
  switch (n.kind) {
    case NodeKind::kScope:
      return "#dbeafe";
    case NodeKind::kContext:
      return "#f3f4f6";
    case NodeKind::kGroup:
      return "#ede9fe";
    case NodeKind::kTask:
      return "#dcfce7";
    case NodeKind::kFunction:
      return "#fef9c3";
  }
  return "#ffffff";
}

std::string StyleOf(const DisplayNode& n) {
  std::string style = "filled";
  if (n.kind == NodeKind::kTask) style += ",rounded";
  if (n.status == Status::kDetached) style += ",dashed";
  if (!n.recorded) style += ",dotted";
  return style;
}

const char* EdgeColorOf(const DisplayEdge& e) {
  switch (e.kind) {
    case EdgeKind::kDerivedFrom:
      return "#4b5563";
    case EdgeKind::kSpawnedBy:
      return "#2563eb";
    case EdgeKind::kBelongsTo:
      return "#9ca3af";
    case EdgeKind::kWaitedBy:
      return "#16a34a";
    case EdgeKind::kCancelledBy:
      return "#dc2626";
    case EdgeKind::kCalls:
      return e.passes_context ? "#111827" : "#dc2626";
  }
  return "#000000";
}

// One node statement.
void WriteNode(const DisplayNode& n, const char* indent, std::ostream& out) {
  bool alarm = n.status == Status::kZombie || n.status == Status::kLeaked;
  out << indent << "\"" << n.dom_id << "\" [id=\"" << n.dom_id << "\", shape=" << ShapeOf(n.kind)
      << ", style=\"" << StyleOf(n) << "\", fillcolor=\"" << FillOf(n) << "\""
      << (alarm ? ", fontcolor=\"#ffffff\", penwidth=2" : "") << ", class=\"kind_"
      << NodeKindName(n.kind) << " status_" << StatusName(n.status) << "\""
      << ", label=\"" << EscapeDotString(n.label) << "\", tooltip=\"" << EscapeDotString(n.tooltip)
      << "\"];\n";
}

}  // namespace

// Traces are drawn right to left (rankdir=RL: a scope at the left of its
// cluster, what hangs off it to the right), one cluster per scope, so the
// clusters stack downwards and the picture keeps a screen's width however
// many builds there are; newrank lets ranks line up across clusters, pack
// keeps unconnected parts close. Static graphs keep rankdir=BT.
void WriteDot(const ScopeGraph& sg, const DisplayGraph& display, std::ostream& out) {
  bool trace = sg.source == SourceKind::kTrace;
  out << "digraph tether_scope_graph {\n"
      << "  graph [rankdir=" << (trace ? "RL, newrank=true, nodesep=0.12, ranksep=0.3" : "BT")
      << ", fontname=\"Helvetica\", fontsize=10, label=\""
      << EscapeDotString((trace ? "trace " : "static graph ") + sg.input_path +
                         (display.grouped ? " (nodes grouped by kind, site and status)" : ""))
      << "\", labelloc=t];\n"
      << "  node [fontname=\"Helvetica\", fontsize=10"
      << (trace ? ", margin=\"0.08,0.03\", height=0.3" : "") << "];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=8];\n";
  std::set<std::string> clustered;
  for (const DisplayCluster& c : display.clusters) {
    clustered.insert(c.key);
    out << "  subgraph \"cluster_" << c.dom_id << "\" {\n"
        << "    graph [id=\"" << c.dom_id << "\", label=\"" << EscapeDotString(c.label)
        << "\", labeljust=l, fontsize=12, style=\"rounded,filled\", fillcolor=\""
        << (c.hit ? "#fef2f2" : "#f8fafc") << "\", color=\"" << (c.hit ? "#dc2626" : "#2563eb")
        << "\", penwidth=" << (c.hit ? 2 : 1) << ", class=\"scope_cluster" << (c.hit ? " hit" : "")
        << "\"];\n";
    for (const DisplayNode& n : display.nodes) {
      if (n.cluster == c.key) WriteNode(n, "    ", out);
    }
    out << "  }\n";
  }
  for (const DisplayNode& n : display.nodes) {
    if (!clustered.count(n.cluster)) WriteNode(n, "  ", out);
  }
  for (const DisplayEdge& e : display.edges) {
    if (e.cut) {
      out << "  \"" << display.nodes[e.from].dom_id << "\" -> \"" << display.nodes[e.to].dom_id
          << "\" [class=\"cut\", color=\"#dc2626\", fontcolor=\"#dc2626\", style=dashed, "
             "penwidth=2, "
             "label=\"detached: chain cut here\"];\n";
      continue;
    }
    std::string label(EdgeKindName(e.kind));
    if (e.kind == EdgeKind::kCalls && !e.passes_context) label = "calls, drops ctx";
    if (e.count > 1 && display.grouped) label += " x" + std::to_string(e.count);
    bool dashed = e.kind == EdgeKind::kBelongsTo || e.kind == EdgeKind::kCancelledBy ||
                  (e.kind == EdgeKind::kCalls && !e.passes_context);
    // Clustered traces name the edge kind in a tooltip and a class, not a
    // label: in rankdir=RL every label widens its rank gap, and the colours
    // (legend in the HTML report) already tell the kinds apart.
    out << "  \"" << display.nodes[e.from].dom_id << "\" -> \"" << display.nodes[e.to].dom_id
        << "\" [color=\"" << EdgeColorOf(e) << "\", fontcolor=\"" << EdgeColorOf(e) << "\", "
        << (display.clusters.empty()
                ? "label"
                : "class=\"edge_" + std::string(EdgeKindName(e.kind)) + "\", tooltip")
        << "=\"" << EscapeDotString(label) << "\"" << (dashed ? ", style=dashed" : "") << "];\n";
  }
  out << "}\n";
}

Error RenderSvg(const std::string& dot_text, std::string* svg) {
  io::ProgramOptions options;
  options.input = dot_text;
  io::ProgramResult dot = io::RunProgram({"dot", "-Tsvg"}, options);
  if (dot.not_found) {
    return Error(
        ErrorCode::kInvalidArgument,
        "graphviz 'dot' was not found in PATH; install graphviz (Debian: apt-get install graphviz) "
        "to write SVG and HTML reports, or use --format dot|json|perfetto");
  }
  if (!dot.started) return Error(ErrorCode::kIo, "cannot run graphviz 'dot': " + dot.error);
  if (!dot.Succeeded()) {
    return Error(ErrorCode::kFailed,
                 "graphviz 'dot -Tsvg' failed (" + dot.Describe() + "): " + dot.err);
  }
  if (dot.out.find("<svg") == std::string::npos) {
    return Error(ErrorCode::kFailed, "graphviz 'dot -Tsvg' wrote no SVG: " + dot.err);
  }
  *svg = std::move(dot.out);
  return {};
}

}  // namespace tether::graph
