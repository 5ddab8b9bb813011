// The drawn form of the scope graph: one node per vertex, or, above
// kGroupTasksAbove tasks, one node per (kind, site, status) so Graphviz
// lays out hundreds of nodes instead of hundreds of thousands.
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "tether/graph/writers.hpp"

namespace tether::graph {
namespace {

std::string Basename(const std::string& file) {
  auto slash = file.rfind('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

std::string SiteText(const SourceSite& site) {
  if (site.file.empty()) return "";
  return Basename(site.file) + ":" + std::to_string(site.line);
}

std::string Clip(const std::string& s, std::size_t max = 48) {
  return s.size() <= max ? s : s.substr(0, max - 3) + "...";
}

// members == 0: the node itself; otherwise the first line describes a group
// of `members` nodes like n.
std::string LabelOf(const Node& n, std::size_t members = 0) {
  std::string label;
  if (members > 0) {
    label = std::to_string(members) + " " + std::string(NodeKindName(n.kind)) +
            (members == 1 ? "" : "s");
    if (n.kind == NodeKind::kContext) {
      label += " (" + n.detail.substr(0, n.detail.find(',')) + ")";
    } else if (n.kind != NodeKind::kGroup) {
      label += " like " + Clip(n.name, 32);
    }
  } else {
    switch (n.kind) {
      case NodeKind::kScope:
        label = "scope " + Clip(n.name);
        break;
      case NodeKind::kTask:
        label = "task " + Clip(n.name);
        break;
      default:
        label = Clip(n.name);
    }
  }
  std::string site = SiteText(n.site);
  if (!site.empty()) label += "\n" + site;
  if (n.status != Status::kOk) {
    std::string status(StatusName(n.status));
    for (char& c : status) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    label += "\n" + status;
  }
  return label;
}

std::string TooltipOf(const Node& n) {
  std::string t = std::string(NodeKindName(n.kind)) + " " + n.key + ": " + n.name;
  if (!n.detail.empty()) t += " (" + n.detail + ")";
  if (!n.site.file.empty()) t += " at " + n.site.file + ":" + std::to_string(n.site.line);
  return t;
}

std::string DomId(const std::string& key) {
  std::string id = "n_" + key;
  for (char& c : id) {
    if (c == ':') c = '_';
  }
  return id;
}

}  // namespace

DisplayGraph MakeDisplayGraph(const ScopeGraph& sg, std::size_t group_tasks_above,
                              const Analyses* analyses) {
  const Graph& g = sg.graph;
  DisplayGraph out;
  out.grouped = sg.CountNodes(NodeKind::kTask) > group_tasks_above;
  out.node_of_vertex.resize(boost::num_vertices(g));
  std::unordered_map<std::string, std::size_t> group_of;
  std::vector<Vertex> first_member;  // grouped: the vertex each group's label describes
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    const Node& n = g[v];
    if (!out.grouped) {
      out.node_of_vertex[v] = out.nodes.size();
      std::string cluster = n.kind == NodeKind::kScope ? n.key : n.scope_key;
      out.nodes.push_back(
          {DomId(n.key), n.kind, n.status, LabelOf(n), TooltipOf(n), 1, n.recorded, cluster});
      continue;
    }
    std::string key = std::string(NodeKindName(n.kind)) + "|" + std::string(StatusName(n.status)) +
                      "|" + n.site.file + ":" + std::to_string(n.site.line) + "|" +
                      (n.kind == NodeKind::kContext ? n.detail : "");
    auto [it, inserted] = group_of.emplace(key, out.nodes.size());
    if (inserted) {
      DisplayNode d{
          "g_" + std::to_string(out.nodes.size()), n.kind, n.status, "", "", 0, n.recorded, ""};
      d.tooltip =
          std::string(NodeKindName(n.kind)) + "s of the same site and status, e.g. " + TooltipOf(n);
      out.nodes.push_back(std::move(d));
    }
    out.nodes[it->second].members++;
    out.node_of_vertex[v] = it->second;
    if (inserted) first_member.push_back(v);
  }
  if (out.grouped) {
    for (std::size_t i = 0; i < out.nodes.size(); ++i) {
      out.nodes[i].label = LabelOf(g[first_member[i]], out.nodes[i].members);
    }
  }
  if (!out.grouped) {
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
      const Node& n = g[v];
      if (n.kind != NodeKind::kScope) continue;
      DisplayCluster c{n.key, "c" + DomId(n.key),
                       "scope " + Clip(n.name) + "  (" + SiteText(n.site) + ")", false};
      for (const DisplayNode& d : out.nodes)
        c.hit = c.hit || (d.cluster == n.key && d.status == Status::kZombie);
      out.clusters.push_back(std::move(c));
    }
  }
  std::map<std::tuple<std::size_t, std::size_t, int, bool>, std::size_t> edge_of;
  for (auto e : boost::make_iterator_range(boost::edges(g))) {
    std::size_t from = out.node_of_vertex[boost::source(e, g)];
    std::size_t to = out.node_of_vertex[boost::target(e, g)];
    if (out.grouped && from == to) continue;  // a group pointing at itself says nothing
    // A context cancelled by its parent: the derived-from edge already joins them.
    if (g[e].kind == EdgeKind::kCancelledBy && !out.clusters.empty() &&
        g[boost::source(e, g)].kind == NodeKind::kContext) {
      continue;
    }
    // Inside a cluster, "belongs to this scope" is what the cluster says.
    if (g[e].kind == EdgeKind::kBelongsTo && !out.nodes[from].cluster.empty() &&
        g[boost::target(e, g)].kind == NodeKind::kScope &&
        out.nodes[from].cluster == g[boost::target(e, g)].key) {
      continue;
    }
    auto k = std::make_tuple(from, to, static_cast<int>(g[e].kind), g[e].passes_context);
    auto [it, inserted] = edge_of.emplace(k, out.edges.size());
    if (inserted) {
      out.edges.push_back({from, to, g[e].kind, g[e].passes_context, 0});
    }
    out.edges[it->second].count++;
  }
  if (analyses) {
    std::set<std::pair<std::size_t, std::size_t>> cuts;
    for (const OwnershipPath& p : analyses->ownership) {
      if (p.reaches_scope || !p.first_root || p.leak) continue;
      std::size_t from = out.node_of_vertex[p.task], to = out.node_of_vertex[*p.first_root];
      if (from == to || !cuts.insert({from, to}).second) continue;
      DisplayEdge cut{from, to, EdgeKind::kSpawnedBy, false, 1, true};
      out.edges.push_back(cut);
    }
  }
  return out;
}

}  // namespace tether::graph
