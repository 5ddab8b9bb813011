// The timeline's lanes (timeline_lanes.hpp): which rows each scope's lane
// holds, in what order, folded or as a spawn tree.
#include "timeline_lanes.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace tether::graph::detail {
namespace {

bool HasTask(const Graph& g, Vertex group) {
  for (auto e : boost::make_iterator_range(boost::in_edges(group, g))) {
    if (g[boost::source(e, g)].kind == NodeKind::kTask) return true;
  }
  return false;
}

// Each task's parent on its lane: the task that spawned it when that task is
// in the same lane, else its group when that is; a task with neither is a top.
std::map<Vertex, Vertex> SpawnParents(const Graph& g, const std::vector<Vertex>& tasks) {
  std::map<Vertex, Vertex> parent;
  for (Vertex v : tasks) {
    std::optional<Vertex> by_task, by_group;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
      Vertex t = boost::target(e, g);
      if (g[e].kind == EdgeKind::kSpawnedBy && g[t].kind == NodeKind::kTask && g[t].recorded)
        by_task = t;
      if (g[e].kind == EdgeKind::kBelongsTo && g[t].kind == NodeKind::kGroup && g[t].recorded)
        by_group = t;
    }
    if (by_task && g[*by_task].scope_key == g[v].scope_key) {
      parent[v] = *by_task;
    } else if (by_group && g[*by_group].scope_key == g[v].scope_key) {
      parent[v] = *by_group;
    }
  }
  return parent;
}

}  // namespace

std::vector<Lane> BuildTimelineLanes(const ScopeGraph& sg, bool folded) {
  const Graph& g = sg.graph;
  std::vector<Lane> lanes;
  std::map<std::string, std::size_t> lane_of;  // scope key ("" = no scope) -> lane
  std::vector<Vertex> scopes, groups, tasks;
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    const Node& n = g[v];
    if (!n.recorded) continue;
    if (n.kind == NodeKind::kScope) scopes.push_back(v);
    // A group that never had a task says nothing on a timeline.
    if (n.kind == NodeKind::kGroup && HasTask(g, v)) groups.push_back(v);
    if (n.kind == NodeKind::kTask) tasks.push_back(v);
  }
  auto begin_of = [&](Vertex v) { return g[v].begin_ns.value_or(0); };
  auto by_begin = [&](Vertex a, Vertex b) {
    return begin_of(a) != begin_of(b) ? begin_of(a) < begin_of(b) : a < b;
  };
  std::sort(scopes.begin(), scopes.end(), by_begin);
  std::sort(groups.begin(), groups.end(), by_begin);
  std::sort(tasks.begin(), tasks.end(), by_begin);
  for (Vertex s : scopes) {
    lane_of[g[s].key] = lanes.size();
    Lane lane;
    lane.scope = s;
    lane.first = begin_of(s);
    lane.rows.push_back({RowKind::kScope, {s}, 0, -1});
    lanes.push_back(std::move(lane));
  }
  auto lane_for = [&](const std::string& key) -> Lane& {
    auto it = lane_of.find(key);
    if (it == lane_of.end()) {
      it = lane_of.emplace(key, lanes.size()).first;
      Lane lane;
      lane.first = sg.time_end_ns;                        // the ownerless lane goes last
      lane.rows.push_back({RowKind::kScope, {}, 0, -1});  // its header: a label, no bar
      lanes.push_back(std::move(lane));
    }
    return lanes[it->second];
  };

  if (folded) {
    // One row per (kind, site, status) in each lane.
    std::map<std::pair<std::size_t, std::string>, std::pair<std::size_t, std::size_t>>
        fold;  // -> lane, row
    auto add = [&](Vertex v, RowKind kind) {
      Lane& lane = lane_for(g[v].scope_key);
      std::size_t li = static_cast<std::size_t>(&lane - lanes.data());
      std::string key = std::to_string(static_cast<int>(kind)) + "|" +
                        std::string(StatusName(g[v].status)) + "|" + g[v].site.file + ":" +
                        std::to_string(g[v].site.line);
      auto [it, inserted] =
          fold.emplace(std::make_pair(li, key), std::make_pair(li, lane.rows.size()));
      if (inserted) lane.rows.push_back({kind, {}, 1, lane.scope ? 0 : -1});
      lanes[it->second.first].rows[it->second.second].members.push_back(v);
    };
    for (Vertex v : groups) add(v, RowKind::kGroup);
    for (Vertex v : tasks) add(v, RowKind::kTask);
  } else {
    // The spawn tree inside each lane: a task under the task that spawned it
    // (when that task is in the same lane), else under its group.
    const std::map<Vertex, Vertex> parent = SpawnParents(g, tasks);
    std::map<Vertex, std::vector<Vertex>> children;
    std::vector<Vertex> tops;  // in time order: groups, then tasks, merged below
    for (Vertex v : groups) tops.push_back(v);
    for (Vertex v : tasks) {
      auto p = parent.find(v);
      if (p == parent.end()) {
        tops.push_back(v);
      } else {
        children[p->second].push_back(v);
      }
    }
    std::stable_sort(tops.begin(), tops.end(), by_begin);
    // Depth-first, children in spawn order; `from` is the row spawning it.
    auto place = [&](auto&& self, Lane& lane, Vertex v, int depth, int from) -> void {
      int row = static_cast<int>(lane.rows.size());
      RowKind kind = g[v].kind == NodeKind::kGroup ? RowKind::kGroup : RowKind::kTask;
      lane.rows.push_back({kind, {v}, depth, from});
      auto c = children.find(v);
      if (c == children.end()) return;
      for (Vertex child : c->second) self(self, lane, child, depth + 1, row);
    };
    for (Vertex v : tops) {
      Lane& lane = lane_for(g[v].scope_key);
      place(place, lane, v, 1, lane.scope ? 0 : -1);
    }
  }
  std::stable_sort(lanes.begin(), lanes.end(), [](const Lane& a, const Lane& b) {
    if (a.scope.has_value() != b.scope.has_value()) return a.scope.has_value();
    return a.first < b.first;
  });
  return lanes;
}

}  // namespace tether::graph::detail
