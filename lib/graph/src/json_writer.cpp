// The JSON report: every node, edge and finding, and the analyses. Written
// one record per line (streamed, so 100k-task traces need no big DOM), keys
// in a fixed order so the output is diffable.
#include <nlohmann/json.hpp>

#include "tether/graph/static_join.hpp"
#include "tether/graph/writers.hpp"

namespace tether::graph {
namespace {

using ordered_json = nlohmann::ordered_json;

// Input strings are not guaranteed UTF-8: replace, never throw.
std::string Dump(const ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void PutTime(ordered_json& j, const char* key, const std::optional<std::int64_t>& t) {
  if (t) j[key] = *t;
}

ordered_json NodeJson(const Node& n) {
  ordered_json j;
  j["id"] = n.key;
  j["kind"] = NodeKindName(n.kind);
  j["name"] = n.name;
  j["status"] = StatusName(n.status);
  if (!n.detail.empty()) j["detail"] = n.detail;
  if (!n.site.file.empty()) {
    j["file"] = n.site.file;
    j["line"] = n.site.line;
  }
  if (!n.site.function.empty()) j["function"] = n.site.function;
  PutTime(j, "begin_ns", n.begin_ns);
  PutTime(j, "start_ns", n.start_ns);
  PutTime(j, "end_ns", n.end_ns);
  if (n.kind == NodeKind::kTask && n.thread != 0) j["thread"] = n.thread;
  if (n.kind == NodeKind::kFunction) j["receives_context"] = n.receives_context;
  if (n.root_context) j["root"] = true;
  if (!n.recorded) j["recorded"] = false;
  return j;
}

template <typename Items, typename ToJson>
void WriteArray(std::ostream& out, const char* key, const Items& items, ToJson to_json,
                bool last = false) {
  out << "  \"" << key << "\": [";
  bool first = true;
  for (const auto& item : items) {
    out << (first ? "\n    " : ",\n    ") << Dump(to_json(item));
    first = false;
  }
  out << (first ? "]" : "\n  ]") << (last ? "\n" : ",\n");
}

}  // namespace

void WriteJson(const ScopeGraph& sg, const Analyses& analyses, std::ostream& out,
               const StaticJoin* join) {
  const Graph& g = sg.graph;
  auto key = [&](Vertex v) { return g[v].key; };

  ordered_json source;
  source["kind"] = sg.source == SourceKind::kTrace ? "trace" : "static";
  source["path"] = sg.input_path;
  if (sg.source == SourceKind::kTrace) {
    source["program"] = sg.program;
    source["pid"] = sg.pid;
    source["start_ns"] = sg.time_origin_ns;
    source["end_ns"] = sg.time_end_ns;
    source["truncated"] = sg.truncated;
    source["lost_events"] = sg.lost_events;
  }
  ordered_json counts;
  for (NodeKind k : {NodeKind::kScope, NodeKind::kContext, NodeKind::kGroup, NodeKind::kTask,
                     NodeKind::kFunction}) {
    counts[std::string(NodeKindName(k)) + "s"] = sg.CountNodes(k);
  }
  counts["edges"] = boost::num_edges(g);
  counts["findings"] = sg.findings.size();
  counts["unwaited_tasks"] = analyses.unwaited_tasks.size();

  out << "{\n  \"tether_scope_graph\": 1,\n";
  out << "  \"source\": " << Dump(source) << ",\n";
  out << "  \"counts\": " << Dump(counts) << ",\n";
  auto vr = boost::make_iterator_range(boost::vertices(g));
  WriteArray(out, "nodes", vr, [&](Vertex v) { return NodeJson(g[v]); });
  auto er = boost::make_iterator_range(boost::edges(g));
  WriteArray(out, "edges", er, [&](const Graph::edge_descriptor& e) {
    ordered_json j;
    j["from"] = key(boost::source(e, g));
    j["to"] = key(boost::target(e, g));
    j["kind"] = EdgeKindName(g[e].kind);
    if (g[e].kind == EdgeKind::kCalls) {
      j["passes_context"] = g[e].passes_context;
      j["file"] = g[e].site.file;
      j["line"] = g[e].site.line;
    }
    return j;
  });
  WriteArray(out, "findings", sg.findings, [&](const ReportFinding& f) {
    ordered_json j;
    j["kind"] = f.kind;
    j["node"] = f.node ? ordered_json(key(*f.node)) : ordered_json(nullptr);
    if (f.scope) j["scope"] = key(*f.scope);
    j["file"] = f.site.file;
    j["line"] = f.site.line;
    if (f.col) j["col"] = f.col;
    if (f.outlived_ns) j["outlived_ns"] = f.outlived_ns;
    j["message"] = f.message;
    return j;
  });
  out << "  \"analyses\": {\n";
  WriteArray(out, "ownership", analyses.ownership, [&](const OwnershipPath& p) {
    ordered_json j;
    j["task"] = key(p.task);
    j["kind"] = p.leak ? "leak" : "zombie";
    j["scope"] = p.scope ? ordered_json(key(*p.scope)) : ordered_json(nullptr);
    j["reaches_scope"] = p.reaches_scope;
    j["first_root"] = p.first_root ? ordered_json(key(*p.first_root)) : ordered_json(nullptr);
    ordered_json path = ordered_json::array();
    for (Vertex v : p.path) path.push_back(key(v));
    j["path"] = path;
    return j;
  });
  WriteArray(out, "spawn_roots", analyses.spawn_roots,
             [&](Vertex v) { return ordered_json(key(v)); });
  std::vector<Vertex> parents;
  for (Vertex v = 0; v < analyses.spawn_children.size(); ++v) {
    if (!analyses.spawn_children[v].empty()) parents.push_back(v);
  }
  WriteArray(out, "spawn_tree", parents, [&](Vertex v) {
    ordered_json j;
    j["node"] = key(v);
    ordered_json children = ordered_json::array();
    for (Vertex c : analyses.spawn_children[v]) children.push_back(key(c));
    j["children"] = children;
    return j;
  });
  WriteArray(
      out, "unwaited_tasks", analyses.unwaited_tasks,
      [&](Vertex v) { return ordered_json(key(v)); },
      /*last=*/true);
  if (join) {
    out << "  },\n  \"static\": ";
    WriteJoinJson(sg, *join, out);
    out << "\n}\n";
  } else {
    out << "  }\n}\n";
  }
}

}  // namespace tether::graph
