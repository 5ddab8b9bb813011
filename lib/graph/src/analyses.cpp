// The analyses of the scope graph, on Boost.Graph algorithms:
//  - ownership paths: breadth_first_search from a zombie task along the
//    ownership edges (spawned-by, derived-from, ctx belongs-to scope) finds
//    the path to its scope, or shows the chain ends at a root first;
//  - the spawn tree: depth_first_visit over the reversed spawn-tree edges
//    (task -> spawning task, else belongs-to) between scopes, groups, tasks;
//  - unwaited tasks: tasks with no waited-by edge.
#include <algorithm>
#include <iterator>
#include <limits>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <boost/graph/visitors.hpp>
#include <boost/pending/queue.hpp>

#include "tether/graph/scope_graph.hpp"

namespace tether::graph {

std::string_view NodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kScope:
      return "scope";
    case NodeKind::kContext:
      return "context";
    case NodeKind::kTask:
      return "task";
    case NodeKind::kGroup:
      return "group";
    case NodeKind::kFunction:
      return "function";
  }
  return "?";
}

std::string_view EdgeKindName(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::kDerivedFrom:
      return "derived-from";
    case EdgeKind::kSpawnedBy:
      return "spawned-by";
    case EdgeKind::kBelongsTo:
      return "belongs-to";
    case EdgeKind::kWaitedBy:
      return "waited-by";
    case EdgeKind::kCancelledBy:
      return "cancelled-by";
    case EdgeKind::kCalls:
      return "calls";
  }
  return "?";
}

std::string_view StatusName(Status status) {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kZombie:
      return "zombie";
    case Status::kLeaked:
      return "leaked";
    case Status::kDetached:
      return "detached";
  }
  return "?";
}

std::optional<Vertex> ScopeGraph::Find(const std::string& key) const {
  auto found = by_key.find(key);
  if (found == by_key.end()) return std::nullopt;
  return found->second;
}

std::size_t ScopeGraph::CountNodes(NodeKind kind) const {
  std::size_t n = 0;
  for (auto v : boost::make_iterator_range(boost::vertices(graph))) {
    if (graph[v].kind == kind) ++n;
  }
  return n;
}

namespace {

// The edges that say "this is owned through that": a task's context, a
// context's parent, and the link from a scope's context to the scope.
struct OwnershipEdges {
  const Graph* g = nullptr;
  bool operator()(const Graph::edge_descriptor& e) const {
    const Edge& edge = (*g)[e];
    if (edge.kind == EdgeKind::kDerivedFrom) return true;
    if (edge.kind == EdgeKind::kSpawnedBy)
      return (*g)[boost::target(e, *g)].kind == NodeKind::kContext;
    return edge.kind == EdgeKind::kBelongsTo &&
           (*g)[boost::source(e, *g)].kind == NodeKind::kContext &&
           (*g)[boost::target(e, *g)].kind == NodeKind::kScope;
  }
};

// The spawn tree's edges: task -> the task that spawned it; otherwise
// belongs-to (task -> group or scope, group -> scope, scope -> scope).
struct TreeEdges {
  const Graph* g = nullptr;
  const std::vector<bool>* spawned_by_task = nullptr;  // indexed by vertex
  bool operator()(const Graph::edge_descriptor& e) const {
    const Edge& edge = (*g)[e];
    if (edge.kind == EdgeKind::kSpawnedBy)
      return (*g)[boost::target(e, *g)].kind == NodeKind::kTask;
    return edge.kind == EdgeKind::kBelongsTo && !(*spawned_by_task)[boost::source(e, *g)];
  }
};
struct TreeVertices {
  const Graph* g = nullptr;
  bool operator()(Vertex v) const {
    NodeKind k = (*g)[v].kind;
    return k == NodeKind::kScope || k == NodeKind::kGroup || k == NodeKind::kTask;
  }
};

// A root: marked so by the input, or a context whose parent is unknown.
bool IsRoot(const Graph& g, Vertex v) {
  if (g[v].root_context) return true;
  for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
    if (g[e].kind == EdgeKind::kDerivedFrom) return false;
  }
  return true;
}

// Breadth-first searches from one task at a time over the ownership edges.
// The per-vertex arrays are allocated once and only the vertices a search
// reached are reset after it, so N findings cost O(N * chain length), not
// O(N * graph size).
class OwnershipSearch {
 public:
  explicit OwnershipSearch(const ScopeGraph& sg)
      : sg_(sg),
        owned_(sg.graph, OwnershipEdges{&sg.graph}),
        pred_(boost::num_vertices(sg.graph)),
        dist_(boost::num_vertices(sg.graph), kUnreached),
        color_(boost::num_vertices(sg.graph), boost::white_color) {
    for (std::size_t i = 0; i < pred_.size(); ++i) pred_[i] = i;
  }

  OwnershipPath PathOf(const ReportFinding& finding) {
    const Graph& g = sg_.graph;
    OwnershipPath out;
    out.task = *finding.node;
    out.scope = finding.scope;
    out.leak = finding.kind == "leak";

    reached_.clear();
    dist_[out.task] = 0;
    boost::queue<Vertex> queue;
    auto color =
        boost::make_iterator_property_map(color_.begin(), boost::get(boost::vertex_index, g));
    boost::breadth_first_visit(
        owned_, out.task, queue,
        boost::make_bfs_visitor(std::make_pair(
            boost::record_predecessors(pred_.data(), boost::on_tree_edge()),
            std::make_pair(
                boost::record_distances(dist_.data(), boost::on_tree_edge()),
                boost::write_property(boost::typed_identity_property_map<Vertex>(),
                                      std::back_inserter(reached_), boost::on_discover_vertex())))),
        color);

    // The first root: the nearest reached root context.
    std::size_t best = kUnreached;
    for (Vertex v : reached_) {
      if (g[v].kind == NodeKind::kContext && IsRoot(g, v) && dist_[v] < best) {
        best = dist_[v];
        out.first_root = v;
      }
    }
    Vertex end = out.task;
    if (out.scope && dist_[*out.scope] != kUnreached) {
      out.reaches_scope = true;
      end = *out.scope;
    } else if (out.first_root) {
      end = *out.first_root;
    }
    for (Vertex v = end;; v = pred_[v]) {
      out.path.push_back(v);
      if (v == out.task || pred_[v] == v) break;
    }
    std::reverse(out.path.begin(), out.path.end());

    for (Vertex v : reached_) {
      pred_[v] = v;
      dist_[v] = kUnreached;
      color_[v] = boost::white_color;
    }
    return out;
  }

 private:
  static constexpr std::size_t kUnreached = std::numeric_limits<std::size_t>::max();
  const ScopeGraph& sg_;
  boost::filtered_graph<Graph, OwnershipEdges> owned_;
  std::vector<Vertex> pred_;
  std::vector<std::size_t> dist_;
  std::vector<boost::default_color_type> color_;
  std::vector<Vertex> reached_;
};

// Records the tree edges of a depth-first visit as parent -> children.
struct SpawnTreeRecorder : boost::default_dfs_visitor {
  std::vector<std::vector<Vertex>>* children = nullptr;
  template <typename E, typename G>
  void tree_edge(E e, const G& g) const {
    (*children)[boost::source(e, g)].push_back(boost::target(e, g));
  }
};

}  // namespace

Analyses AnalyzeGraph(const ScopeGraph& sg) {
  const Graph& g = sg.graph;
  Analyses out;
  OwnershipSearch search(sg);
  for (const ReportFinding& f : sg.findings) {
    if ((f.kind == "zombie" || f.kind == "leak") && f.node)
      out.ownership.push_back(search.PathOf(f));
  }

  const std::size_t n = boost::num_vertices(g);
  out.spawn_children.assign(n, {});
  std::vector<bool> spawned_by_task(n, false);
  for (auto e : boost::make_iterator_range(boost::edges(g))) {
    if (g[e].kind == EdgeKind::kSpawnedBy && g[boost::target(e, g)].kind == NodeKind::kTask) {
      spawned_by_task[boost::source(e, g)] = true;
    }
  }
  boost::filtered_graph<Graph, TreeEdges, TreeVertices> tree(g, TreeEdges{&g, &spawned_by_task},
                                                             TreeVertices{&g});
  boost::reverse_graph<decltype(tree)> down(tree);
  std::vector<boost::default_color_type> color(n, boost::white_color);
  auto color_map =
      boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g));
  SpawnTreeRecorder recorder;
  recorder.children = &out.spawn_children;
  for (Vertex v = 0; v < n; ++v) {
    if (!TreeVertices{&g}(v)) continue;
    // Roots own nothing upward (no belongs-to out-edge in the tree).
    if (boost::out_degree(v, tree) != 0) continue;
    out.spawn_roots.push_back(v);
    boost::depth_first_visit(down, v, recorder, color_map);
  }

  for (Vertex v = 0; v < n; ++v) {
    if (g[v].kind != NodeKind::kTask || !g[v].recorded) continue;
    bool waited = false;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
      if (g[e].kind == EdgeKind::kWaitedBy) waited = true;
    }
    if (!waited) out.unwaited_tasks.push_back(v);
  }
  return out;
}

}  // namespace tether::graph
