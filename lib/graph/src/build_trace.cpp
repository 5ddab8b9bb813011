// Builds the scope graph of a trace: one vertex per scope, context, group and
// task, the edges of scope_graph.hpp, and statuses from the trace findings.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "tether/graph/scope_graph.hpp"

namespace tether::graph {
namespace {

SourceSite SiteOf(const trace::Site& site) { return {site.file, site.line, site.function}; }

std::string Ms(std::int64_t ns) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

// Adds vertices and edges while keeping by_key current; ids the trace
// references but never describes become placeholder vertices (recorded=false),
// so a chain with a lost record still ends where the data ends.
class TraceGraphBuilder {
 public:
  explicit TraceGraphBuilder(ScopeGraph* out) : out_(out) {}

  Vertex Add(NodeKind kind, std::uint64_t id, Node node) {
    node.kind = kind;
    node.input_id = id;
    node.key = KeyOf(kind, id);
    auto found = out_->by_key.find(node.key);
    if (found != out_->by_key.end()) {
      out_->graph[found->second] = std::move(node);
      return found->second;
    }
    Vertex v = boost::add_vertex(node, out_->graph);
    out_->by_key.emplace(out_->graph[v].key, v);
    return v;
  }

  // The vertex of (kind, id), created as a placeholder when unknown.
  Vertex Ref(NodeKind kind, std::uint64_t id) {
    auto found = out_->by_key.find(KeyOf(kind, id));
    if (found != out_->by_key.end()) return found->second;
    Node node;
    node.recorded = false;
    node.name = std::string(NodeKindName(kind)) + "#" + std::to_string(id) + " (not recorded)";
    return Add(kind, id, std::move(node));
  }

  void Link(Vertex from, Vertex to, EdgeKind kind) {
    Edge edge;
    edge.kind = kind;
    boost::add_edge(from, to, edge, out_->graph);
  }

  static std::string KeyOf(NodeKind kind, std::uint64_t id) {
    switch (kind) {
      case NodeKind::kScope:
        return "scope:" + std::to_string(id);
      case NodeKind::kContext:
        return "ctx:" + std::to_string(id);
      case NodeKind::kTask:
        return "task:" + std::to_string(id);
      case NodeKind::kGroup:
        return "group:" + std::to_string(id);
      case NodeKind::kFunction:
        return "fn:" + std::to_string(id);
    }
    return "node:" + std::to_string(id);
  }

 private:
  ScopeGraph* out_;
};

// The scope a task is charged to: its context's scope; else the scope its
// spawner worked for; else the spawning task's (tether::trace::Analyze does
// the same, so the timeline draws a zombie in the lane of the scope it outlived).
std::uint64_t ChargedScope(const trace::Trace& t, const trace::TaskRecord& task) {
  if (task.scope != 0) return task.scope;
  if (task.detached_from != 0) return task.detached_from;
  std::uint64_t parent = task.parent_task;
  for (std::size_t depth = 0; parent != 0 && depth < 256; ++depth) {
    auto it = t.tasks.find(parent);
    if (it == t.tasks.end()) break;
    if (it->second.scope != 0) return it->second.scope;
    if (it->second.detached_from != 0) return it->second.detached_from;
    parent = it->second.parent_task;
  }
  return 0;
}

// A context with no scope of its own (a root created inside a scope, and
// what derives from it) is charged to the scope of the first task spawned on
// it or group made on it, then up its parents while they were created inside
// that scope's lifetime. So the deadline root a build made from Background()
// is drawn in that build's cluster, beside the zombies it cut loose, while a
// worker-wide context made before the build stays outside.
void ChargeDetachedContexts(const trace::Trace& trace, ScopeGraph* out) {
  Graph& g = out->graph;
  auto charge = [&](std::uint64_t ctx, const std::string& scope_key) {
    auto s = out->by_key.find(scope_key);
    if (s == out->by_key.end()) return;
    const Node& scope = g[s->second];
    for (std::size_t depth = 0; ctx != 0 && depth < 256; ++depth) {
      auto c = trace.contexts.find(ctx);
      auto v = out->by_key.find("ctx:" + std::to_string(ctx));
      if (c == trace.contexts.end() || v == out->by_key.end() || !g[v->second].scope_key.empty())
        return;
      if (c->second.created_ns < scope.begin_ns.value_or(0) ||
          (scope.end_ns && c->second.created_ns > *scope.end_ns)) {
        return;
      }
      g[v->second].scope_key = scope_key;
      ctx = c->second.parent;
    }
  };
  for (const auto& [id, t] : trace.tasks) {
    auto v = out->by_key.find("task:" + std::to_string(id));
    if (v != out->by_key.end() && !g[v->second].scope_key.empty())
      charge(t.ctx, g[v->second].scope_key);
  }
  for (const auto& [id, grp] : trace.groups) {
    auto v = out->by_key.find("group:" + std::to_string(id));
    if (v != out->by_key.end() && !g[v->second].scope_key.empty())
      charge(grp.ctx, g[v->second].scope_key);
  }
  // What derives from a charged context is in its scope too (ids grow with
  // creation, so a parent comes first), and so is a group that never had a
  // task but was made on such a context.
  auto key_of = [&](const std::string& key) -> std::string* {
    auto v = out->by_key.find(key);
    return v == out->by_key.end() ? nullptr : &g[v->second].scope_key;
  };
  for (const auto& [id, c] : trace.contexts) {
    std::string* mine = key_of("ctx:" + std::to_string(id));
    std::string* parent = c.parent != 0 ? key_of("ctx:" + std::to_string(c.parent)) : nullptr;
    if (mine && mine->empty() && parent && !parent->empty()) *mine = *parent;
  }
  for (const auto& [id, grp] : trace.groups) {
    std::string* mine = key_of("group:" + std::to_string(id));
    std::string* ctx = grp.ctx != 0 ? key_of("ctx:" + std::to_string(grp.ctx)) : nullptr;
    if (mine && mine->empty() && ctx && !ctx->empty()) *mine = *ctx;
  }
}

void Extend(std::int64_t* last, const std::optional<std::int64_t>& t) {
  if (t) *last = std::max(*last, *t);
}

// A group's vertex. Its scope: its context's, else (a group on a detached
// context) `first_task_scope`, the scope its first task is charged to.
Node GroupNode(const trace::Trace& trace, std::uint64_t id, const trace::GroupRecord& g,
               std::uint64_t first_task_scope) {
  Node n;
  n.name = "group#" + std::to_string(id);
  n.site = SiteOf(g.site);
  n.begin_ns = g.created_ns;
  n.start_ns = g.wait_begin_ns;
  n.end_ns = g.wait_end_ns;
  if (g.destroyed_unwaited) {
    n.detail = "destroyed unwaited with " + std::to_string(g.running_at_destroy) + " running";
  } else {
    n.detail =
        g.wait_begin_ns ? (g.wait_end_ns ? "waited" : "wait never returned") : "never waited";
  }
  auto ctx = trace.contexts.find(g.ctx);
  std::uint64_t scope = ctx != trace.contexts.end() ? ctx->second.scope : 0;
  if (scope == 0) scope = first_task_scope;
  if (scope != 0) n.scope_key = "scope:" + std::to_string(scope);
  return n;
}

// Every scope, context, group and task as a vertex. Returns the latest time
// any of them names.
std::int64_t AddVertices(const trace::Trace& trace, TraceGraphBuilder& b) {
  std::int64_t last = trace.start_ns;
  for (const auto& [id, s] : trace.scopes) {
    Node n;
    n.name = s.name;
    n.site = SiteOf(s.site);
    n.begin_ns = s.begin_ns;
    n.end_ns = s.end_ns;
    n.detail = s.end_ns ? "ended" : "never ended";
    b.Add(NodeKind::kScope, id, std::move(n));
    Extend(&last, s.begin_ns);
    Extend(&last, s.end_ns);
  }
  for (const auto& [id, c] : trace.contexts) {
    Node n;
    n.name = "ctx#" + std::to_string(id) + " " + c.kind;
    n.detail = c.kind;
    if (!c.done_err.empty()) n.detail += ", " + c.done_err;
    n.site = SiteOf(c.site);
    n.root_context =
        c.parent == 0 || c.kind == "background" || c.kind == "todo" || c.kind == "without_cancel";
    n.begin_ns = c.created_ns;
    n.end_ns = c.done_ns;
    if (c.scope != 0) n.scope_key = "scope:" + std::to_string(c.scope);
    b.Add(NodeKind::kContext, id, std::move(n));
    Extend(&last, c.created_ns);
    Extend(&last, c.done_ns);
  }
  std::map<std::uint64_t, std::uint64_t> task_scope_of_group;  // group -> its first task's scope
  for (const auto& [id, t] : trace.tasks) {
    if (t.group != 0 && !task_scope_of_group.count(t.group))
      task_scope_of_group[t.group] = ChargedScope(trace, t);
  }
  for (const auto& [id, g] : trace.groups) {
    auto first = task_scope_of_group.find(id);
    b.Add(NodeKind::kGroup, id,
          GroupNode(trace, id, g, first != task_scope_of_group.end() ? first->second : 0));
    Extend(&last, g.created_ns);
    Extend(&last, g.wait_end_ns);
  }
  for (const auto& [id, t] : trace.tasks) {
    Node n;
    n.name = t.name;
    n.site = SiteOf(t.site);
    n.pthread = t.kind == "thread";
    n.detach_site = SiteOf(t.detach_site);
    n.begin_ns = t.spawn_ns;
    n.start_ns = t.start_ns;
    n.end_ns = t.end_ns;
    n.detail = t.end_ns ? t.result : "never ended";
    n.thread = t.thread;
    if (std::uint64_t scope = ChargedScope(trace, t); scope != 0)
      n.scope_key = "scope:" + std::to_string(scope);
    if (t.detached_from != 0) n.status = Status::kDetached;
    b.Add(NodeKind::kTask, id, std::move(n));
    Extend(&last, t.spawn_ns);
    Extend(&last, t.end_ns);
  }
  if (trace.end_ns) last = std::max(last, *trace.end_ns);
  return last;
}

// The edges between the vertices (after every vertex exists, so forward
// references resolve).
void AddEdges(const trace::Trace& trace, TraceGraphBuilder& b) {
  for (const auto& [id, c] : trace.contexts) {
    Vertex v = b.Ref(NodeKind::kContext, id);
    if (c.parent != 0) {
      Vertex parent = b.Ref(NodeKind::kContext, c.parent);
      b.Link(v, parent, EdgeKind::kDerivedFrom);
      auto pc = trace.contexts.find(c.parent);
      if (c.done_ns && pc != trace.contexts.end() && pc->second.done_ns &&
          *pc->second.done_ns <= *c.done_ns) {
        b.Link(v, parent, EdgeKind::kCancelledBy);
      }
    }
  }
  for (const auto& [id, s] : trace.scopes) {
    Vertex v = b.Ref(NodeKind::kScope, id);
    if (s.ctx == 0) continue;
    b.Link(b.Ref(NodeKind::kContext, s.ctx), v, EdgeKind::kBelongsTo);
    // The enclosing scope: the scope of the parent of this scope's context.
    auto ctx = trace.contexts.find(s.ctx);
    if (ctx == trace.contexts.end() || ctx->second.parent == 0) continue;
    auto parent = trace.contexts.find(ctx->second.parent);
    if (parent != trace.contexts.end() && parent->second.scope != 0 && parent->second.scope != id) {
      b.Link(v, b.Ref(NodeKind::kScope, parent->second.scope), EdgeKind::kBelongsTo);
    }
  }
  for (const auto& [id, g] : trace.groups) {
    Vertex v = b.Ref(NodeKind::kGroup, id);
    if (g.ctx == 0) continue;
    b.Link(b.Ref(NodeKind::kContext, g.ctx), v, EdgeKind::kBelongsTo);
    auto ctx = trace.contexts.find(g.ctx);
    if (ctx != trace.contexts.end() && ctx->second.scope != 0) {
      b.Link(v, b.Ref(NodeKind::kScope, ctx->second.scope), EdgeKind::kBelongsTo);
    }
  }
  for (const auto& [id, t] : trace.tasks) {
    Vertex v = b.Ref(NodeKind::kTask, id);
    if (t.ctx != 0) b.Link(v, b.Ref(NodeKind::kContext, t.ctx), EdgeKind::kSpawnedBy);
    if (t.parent_task != 0) b.Link(v, b.Ref(NodeKind::kTask, t.parent_task), EdgeKind::kSpawnedBy);
    if (t.group != 0) {
      Vertex group = b.Ref(NodeKind::kGroup, t.group);
      b.Link(v, group, EdgeKind::kBelongsTo);
      auto g = trace.groups.find(t.group);
      // Wait covers the tasks spawned before it returned.
      if (g != trace.groups.end() && g->second.wait_begin_ns &&
          (!g->second.wait_end_ns || t.spawn_ns <= *g->second.wait_end_ns)) {
        b.Link(v, group, EdgeKind::kWaitedBy);
      }
    } else if (t.scope != 0 || t.detached_from != 0) {
      // A detached task hangs under the scope it was spawned from, so the
      // spawn tree shows who started it; its status says it was cut loose.
      b.Link(v, b.Ref(NodeKind::kScope, t.scope != 0 ? t.scope : t.detached_from),
             EdgeKind::kBelongsTo);
    }
    if (t.ctx != 0 && (t.result == "canceled" || t.result == "deadline_exceeded")) {
      auto c = trace.contexts.find(t.ctx);
      if (c != trace.contexts.end() && c->second.done_ns) {
        b.Link(v, b.Ref(NodeKind::kContext, t.ctx), EdgeKind::kCancelledBy);
      }
    }
  }
}

// The report row of a trace finding; marks the statuses of the vertices it
// names (leaked, zombie, detached).
ReportFinding AddFinding(const trace::Finding& f, TraceGraphBuilder& b, ScopeGraph& out) {
  ReportFinding rf;
  if (f.scope != 0) rf.scope = b.Ref(NodeKind::kScope, f.scope);
  std::string scope_name = rf.scope ? "'" + out.graph[*rf.scope].name + "'" : "(none)";
  switch (f.kind) {
    case trace::FindingKind::kZombie:
    case trace::FindingKind::kLeak: {
      Vertex task = b.Ref(NodeKind::kTask, f.task);
      Node& n = out.graph[task];
      bool zombie = f.kind == trace::FindingKind::kZombie;
      n.status = zombie ? Status::kZombie : Status::kLeaked;
      rf.kind = zombie ? "zombie" : "leak";
      rf.node = task;
      rf.site = n.site;
      rf.outlived_ns = f.outlived_ns;
      if (zombie) {
        rf.message = "task '" + n.name + "' was still running " + Ms(f.outlived_ns) +
                     " after scope " + scope_name + " ended";
      } else {
        rf.message = "task '" + n.name + "' was still running when the program exited";
      }
      rf.message += f.ended ? " (it ended later)" : " (it never ended)";
      if (f.detached) rf.message += "; spawned on a root context: detached from the scope";
      if (f.cut_at) {
        Vertex root = b.Ref(NodeKind::kContext, *f.cut_at);
        out.graph[root].status = Status::kDetached;
        rf.message += "; its context chain is cut at " + out.graph[root].name;
      }
      break;
    }
    case trace::FindingKind::kUnjoinedThread: {
      Vertex task = b.Ref(NodeKind::kTask, f.task);
      Node& n = out.graph[task];
      n.status = Status::kLeaked;
      rf.kind = "unjoined-thread";
      rf.node = task;
      rf.site = n.site;
      rf.message = "thread '" + n.name +
                   "' finished but was never joined nor detached before the program exited";
      break;
    }
    case trace::FindingKind::kUnwaitedGroup: {
      Vertex group = b.Ref(NodeKind::kGroup, f.group);
      out.graph[group].status = Status::kLeaked;
      rf.kind = "unwaited-group";
      rf.node = group;
      rf.site = out.graph[group].site;
      rf.message = "TaskGroup destroyed without Wait while its tasks were running";
      if (rf.scope) rf.message += " (in scope " + scope_name + ")";
      break;
    }
  }
  return rf;
}

}  // namespace

ScopeGraph BuildFromTrace(const trace::Trace& trace, const std::vector<trace::Finding>& findings) {
  ScopeGraph out;
  out.source = SourceKind::kTrace;
  out.program = trace.program;
  out.pid = trace.pid;
  out.truncated = trace.truncated;
  out.lost_events = trace.lost_events;
  out.time_origin_ns = trace.start_ns;
  TraceGraphBuilder b(&out);
  out.time_end_ns = AddVertices(trace, b);
  ChargeDetachedContexts(trace, &out);
  AddEdges(trace, b);
  for (const auto& f : findings) out.findings.push_back(AddFinding(f, b, out));
  return out;
}

}  // namespace tether::graph
