// Plain-text descriptions of nodes, context chains and cuts (describe.hpp).
#include "describe.hpp"

#include <set>

namespace tether::graph::detail {

std::string Clip(const std::string& s, std::size_t max) {
  if (s.size() <= max) return s;
  std::size_t cut = max > 3 ? max - 3 : 0;
  // Back up to the start of a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

std::string Basename(const std::string& file) {
  auto slash = file.rfind('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

std::string SiteText(const SourceSite& site, bool full) {
  if (site.file.empty()) return full ? "(unknown site)" : "";
  std::string out = (full ? site.file : Basename(site.file)) + ":" + std::to_string(site.line);
  if (full && !site.function.empty()) out += " in " + site.function;
  return out;
}

std::string ChainText(const Graph& g, Vertex task) {
  std::optional<Vertex> ctx;
  for (auto e : boost::make_iterator_range(boost::out_edges(task, g))) {
    if (g[e].kind == EdgeKind::kSpawnedBy && g[boost::target(e, g)].kind == NodeKind::kContext) {
      ctx = boost::target(e, g);
    }
  }
  if (!ctx) return "none: spawned directly on Background()/TODO(), nothing can cancel it";
  std::string out;
  std::set<Vertex> seen;
  while (ctx && seen.insert(*ctx).second) {
    const Node& c = g[*ctx];
    if (!out.empty()) out += " -> ";
    out += c.name;
    std::string site = SiteText(c.site);
    if (!site.empty() || c.root_context) {
      out += " (" + site + (c.root_context ? std::string(site.empty() ? "" : ", ") + "root" : "") +
             ")";
    }
    std::optional<Vertex> parent;
    for (auto e : boost::make_iterator_range(boost::out_edges(*ctx, g))) {
      if (g[e].kind == EdgeKind::kDerivedFrom) parent = boost::target(e, g);
    }
    ctx = parent;
  }
  return out;
}

std::string CutText(const Graph& g, const OwnershipPath& p) {
  std::string scope = p.scope ? "'" + g[*p.scope].name + "'" : "its scope";
  if (p.reaches_scope)
    return "chain reaches scope " + scope + ": the scope ended without waiting for it";
  if (!p.first_root)
    return "cut: spawned on Background()/TODO() itself, so nothing tied it to " + scope;
  const Node& root = g[*p.first_root];
  if (!p.scope) {
    return "no scope owns it: its context chain starts at " + root.name + ", created at " +
           SiteText(root.site, true);
  }
  return "cut at " + root.name + ", a root context created at " + SiteText(root.site, true) +
         ", so nothing tied it to " + scope;
}

}  // namespace tether::graph::detail
