// The scope graph: who owns each task, which context it was given, and who
// waited for it, as a Boost.Graph adjacency_list with bundled properties.
//
// Built from a trace (tether::trace::Trace plus the findings of
// tether::trace::Analyze) or from the static context-flow graph that
// `tether check --graph` writes (docs/static-graph-format.md). Every writer
// (JSON, DOT, SVG, HTML, Perfetto) reads only this graph and its analyses.
//
// Edges point from the dependent thing to what it depends on:
//   ctx   --derived-from--> parent ctx
//   task  --spawned-by----> the context it was spawned with, and the task
//                           whose thread spawned it (when a task did)
//   task  --belongs-to----> its group, or (no group) its scope or the scope
//                           it was detached from
//   group --belongs-to----> the scope of its context
//   ctx   --belongs-to----> the scope (or group) it is the context of
//   scope --belongs-to----> the enclosing scope
//   task  --waited-by-----> the group whose Wait covered it
//   ctx   --cancelled-by--> the ancestor whose cancellation reached it
//   task  --cancelled-by--> its context, when it returned canceled/deadline
//   fn    --calls---------> fn (static graphs; passes_context says if the
//                           caller's context went along)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "tether/trace/model.hpp"

namespace tether::graph {

enum class NodeKind { kScope, kContext, kTask, kGroup, kFunction };
enum class EdgeKind { kDerivedFrom, kSpawnedBy, kBelongsTo, kWaitedBy, kCancelledBy, kCalls };
// ok; zombie: ran past its scope's end; leaked: ran past program exit (tasks)
// or was destroyed unwaited (groups) or has a leak-class static finding;
// detached: cut from its scope (a root created inside it, a Go on a root).
enum class Status { kOk, kZombie, kLeaked, kDetached };

std::string_view NodeKindName(NodeKind kind);  // "scope", "context", "task", "group", "function"
std::string_view EdgeKindName(EdgeKind kind);  // "derived-from", ..., "calls"
std::string_view StatusName(Status status);    // "ok", "zombie", "leaked", "detached"

struct SourceSite {
  std::string file;
  int line = 0;
  std::string function;
};

// One vertex. `key` is unique and made only of [a-z0-9:] ("task:12",
// "ctx:3", "fn:0"), so writers may use it in ids; every other string comes
// from the input and must be escaped by whoever prints it.
struct Node {
  NodeKind kind = NodeKind::kTask;
  std::string key;
  std::uint64_t input_id = 0;  // the id in the trace (0 for static nodes)
  std::string name;            // display name from the input
  std::string detail;          // ctx kind, task result, qualified name, ...
  SourceSite site;
  bool pthread = false;    // tasks: a plain thread (libtether_threads.so), not a libtether task
  SourceSite detach_site;  // threads: where pthread_detach was called (file "" when not)
  std::optional<std::int64_t> begin_ns;  // created / spawned / scope begin
  std::optional<std::int64_t> start_ns;  // task started running / group Wait began
  std::optional<std::int64_t> end_ns;    // ctx done / task end / Wait end / scope end
  Status status = Status::kOk;
  bool recorded = true;           // false: referenced by the input but never described
  bool receives_context = false;  // functions
  bool root_context = false;      // contexts: no parent, or background/todo/without_cancel
  std::uint64_t thread = 0;       // tasks: the thread that ran it
  // Tasks and groups: the key of the scope they are charged to, as the
  // tracer charges them (the context's scope, else the scope the spawner
  // worked for, else the spawning task's), so a task detached from its
  // build is still drawn in that build's lane. Contexts: their scope, else
  // (a root made inside a scope) the scope of the tasks spawned on them.
  // "" when none.
  std::string scope_key;
};

struct Edge {
  EdgeKind kind = EdgeKind::kDerivedFrom;
  bool passes_context = false;  // calls
  SourceSite site;              // calls: where the call is
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Node, Edge>;
using Vertex = Graph::vertex_descriptor;

// A finding shown in reports: a trace finding (zombie, leak, unwaited-group)
// or a static one (the check's name).
struct ReportFinding {
  std::string kind;
  std::string message;
  std::optional<Vertex> node;   // what it is about
  std::optional<Vertex> scope;  // the scope it concerns (traces)
  SourceSite site;
  int col = 0;
  std::int64_t outlived_ns = 0;  // zombies
};

enum class SourceKind { kTrace, kStatic };

// The graph plus what the report header says about its input.
struct ScopeGraph {
  SourceKind source = SourceKind::kTrace;
  std::string input_path;
  std::string program;
  std::int64_t pid = 0;
  bool truncated = false;
  std::uint64_t lost_events = 0;
  std::int64_t time_origin_ns = 0;  // trace start: times in reports are relative to it
  std::int64_t time_end_ns = 0;     // the last time seen in the trace
  Graph graph;
  std::vector<ReportFinding> findings;
  std::unordered_map<std::string, Vertex> by_key;

  std::optional<Vertex> Find(const std::string& key) const;
  std::size_t CountNodes(NodeKind kind) const;
};

// Builds the graph of a trace; `findings` are tether::trace::Analyze's.
ScopeGraph BuildFromTrace(const trace::Trace& trace, const std::vector<trace::Finding>& findings);

// The static context-flow graph of `tether check --graph`.
struct StaticRoot {
  std::string file;
  int line = 0;
  std::string call;
  bool justified = false;  // a tether:detached(<why>) / NOLINT marker covers it
};
struct StaticFunction {
  std::string id;
  std::string name;
  std::string qualified_name;
  std::string file;
  int line = 0;
  bool receives_context = false;
  bool returns_context = false;  // creates roots by design: a factory, main, a test body
  std::vector<StaticRoot> creates_roots;
};
struct StaticCall {
  std::string from;
  std::string to;
  std::string file;
  int line = 0;
  bool passes_context = false;
};
struct StaticFinding {
  std::string check;
  std::string file;
  int line = 0;
  int col = 0;
  std::string message;
  std::string function;
};
struct StaticGraph {
  std::vector<StaticFunction> functions;
  std::vector<StaticCall> calls;
  std::vector<StaticFinding> findings;
};

// Builds the graph of a static graph whose call ends name known function ids
// (LoadStaticGraph guarantees it).
ScopeGraph BuildFromStatic(const StaticGraph& input);

// For one zombie or leaked task: how it hangs together with its scope.
struct OwnershipPath {
  Vertex task = 0;
  std::optional<Vertex> scope;       // the scope it outlived or was detached from
  bool reaches_scope = false;        // the chain task -> ctx -> ... reaches that scope
  std::vector<Vertex> path;          // task -> ... -> scope, or task -> ... -> root when cut
  std::optional<Vertex> first_root;  // the first root context on its context chain
  bool leak = false;                 // a leak (program exit) rather than a zombie
};

struct Analyses {
  std::vector<OwnershipPath> ownership;  // one per zombie/leak finding, in finding order
  // The spawn tree: a task hangs under the task that spawned it, else under
  // its group or scope; groups under their scope; scopes under the
  // enclosing scope.
  std::vector<Vertex> spawn_roots;                  // roots (outer scopes, ownerless tasks)
  std::vector<std::vector<Vertex>> spawn_children;  // indexed by vertex
  std::vector<Vertex> unwaited_tasks;               // tasks no group's Wait covered
};

// Runs the Boost.Graph analyses (breadth-first search on the ownership
// edges, depth-first search on the reversed spawn-tree edges).
Analyses AnalyzeGraph(const ScopeGraph& graph);

}  // namespace tether::graph
