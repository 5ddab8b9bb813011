// The timeline section and the findings grouped by spawn site of the HTML
// report (html_sections.hpp).
#include "html_sections.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "describe.hpp"
#include "tether/trace/report.hpp"

namespace tether::graph::detail {
namespace {

// Members listed when a site row is expanded; the full table has them all.
constexpr std::size_t kMembersListed = 50;
constexpr std::size_t kScopesNamed = 6;

std::string NodeLinkHtml(const ScopeGraph& sg, const DisplayGraph& display, Vertex v) {
  const Node& n = sg.graph[v];
  const std::string& id = display.nodes[display.node_of_vertex[v]].dom_id;
  return "<a class=\"node-link\" href=\"#" + id + "\" data-node=\"" + id + "\">" +
         EscapeHtml(std::string(NodeKindName(n.kind)) + " " + n.name) + "</a>";
}

std::string SourceLinkHtml(const SourceSite& site) {
  if (site.file.empty()) return "(unknown site)";
  return "<a class=\"src\" href=\"" + EscapeHtml(SourceHref(site.file, site.line)) + "\" title=\"" +
         EscapeHtml(site.file) + "\">" + EscapeHtml(SiteText(site)) + "</a>";
}

}  // namespace

std::string ScriptData(std::string markup) {
  std::string lower = markup;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (lower.find("</script") != std::string::npos || lower.find("<!--") != std::string::npos) {
    throw std::logic_error("markup for an HTML data block holds </script or <!--");
  }
  return markup;
}

void WriteTimelineSection(const ScopeGraph& sg, const Analyses& analyses,
                          const DisplayGraph& display, std::ostream& out) {
  out << "<h2 id=\"timeline-title\">Timeline</h2>\n<p class=\"meta legend\">"
      << "<span><i style=\"background:#93c5fd\"></i>scope lifetime</span>"
      << "<span><i style=\"background:#86efac\"></i>task running</span>"
      << "<span><i style=\"background:#fde68a\"></i>detached task (spawned on a root "
         "context)</span>"
      << "<span><i style=\"background:#ef4444\"></i>zombie: running after its scope ended (length "
         "written on "
         "it)</span>"
      << "<span><i style=\"background:#fb923c\"></i>leaked at exit</span>"
      << "<span><i "
         "style=\"background:#f97316;transform:rotate(45deg);width:9px;height:9px\"></i>TaskGroup "
         "destroyed without Wait</span>"
      << "<span><i style=\"background:#7c3aed\"></i>group Wait</span>"
      << "<span>&darr; spawn, <span style=\"color:#16a34a\">&#8599;</span> join</span></p>\n";
  if (display.grouped) {
    out << "<p class=\"warn\">More than " << kGroupTasksAbove
        << " tasks (or --group-above): each lane folds the tasks of one spawn site and status into "
           "one bar "
           "with a count (&times;N).</p>\n";
  }
  out << "<div id=\"tl-wrap\">\n";
  WriteTimelineHtml(sg, analyses, display.grouped ? 0 : std::numeric_limits<std::size_t>::max(),
                    display, out);
  out << "</div>\n<div id=\"tl-detail\">Hover over a bar, or click it, for its spawn site, its "
         "context chain "
         "and where the chain was cut.</div>\n";
}

void WriteFindingsBySite(const ScopeGraph& sg, const Analyses& analyses,
                         const DisplayGraph& display, std::ostream& out) {
  if (sg.findings.empty()) return;
  const Graph& g = sg.graph;
  std::map<Vertex, const OwnershipPath*> path_of;
  for (const OwnershipPath& p : analyses.ownership) path_of[p.task] = &p;
  struct SiteRow {
    std::string kind;
    SourceSite site;
    std::vector<const ReportFinding*> members;
    std::set<std::string> scopes;  // names, sorted
    std::int64_t worst_ns = 0;
    std::set<std::string> cuts;
  };
  std::vector<SiteRow> rows;
  std::map<std::tuple<std::string, std::string, int>, std::size_t> index;
  for (const ReportFinding& f : sg.findings) {
    auto [it, inserted] =
        index.emplace(std::make_tuple(f.kind, f.site.file, f.site.line), rows.size());
    if (inserted) rows.push_back({f.kind, f.site, {}, {}, 0, {}});
    SiteRow& row = rows[it->second];
    row.members.push_back(&f);
    if (f.scope) {
      row.scopes.insert(g[*f.scope].name);
    } else if (f.node && !g[*f.node].scope_key.empty()) {
      // A group on a detached context: the scope its tasks were charged to.
      if (auto s = sg.Find(g[*f.node].scope_key)) row.scopes.insert(g[*s].name);
    }
    if (f.kind == "unwaited-group")
      row.cuts.insert("destroyed without Wait: nobody joined its tasks");
    row.worst_ns = std::max(row.worst_ns, f.outlived_ns);
    if (f.node) {
      if (auto p = path_of.find(*f.node); p != path_of.end()) {
        const OwnershipPath& path = *p->second;
        if (path.reaches_scope) {
          row.cuts.insert("reaches its scope: the scope did not wait for it");
        } else if (!path.first_root) {
          row.cuts.insert("spawned on Background()/TODO() itself");
        } else {
          row.cuts.insert("cut at " +
                          g[*path.first_root].name.substr(g[*path.first_root].name.find(' ') + 1) +
                          " root made at " + SiteText(g[*path.first_root].site));
        }
      }
    }
  }
  out << "<h2 id=\"sites-title\">Findings by spawn site (" << rows.size() << " sites, "
      << sg.findings.size()
      << " findings)</h2>\n<table class=\"sites\" "
         "id=\"sites\">\n<thead><tr><th>Kind</th><th>Site</th><th>What</th>"
      << "<th>Count</th><th>Scopes hit</th><th>Why</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SiteRow& row = rows[i];
    const ReportFinding& first = *row.members.front();
    std::string what = first.node ? g[*first.node].name : first.message;
    if (row.kind == "unwaited-group") what = "TaskGroup destroyed without Wait";
    std::string scopes;
    std::size_t named = 0;
    for (const std::string& s : row.scopes) {
      if (named++ == kScopesNamed) {
        scopes += ", +" + std::to_string(row.scopes.size() - kScopesNamed) + " more";
        break;
      }
      scopes += (scopes.empty() ? "" : ", ") + s;
    }
    std::string why;
    if (row.worst_ns > 0)
      why = "outlived its scope by up to " + trace::FormatReportDuration(row.worst_ns);
    for (const std::string& c : row.cuts) why += (why.empty() ? "" : "; ") + c;
    out << "<tr class=\"site " << EscapeHtml(row.kind) << "\" id=\"site-" << i << "\" data-kind=\""
        << EscapeHtml(row.kind) << "\" data-count=\"" << row.members.size()
        << "\"><td class=\"badge\">" << EscapeHtml(row.kind) << "</td><td class=\"where\">"
        << SourceLinkHtml(row.site) << "</td><td>" << EscapeHtml(what)
        << "</td><td class=\"count\">" << row.members.size() << "</td><td>" << EscapeHtml(scopes)
        << "</td><td>"
        << "<details><summary>" << EscapeHtml(why.empty() ? "details" : why) << "</summary><ul>";
    for (std::size_t k = 0; k < row.members.size() && k < kMembersListed; ++k) {
      const ReportFinding& f = *row.members[k];
      out << "<li>" << (f.node ? NodeLinkHtml(sg, display, *f.node) + ": " : std::string())
          << EscapeHtml(f.message) << "</li>";
    }
    if (row.members.size() > kMembersListed) {
      out << "<li>... and " << row.members.size() - kMembersListed
          << " more (in the full table below)</li>";
    }
    out << "</ul></details></td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

}  // namespace tether::graph::detail
