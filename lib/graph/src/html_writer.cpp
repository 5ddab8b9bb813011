// The HTML report: one self-contained file (inline SVG, CSS and JS; no
// network): the timeline first (a lane per scope, zombie overhangs in red),
// the findings grouped by spawn site, the full filterable findings table
// linked to graph nodes and source lines, the ownership path of every zombie,
// the graph, and the unwaited tasks.
// Every string from the input goes through EscapeHtml; no input string is
// ever placed inside the <script> element.
#include <map>
#include <set>

#include "html_sections.hpp"
#include "tether/graph/static_join.hpp"
#include "tether/graph/writers.hpp"

namespace tether::graph {
namespace {

// Lists that can grow with the trace (paths, unwaited tasks) show this many
// items in the HTML; the JSON report has them all.
constexpr std::size_t kListed = 200;

constexpr const char* kStyle = R"CSS(
body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0 24px 24px; color: #111827; }
h1 { font-size: 20px; margin: 16px 0 4px; } h2 { font-size: 16px; margin: 20px 0 8px; }
.meta { color: #4b5563; margin: 0 0 8px; } .warn { color: #b45309; font-weight: 600; }
.summary span { display: inline-block; margin-right: 16px; font-weight: 600; }
.summary .bad { color: #b91c1c; }
#filters { display: flex; gap: 12px; align-items: center; margin-bottom: 8px; }
#filters input { width: 280px; } #f-count { color: #4b5563; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f9fafb; }
tr.zombie { background: #fee2e2; } tr.leak { background: #ffedd5; } tr.unwaited-group { background: #fef3c7; }
tr.sel { outline: 3px solid #2563eb; }
.badge { font-weight: 700; text-transform: uppercase; font-size: 11px; }
tr.zombie .badge { color: #b91c1c; }
code, .src { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
#graph { border: 1px solid #d1d5db; overflow: auto; max-height: 75vh; background: #fff; }
#graph g.node { cursor: pointer; }
#graph .hl polygon, #graph .hl ellipse, #graph .hl path { stroke: #2563eb !important; stroke-width: 5px; }
ol.paths li { margin-bottom: 4px; } .cut { color: #b91c1c; font-weight: 600; }
#tl-wrap { border: 1px solid #d1d5db; overflow: auto; max-height: 80vh; background: #fff; }
#tl-detail { white-space: pre-wrap; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px;
  background: #f9fafb; border: 1px solid #e5e7eb; padding: 6px 8px; margin: 6px 0 0; min-height: 2.8em; }
.legend span { display: inline-block; margin-right: 14px; } .legend i { display: inline-block; width: 22px;
  height: 10px; margin-right: 4px; vertical-align: middle; border: 1px solid #64748b; }
table.static tr.hit { background: #fee2e2; } table.static td.where { white-space: nowrap; }
table.sites td.count { font-weight: 700; text-align: right; } table.sites td.where { white-space: nowrap; } table.sites details summary { cursor: pointer; }
table.sites details ul { margin: 4px 0; padding-left: 18px; }
details.all > summary { cursor: pointer; font-size: 16px; font-weight: 700; margin: 20px 0 8px; }
)CSS";

constexpr const char* kScript = R"JS(
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll('#findings tbody tr'));
  var kind = document.getElementById('f-kind');
  var scope = document.getElementById('f-scope');
  var text = document.getElementById('f-text');
  function apply() {
    var k = kind.value, s = scope.value, t = text.value.toLowerCase(), shown = 0;
    rows.forEach(function (r) {
      var ok = (!k || r.dataset.kind === k) && (!s || r.dataset.scope === s) &&
               (!t || r.textContent.toLowerCase().indexOf(t) >= 0);
      r.hidden = !ok;
      if (ok) shown++;
    });
    document.getElementById('f-count').textContent = shown + ' of ' + rows.length + ' findings shown';
  }
  function highlight(id) {
    document.querySelectorAll('#graph .hl').forEach(function (e) { e.classList.remove('hl'); });
    var node = document.getElementById(id);
    if (node) {
      node.classList.add('hl');
      node.scrollIntoView({block: 'center', inline: 'center'});
    }
    rows.forEach(function (r) { r.classList.toggle('sel', r.dataset.node === id); });
  }
  kind.addEventListener('change', apply);
  scope.addEventListener('change', apply);
  text.addEventListener('input', apply);
  document.querySelectorAll('a.node-link').forEach(function (a) {
    a.addEventListener('click', function (ev) {
      ev.preventDefault();
      highlight(a.dataset.node);
      history.replaceState(null, '', '#' + a.dataset.node);
    });
  });
  document.querySelectorAll('#graph g.node').forEach(function (g) {
    g.addEventListener('click', function () { highlight(g.id); });
  });
  // Timeline: a click shows the bar's site, context chain and cut (its
  // <title>, which hovering shows too) and outlines its graph node.
  var detail = document.getElementById('tl-detail');
  document.querySelectorAll('#timeline g.tl-bar').forEach(function (b) {
    b.addEventListener('click', function () {
      document.querySelectorAll('#timeline .tl-sel').forEach(function (e) { e.classList.remove('tl-sel'); });
      b.classList.add('tl-sel');
      var title = b.querySelector('title');
      if (detail && title) detail.textContent = title.textContent;
      if (b.dataset.node) {
        document.querySelectorAll('#graph .hl').forEach(function (e) { e.classList.remove('hl'); });
        var node = document.getElementById(b.dataset.node);
        if (node) node.classList.add('hl');
      }
    });
  });
  // ?kind=&scope=&text= preset the filters, so a link can open a filtered view.
  var preset = new URLSearchParams(location.search);
  if (preset.has('kind')) kind.value = preset.get('kind');
  if (preset.has('scope')) scope.value = preset.get('scope');
  if (preset.has('text')) text.value = preset.get('text');
  var all = document.getElementById('all-findings');
  if (all && (preset.has('kind') || preset.has('scope') || preset.has('text') || location.hash.length > 1)) {
    all.open = true;
  }
  apply();
  if (location.hash.length > 1) highlight(decodeURIComponent(location.hash.slice(1)));
  // ?bar=<node id> clicks that timeline bar, so a link can open a task's
  // detail (and a test can drive the click handler in a headless browser).
  if (preset.has('bar')) {
    var want = preset.get('bar');
    document.querySelectorAll('#timeline g.tl-bar').forEach(function (b) {
      if (b.dataset.node === want) b.dispatchEvent(new MouseEvent('click', {bubbles: true}));
    });
  }
})();
)JS";

std::string SiteText(const SourceSite& site) {
  if (site.file.empty()) return "";
  return site.file + ":" + std::to_string(site.line);
}

std::string SourceLink(const SourceSite& site, int col = 0) {
  if (site.file.empty()) return "";
  std::string text = SiteText(site) + (col > 0 ? ":" + std::to_string(col) : "");
  return "<a class=\"src\" href=\"" + EscapeHtml(SourceHref(site.file, site.line)) + "\">" + EscapeHtml(text) +
         "</a>";
}

std::string NodeLink(const ScopeGraph& sg, const DisplayGraph& display, Vertex v) {
  const Node& n = sg.graph[v];
  const std::string& id = display.nodes[display.node_of_vertex[v]].dom_id;
  return "<a class=\"node-link\" href=\"#" + id + "\" data-node=\"" + id + "\">" +
         EscapeHtml(std::string(NodeKindName(n.kind)) + " " + n.name) + "</a>";
}

void WriteFindings(const ScopeGraph& sg, const DisplayGraph& display, std::ostream& out) {
  std::set<std::string> kinds;
  std::map<std::string, std::string> scopes;  // key -> name
  for (const ReportFinding& f : sg.findings) {
    kinds.insert(f.kind);
    if (f.scope) scopes[sg.graph[*f.scope].key] = sg.graph[*f.scope].name;
  }
  out << "<details class=\"all\" id=\"all-findings\"><summary id=\"findings-title\">All findings ("
      << sg.findings.size() << "), filterable</summary>\n<div id=\"filters\">\n"
      << "<label>Kind <select id=\"f-kind\"><option value=\"\">all</option>";
  for (const std::string& k : kinds) out << "<option value=\"" << EscapeHtml(k) << "\">" << EscapeHtml(k) << "</option>";
  out << "</select></label>\n<label>Scope <select id=\"f-scope\"><option value=\"\">all</option>";
  for (const auto& [key, name] : scopes) out << "<option value=\"" << key << "\">" << EscapeHtml(name) << "</option>";
  out << "</select></label>\n<label>Text <input id=\"f-text\" type=\"search\" placeholder=\"name, file, message\">"
      << "</label>\n<span id=\"f-count\"></span>\n</div>\n";
  out << "<table id=\"findings\">\n<thead><tr><th>Kind</th><th>Node</th><th>Scope</th><th>Message</th>"
      << "<th>Source</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < sg.findings.size(); ++i) {
    const ReportFinding& f = sg.findings[i];
    std::string node_id = f.node ? display.nodes[display.node_of_vertex[*f.node]].dom_id : "";
    std::string scope_key = f.scope ? sg.graph[*f.scope].key : "";
    out << "<tr class=\"finding " << EscapeHtml(f.kind) << "\" id=\"finding-" << i << "\" data-kind=\""
        << EscapeHtml(f.kind) << "\" data-scope=\"" << scope_key << "\" data-node=\"" << node_id << "\">"
        << "<td class=\"badge\">" << EscapeHtml(f.kind) << "</td><td>"
        << (f.node ? NodeLink(sg, display, *f.node) : "") << "</td><td>"
        << (f.scope ? EscapeHtml(sg.graph[*f.scope].name) : "") << "</td><td>" << EscapeHtml(f.message)
        << "</td><td>" << SourceLink(f.site, f.col) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n</details>\n";
}

void WritePaths(const ScopeGraph& sg, const Analyses& analyses, const DisplayGraph& display, std::ostream& out) {
  if (analyses.ownership.empty()) return;
  out << "<h2>Why each zombie outlived its scope</h2>\n<ol class=\"paths\">\n";
  for (std::size_t k = 0; k < analyses.ownership.size() && k < kListed; ++k) {
    const OwnershipPath& p = analyses.ownership[k];
    out << "<li>";
    for (std::size_t i = 0; i < p.path.size(); ++i) {
      out << (i ? " &rarr; " : "") << NodeLink(sg, display, p.path[i]);
    }
    if (p.reaches_scope) {
      out << " (its context chain reaches the scope: the scope ended without waiting for it)";
    } else if (!p.first_root) {
      // Context id 0 is the shared Background()/TODO(): the task got a root directly.
      out << " <span class=\"cut\">spawned directly on Background()/TODO(): no context chain at all</span>";
      if (p.scope) out << ", so nothing tied it to " << NodeLink(sg, display, *p.scope);
    } else if (!p.scope) {
      out << " (no scope owns it; its context chain starts at the root " << EscapeHtml(sg.graph[*p.first_root].name)
          << ", created at " << SourceLink(sg.graph[*p.first_root].site) << ")";
    } else if (p.first_root) {
      out << " <span class=\"cut\">chain cut: " << EscapeHtml(sg.graph[*p.first_root].name)
          << " is a root context, created at " << SourceLink(sg.graph[*p.first_root].site) << "</span>";
      if (p.scope) out << ", so nothing tied it to " << NodeLink(sg, display, *p.scope);
    }
    out << "</li>\n";
  }
  if (analyses.ownership.size() > kListed) {
    out << "<li>... and " << analyses.ownership.size() - kListed << " more (see the JSON report)</li>\n";
  }
  out << "</ol>\n";
}

void WriteUnwaited(const ScopeGraph& sg, const Analyses& analyses, const DisplayGraph& display, std::ostream& out) {
  if (sg.source != SourceKind::kTrace) return;
  out << "<h2>Tasks never waited by any group (" << analyses.unwaited_tasks.size() << ")</h2>\n<ul id=\"unwaited\">\n";
  for (std::size_t i = 0; i < analyses.unwaited_tasks.size() && i < kListed; ++i) {
    Vertex v = analyses.unwaited_tasks[i];
    out << "<li>" << NodeLink(sg, display, v) << " " << SourceLink(sg.graph[v].site) << "</li>\n";
  }
  if (analyses.unwaited_tasks.size() > kListed) {
    out << "<li>... and " << analyses.unwaited_tasks.size() - kListed << " more (see the JSON report)</li>\n";
  }
  out << "</ul>\n";
}

}  // namespace

void WriteHtml(const ScopeGraph& sg, const Analyses& analyses, const DisplayGraph& display, const std::string& svg,
               std::ostream& out, const StaticJoin* join) {
  std::map<std::string, std::size_t> by_kind;
  for (const ReportFinding& f : sg.findings) by_kind[f.kind]++;
  bool trace = sg.source == SourceKind::kTrace;

  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:\">\n"
      << "<title>tether report: " << EscapeHtml(sg.input_path) << "</title>\n<style>" << kStyle
      << "</style>\n</head>\n<body>\n<h1>Tether scope graph</h1>\n<p class=\"meta\">"
      << (trace ? "trace of <code>" + EscapeHtml(sg.program) + "</code> (pid " + std::to_string(sg.pid) + "), "
                : std::string("static context-flow graph, "))
      << "from <code>" << EscapeHtml(sg.input_path) << "</code></p>\n";
  if (sg.truncated) out << "<p class=\"warn\">The trace is truncated (the program did not exit cleanly).</p>\n";
  if (sg.lost_events) {
    out << "<p class=\"warn\">" << sg.lost_events << " events were lost while tracing; the graph is incomplete.</p>\n";
  }
  if (display.grouped) {
    out << "<p class=\"warn\">More than " << kGroupTasksAbove << " tasks: the graph groups nodes by kind, spawn site "
        << "and status (the JSON report keeps every node).</p>\n";
  }
  out << "<p class=\"summary\">";
  for (const auto& [kind, n] : by_kind) {
    out << "<span class=\"bad\">" << n << " " << EscapeHtml(kind) << "</span>";
  }
  if (by_kind.empty()) out << "<span>no findings</span>";
  if (trace) {
    out << "<span>" << sg.CountNodes(NodeKind::kScope) << " scopes</span><span>" << sg.CountNodes(NodeKind::kTask)
        << " tasks</span><span>" << sg.CountNodes(NodeKind::kGroup) << " groups</span><span>"
        << sg.CountNodes(NodeKind::kContext) << " contexts</span>";
  } else {
    out << "<span>" << sg.CountNodes(NodeKind::kFunction) << " functions</span>";
  }
  out << "</p>\n";
  if (trace) detail::WriteTimelineSection(sg, analyses, display, out);
  if (join) WriteJoinHtml(sg, *join, out);
  detail::WriteFindingsBySite(sg, analyses, display, out);
  WriteFindings(sg, display, out);
  WritePaths(sg, analyses, display, out);
  out << "<h2>Scope graph</h2>\n<p class=\"meta\">Each scope is a box (red: a task outlived it) holding its "
         "contexts, groups and tasks. Red: zombie; orange: leaked or unwaited; yellow, dashed: detached. "
         "Edges: <span style=\"color:#2563eb\">spawned-by</span>, <span style=\"color:#4b5563\">derived-from"
         "</span>, <span style=\"color:#16a34a\">waited-by</span>, <span style=\"color:#9ca3af\">belongs-to "
         "(dashed)</span>, <span style=\"color:#dc2626\">cancelled-by (dashed); thick red dashed: a zombie's "
         "detached chain, to the root that cut it</span> (hover an edge for its kind). Click a node or a finding's "
         "node to highlight it.</p>\n<div id=\"graph\">\n";
  std::size_t svg_start = svg.find("<svg");
  out << (svg_start == std::string::npos ? std::string() : svg.substr(svg_start)) << "\n</div>\n";
  WriteUnwaited(sg, analyses, display, out);
  out << "<script>" << kScript << "</script>\n</body>\n</html>\n";
}

}  // namespace tether::graph
