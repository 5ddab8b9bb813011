// Builds the scope graph of a static context-flow graph (`tether check
// --graph`): functions, the root contexts they create, the calls between them
// and the checker's findings attached to their functions.
#include <string>
#include <string_view>
#include <unordered_map>

#include "tether/graph/scope_graph.hpp"

namespace tether::graph {
namespace {

// How a static finding colours its function: checks about a context cut
// from its caller mark it detached; checks about work nobody ends, leaked.
Status StatusOfCheck(std::string_view check) {
  if (check.starts_with("tether-")) check.remove_prefix(7);  // the checker's names are prefixed
  if (check == "detached-context" || check == "context-not-forwarded" || check == "detached-task") {
    return Status::kDetached;
  }
  return Status::kLeaked;
}

}  // namespace

ScopeGraph BuildFromStatic(const StaticGraph& input) {
  ScopeGraph out;
  out.source = SourceKind::kStatic;
  std::unordered_map<std::string, Vertex> by_input_id;
  std::unordered_map<std::string, Vertex> by_name;  // qualified and plain names
  std::size_t roots = 0;

  for (std::size_t i = 0; i < input.functions.size(); ++i) {
    const StaticFunction& f = input.functions[i];
    Node n;
    n.kind = NodeKind::kFunction;
    n.key = "fn:" + std::to_string(i);
    // A lambda's plain name is "operator()": its qualified name says which one.
    n.name = f.name == "operator()" || f.name.empty() ? f.qualified_name : f.name;
    n.detail = f.qualified_name;
    n.site = {f.file, f.line, f.qualified_name};
    n.receives_context = f.receives_context;
    Vertex v = boost::add_vertex(n, out.graph);
    out.by_key.emplace(out.graph[v].key, v);
    by_input_id.emplace(f.id, v);
    by_name.emplace(f.qualified_name, v);
    by_name.emplace(f.name, v);
    for (const StaticRoot& r : f.creates_roots) {
      Node c;
      c.kind = NodeKind::kContext;
      c.key = "root:" + std::to_string(roots++);
      c.name = r.call;
      // A fresh root where a context was at hand is the detached-context bug,
      // unless the function makes roots by design or the detach says why.
      bool detached = f.receives_context && !f.returns_context && !r.justified;
      c.detail = r.justified          ? "justified root (tether:detached)"
                 : f.returns_context  ? "root context (the function creates roots by design)"
                 : f.receives_context ? "fresh root in a function that receives a context"
                                      : "root context";
      c.site = {r.file, r.line, f.qualified_name};
      c.status = detached ? Status::kDetached : Status::kOk;
      c.root_context = true;
      Vertex cv = boost::add_vertex(c, out.graph);
      out.by_key.emplace(out.graph[cv].key, cv);
      Edge e;
      e.kind = EdgeKind::kBelongsTo;
      boost::add_edge(cv, v, e, out.graph);
    }
  }
  for (const StaticCall& c : input.calls) {
    auto from = by_input_id.find(c.from);
    auto to = by_input_id.find(c.to);
    if (from == by_input_id.end() || to == by_input_id.end()) continue;  // validated by the loader
    Edge e;
    e.kind = EdgeKind::kCalls;
    e.passes_context = c.passes_context;
    e.site = {c.file, c.line, ""};
    boost::add_edge(from->second, to->second, e, out.graph);
  }
  for (const StaticFinding& f : input.findings) {
    ReportFinding rf;
    rf.kind = f.check;
    rf.message = f.message;
    rf.site = {f.file, f.line, f.function};
    rf.col = f.col;
    std::optional<Vertex> owner;
    if (auto v = by_input_id.find(f.function); v != by_input_id.end()) {
      owner = v->second;
    } else if (auto w = by_name.find(f.function); w != by_name.end()) {
      owner = w->second;
    }
    if (owner) {
      rf.node = owner;
      Node& n = out.graph[*owner];
      Status s = StatusOfCheck(f.check);
      if (n.status == Status::kOk || s == Status::kLeaked) n.status = s;
    }
    out.findings.push_back(std::move(rf));
  }
  return out;
}

}  // namespace tether::graph
