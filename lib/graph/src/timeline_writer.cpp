// The timeline: an SVG written by hand (no layout engine, no JS framework).
// One lane per scope with the scope's lifetime as a bar; under it the
// scope's groups and tasks as bars on the same time axis. The part of a task
// after its scope ended is drawn red with its length written on it, so "this
// task outlived build 2 by 1.8s" is what the eye sees first. Above
// fold_tasks_above tasks, the tasks of one lane with the same spawn site and
// status become one bar with a count, so 10k tasks stay a few rows per lane.
//
// Every bar carries a <title> (site, context chain, where it was cut): the
// browser shows it on hover, and the HTML report's script copies it into a
// detail panel on click. Input strings only ever appear escaped, in text
// nodes and attribute values.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "describe.hpp"
#include "html_sections.hpp"
#include "tether/graph/writers.hpp"
#include "tether/trace/report.hpp"
#include "tether/trace/saturate.hpp"
#include "timeline_lanes.hpp"

namespace tether::graph {
namespace {

using detail::Lane;
using detail::Row;
using detail::RowKind;

constexpr double kGutter = 300;  // row labels
constexpr double kPlot = 890;    // the time axis
constexpr double kRight = 90;    // room for labels right of a bar ending at the trace end
constexpr double kRow = 18;      // one row
constexpr double kBar = 12;      // a bar's height
constexpr double kAxis = 26;     // the axis band at the top
constexpr double kLaneGap = 6;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// "0", "250 ms", "1.5 s", "40 µs": a tick label in the unit a person reads.
std::string TickLabel(std::int64_t ns, std::int64_t step) {
  if (ns == 0) return "0";
  char buf[32];
  double v = static_cast<double>(ns);
  if (step >= 100'000'000 || ns >= 1'000'000'000) {
    std::snprintf(buf, sizeof buf, "%g s", v / 1e9);
  } else if (step >= 100'000) {
    std::snprintf(buf, sizeof buf, "%g ms", v / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%g \xC2\xB5s", v / 1e3);
  }
  return buf;
}

// A 1-2-5 step giving about `ticks` ticks over span.
std::int64_t TickStep(std::int64_t span, int ticks) {
  double raw = static_cast<double>(span) / ticks;
  double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) return std::max<std::int64_t>(1, static_cast<std::int64_t>(m * mag));
  }
  return static_cast<std::int64_t>(10 * mag);
}

// A line with a filled arrowhead at (x2, y2). Drawn as paths, not SVG
// markers: a marker is referenced through url(), which the HTML report's
// no-fetch check rejects on principle.
void Arrow(std::ostream& out, const char* cls, double x1, double y1, double x2, double y2) {
  double dx = x2 - x1, dy = y2 - y1, len = std::hypot(dx, dy);
  if (len < 1) return;
  double ux = dx / len, uy = dy / len, bx = x2 - 5 * ux, by = y2 - 5 * uy;
  out << "<g class=\"" << cls << "\"><line x1=\"" << Num(x1) << "\" y1=\"" << Num(y1) << "\" x2=\""
      << Num(bx) << "\" y2=\"" << Num(by) << "\"/><path d=\"M" << Num(x2) << "," << Num(y2) << " L"
      << Num(bx - 3 * uy) << "," << Num(by + 3 * ux) << " L" << Num(bx + 3 * uy) << ","
      << Num(by - 3 * ux) << " z\"/></g>\n";
}

// A lane's markup on one line of the HTML report's data block, parsing to
// the same DOM: a newline between two elements is dropped (whitespace between
// SVG elements draws nothing), one inside a text (a multi-line <title>) becomes
// &#10;.
std::string OneLine(const std::string& markup) {
  std::string out;
  out.reserve(markup.size() + 64);
  for (std::size_t i = 0; i < markup.size(); ++i) {
    if (markup[i] != '\n') {
      out += markup[i];
    } else if (!(i > 0 && markup[i - 1] == '>' &&
                 (i + 1 == markup.size() || markup[i + 1] == '<'))) {
      out += "&#10;";
    }
  }
  return detail::ScriptData(std::move(out));
}

class Timeline {
 public:
  Timeline(const ScopeGraph& sg, const Analyses& analyses, std::size_t fold_above,
           const DisplayGraph* display)
      : sg_(sg), g_(sg.graph), analyses_(analyses), display_(display) {
    folded_ = sg.CountNodes(NodeKind::kTask) > fold_above;
    origin_ = sg.time_origin_ns;
    span_ = std::max<std::int64_t>(trace::SaturatingSub(sg.time_end_ns, origin_), 1);
    for (std::size_t i = 0; i < analyses.ownership.size(); ++i)
      path_of_[analyses.ownership[i].task] = i;
    for (const ReportFinding& f : sg.findings) {
      if (f.node && f.kind == "zombie") outlived_[*f.node] = f.outlived_ns;
    }
    lanes_ = detail::BuildTimelineLanes(sg, folded_);
  }

  // The whole timeline as one SVG document (--format timeline-svg).
  void Write(std::ostream& out) {
    std::vector<double> tops = LaneTops();
    WriteHead(out, tops.back());
    for (std::size_t i = 0; i < lanes_.size(); ++i) WriteLane(out, lanes_[i], i, tops[i], kWidth);
    out << "</svg>\n";
  }

  // The HTML report's timeline: the SVG as tall as every lane, but holding
  // only the axis and an empty layer; each lane's markup (exactly what Write
  // draws) goes on one line of a text/plain data block, which the browser
  // keeps as one string instead of elements. The page's script
  // (html_timeline.js) parses the lanes on screen into the layer, so the DOM
  // does not grow with the tasks.
  void WriteVirtual(std::ostream& out) {
    std::vector<double> tops = LaneTops();
    WriteHead(out, tops.back());
    out << "<g id=\"tl-layer\"></g>\n</svg>\n<script type=\"text/plain\" id=\"tl-lanes\">\n";
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
      std::ostringstream lane;
      WriteLane(lane, lanes_[i], i, tops[i], kWidth);
      out << OneLine(lane.str()) << "\n";
    }
    out << "</script>\n";
  }

 private:
  static constexpr double kWidth = kGutter + kPlot + kRight;

  // Where each lane starts, and (last) the height of the whole timeline.
  std::vector<double> LaneTops() const {
    std::vector<double> tops;
    double y = kAxis + 4;
    for (const Lane& lane : lanes_) {
      tops.push_back(y);
      y += static_cast<double>(lane.rows.size()) * kRow + kLaneGap;
    }
    tops.push_back(y + 4);
    return tops;
  }

  void WriteHead(std::ostream& out, double height) const {
    const double width = kWidth;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tl\" id=\"timeline\" width=\""
        << Num(width) << "\" height=\"" << Num(height) << "\" viewBox=\"0 0 " << Num(width) << " "
        << Num(height)
        << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\" data-origin-ns=\""
        << origin_ << "\" data-span-ns=\"" << span_ << "\" data-folded=\""
        << (folded_ ? "true" : "false") << "\">\n"
        << "<style>" << kSvgStyle << "</style>\n";
    WriteAxis(out, height);
  }

  static constexpr const char* kSvgStyle =
      ".tl text{fill:#111827}.tl .tl-tick{stroke:#e5e7eb}.tl "
      ".tl-ticklabel{fill:#6b7280;font-size:10px}"
      ".tl .tl-lane-bg{fill:#f8fafc}.tl .tl-lane-bg.odd{fill:#ffffff}.tl "
      ".tl-lane-name{font-weight:700}"
      ".tl .tl-site{fill:#6b7280;font-size:10px}.tl .tl-scope-bar{fill:#93c5fd;stroke:#2563eb}"
      ".tl .tl-scope-open{fill:#dbeafe;stroke:#2563eb;stroke-dasharray:3 2}"
      ".tl .tl-end{stroke:#1d4ed8;stroke-dasharray:4 3}.tl .tl-end.hit{stroke:#b91c1c}"
      ".tl .tl-run{fill:#86efac;stroke:#16a34a}.tl .detached .tl-run{fill:#fde68a;stroke:#b45309}"
      ".tl .tl-overhang{fill:#ef4444;stroke:#991b1b}.tl .tl-leak{fill:#fb923c;stroke:#c2410c}"
      ".tl .tl-label-in{fill:#ffffff;font-weight:700;font-size:10px}"
      ".tl .tl-label-out{fill:#991b1b;font-weight:700;font-size:10px}"
      ".tl .tl-count{fill:#111827;font-weight:700;font-size:10px}"
      ".tl .tl-group-bar{fill:#ddd6fe;stroke:#7c3aed}.tl .tl-wait{fill:#7c3aed}"
      ".tl .tl-unwaited{fill:#f97316;stroke:#9a3412}.tl "
      ".tl-unwaited-label{fill:#c2410c;font-weight:700;font-size:10px}"
      ".tl .tl-spawn line{stroke:#475569}.tl .tl-spawn path{fill:#475569}"
      ".tl .tl-joinline line{stroke:#16a34a}.tl .tl-joinline path{fill:#16a34a}"
      ".tl g.tl-bar{cursor:pointer}.tl g.tl-bar:hover rect{stroke-width:2}"
      ".tl g.tl-sel rect{stroke:#2563eb;stroke-width:3}";

  double X(std::int64_t t) const {
    return kGutter + static_cast<double>(
                         std::clamp<std::int64_t>(trace::SaturatingSub(t, origin_), 0, span_)) *
                         kPlot / static_cast<double>(span_);
  }
  std::int64_t EndOf(Vertex v) const { return g_[v].end_ns.value_or(sg_.time_end_ns); }
  std::optional<std::int64_t> ScopeEnd(const Lane& lane) const {
    return lane.scope ? g_[*lane.scope].end_ns : std::nullopt;
  }

  std::string NodeId(Vertex v) const {
    if (display_) return display_->nodes[display_->node_of_vertex[v]].dom_id;
    std::string id = "n_" + g_[v].key;
    std::replace(id.begin(), id.end(), ':', '_');
    return id;
  }

  void WriteAxis(std::ostream& out, double height) const;
  void WriteLane(std::ostream& out, const Lane& lane, std::size_t index, double top,
                 double width) const;
  void WriteTaskRow(std::ostream& out, const Lane& lane, const Row& row, double y) const;
  void WriteGroupRow(std::ostream& out, const Row& row, double y) const;
  std::string TaskTitle(const Lane& lane, const Row& row) const;

  const ScopeGraph& sg_;
  const Graph& g_;
  const Analyses& analyses_;
  const DisplayGraph* display_;
  bool folded_ = false;
  std::int64_t origin_ = 0;
  std::int64_t span_ = 1;
  std::map<Vertex, std::size_t> path_of_;
  std::map<Vertex, std::int64_t> outlived_;
  std::vector<Lane> lanes_;
};

void Timeline::WriteAxis(std::ostream& out, double height) const {
  std::int64_t step = TickStep(span_, 10);
  out << "<g class=\"tl-axis\" data-step-ns=\"" << step << "\">\n";
  for (std::int64_t t = 0;; t += step) {
    double x = X(trace::SaturatingAdd(origin_, t));
    out << "<line class=\"tl-tick\" x1=\"" << Num(x) << "\" y1=\"" << Num(kAxis - 6) << "\" x2=\""
        << Num(x) << "\" y2=\"" << Num(height) << "\"/><text class=\"tl-ticklabel\" data-t-ns=\""
        << t << "\" x=\"" << Num(x) << "\" y=\"" << Num(kAxis - 10) << "\" text-anchor=\"middle\">"
        << TickLabel(t, step) << "</text>\n";
    if (t > span_ - step) break;  // the next tick is past the end (and t + step could overflow)
  }
  out << "<text class=\"tl-site\" x=\"8\" y=\"" << Num(kAxis - 10)
      << "\">time since the program started</text>\n";
  out << "</g>\n";
}

void Timeline::WriteLane(std::ostream& out, const Lane& lane, std::size_t index, double top,
                         double width) const {
  const double height = static_cast<double>(lane.rows.size()) * kRow;
  std::string lane_id = lane.scope ? g_[*lane.scope].key : "none";
  std::string dom = lane_id;
  std::replace(dom.begin(), dom.end(), ':', '_');
  bool hit = false;
  for (const Row& row : lane.rows) {
    for (Vertex v : row.members) hit = hit || g_[v].status == Status::kZombie;
  }
  out << "<g class=\"tl-lane" << (hit ? " hit" : "") << "\" id=\"lane_" << dom << "\" data-scope=\""
      << lane_id << "\" data-top=\"" << Num(top) << "\" data-height=\"" << Num(height) << "\">\n"
      << "<rect class=\"tl-lane-bg" << (index % 2 ? " odd" : "") << "\" x=\"0\" y=\"" << Num(top)
      << "\" width=\"" << Num(width) << "\" height=\"" << Num(height) << "\"/>\n";
  std::optional<std::int64_t> scope_end = ScopeEnd(lane);
  for (std::size_t r = 0; r < lane.rows.size(); ++r) {
    const Row& row = lane.rows[r];
    double y = top + static_cast<double>(r) * kRow;
    if (row.members.empty()) {
      out << "<text class=\"tl-lane-name\" x=\"6\" y=\"" << Num(y + 13)
          << "\">no scope <tspan class=\"tl-site\">tasks no scope owns</tspan></text>\n";
      continue;
    }
    const Node& first = g_[row.members.front()];
    // The label: the scope's name, or the indented task/group name and site.
    double lx = 6 + 12.0 * row.depth;
    std::string name = row.kind == RowKind::kScope   ? "scope " + first.name
                       : row.kind == RowKind::kGroup ? "TaskGroup"
                                                     : first.name;
    // The name gets the room the site leaves in the gutter (11 px text is
    // about 5.6 px a character, the 10 px site about 5.2).
    std::string site = detail::SiteText(first.site);
    double room = (kGutter - lx - 10 - 5.2 * static_cast<double>(site.size())) / 5.6;
    auto name_room = static_cast<std::size_t>(std::max(10.0, room));
    out << "<text class=\"" << (row.kind == RowKind::kScope ? "tl-lane-name" : "tl-name")
        << "\" x=\"" << Num(lx) << "\" y=\"" << Num(y + 13) << "\">"
        << EscapeHtml(detail::Clip(name, name_room)) << " <tspan class=\"tl-site\">"
        << EscapeHtml(site) << "</tspan></text>\n";
    if (row.kind == RowKind::kScope) {
      const Node& s = first;
      double x0 = X(s.begin_ns.value_or(origin_));
      double x1 = X(s.end_ns.value_or(sg_.time_end_ns));
      out << "<g class=\"tl-bar scope\" data-node=\"" << NodeId(row.members.front()) << "\"><title>"
          << EscapeHtml("scope '" + s.name + "' (" + s.key + ")\nbegan at " +
                        detail::SiteText(s.site, true) + "\n" +
                        (s.end_ns ? "lived " + trace::FormatReportDuration(trace::SaturatingSub(
                                                   *s.end_ns, s.begin_ns.value_or(0)))
                                  : std::string("never ended")))
          << "</title><rect class=\"" << (s.end_ns ? "tl-scope-bar" : "tl-scope-open") << "\" x=\""
          << Num(x0) << "\" y=\"" << Num(y + 3) << "\" width=\"" << Num(std::max(x1 - x0, 1.0))
          << "\" height=\"" << Num(kBar) << "\"/></g>\n";
    } else if (row.kind == RowKind::kGroup) {
      WriteGroupRow(out, row, y);
    } else {
      WriteTaskRow(out, lane, row, y);
    }
  }
  // Spawn and join arrows (unfolded lanes only: a folded bar has no one spawner).
  if (!folded_) {
    for (std::size_t r = 0; r < lane.rows.size(); ++r) {
      const Row& row = lane.rows[r];
      if (row.kind != RowKind::kTask || row.parent < 0) continue;
      Vertex v = row.members.front();
      double x = X(g_[v].begin_ns.value_or(origin_));
      double from = top + row.parent * kRow + 3 + kBar;
      double to = top + static_cast<double>(r) * kRow + 3;
      if (to - from > 2) Arrow(out, "tl-spawn", x, from, x, to);
      // Join: from the task's end to the Wait of the group that joined it.
      if (!g_[v].end_ns) continue;
      for (auto e : boost::make_iterator_range(boost::out_edges(v, g_))) {
        if (g_[e].kind != EdgeKind::kWaitedBy) continue;
        Vertex grp = boost::target(e, g_);
        auto it = std::find_if(lane.rows.begin(), lane.rows.end(), [&](const Row& other) {
          return !other.members.empty() && other.members.front() == grp;
        });
        if (it == lane.rows.end() || !g_[grp].end_ns) continue;
        double gy = top + static_cast<double>(it - lane.rows.begin()) * kRow + 3 + kBar / 2;
        double ty = top + static_cast<double>(r) * kRow + 3 + kBar / 2;
        Arrow(out, "tl-joinline", X(*g_[v].end_ns), ty, X(*g_[grp].end_ns),
              gy + (gy < ty ? kBar / 2 : -kBar / 2));
      }
    }
  }
  if (scope_end) {
    double x = X(*scope_end);
    out << "<line class=\"tl-end" << (hit ? " hit" : "") << "\" x1=\"" << Num(x) << "\" y1=\""
        << Num(top) << "\" x2=\"" << Num(x) << "\" y2=\"" << Num(top + height) << "\"/>\n";
  }
  out << "</g>\n";
}

void Timeline::WriteGroupRow(std::ostream& out, const Row& row, double y) const {
  const Node& first = g_[row.members.front()];
  bool unwaited = first.status == Status::kLeaked;
  std::int64_t b = first.begin_ns.value_or(origin_), e = first.end_ns.value_or(b);
  for (Vertex v : row.members) {
    b = std::min(b, g_[v].begin_ns.value_or(b));
    e = std::max(e, g_[v].end_ns.value_or(e));
  }
  std::string title =
      (row.members.size() > 1 ? std::to_string(row.members.size()) + " TaskGroups" : "TaskGroup") +
      " created at " + detail::SiteText(first.site, true) + "\n" + first.detail;
  out << "<g class=\"tl-bar group" << (unwaited ? " unwaited" : "") << "\" data-node=\""
      << NodeId(row.members.front()) << "\"><title>" << EscapeHtml(title) << "</title>";
  double x0 = X(b);
  if (unwaited) {
    // Destroyed without Wait: there is no join to draw, only the mark.
    out << "<path class=\"tl-unwaited\" d=\"M" << Num(x0) << "," << Num(y + 3)
        << " l6,6 l-6,6 l-6,-6 z\"/>"
        << "<text class=\"tl-unwaited-label\" x=\"" << Num(x0 + 9) << "\" y=\"" << Num(y + 13)
        << "\">"
        << (row.members.size() > 1 ? std::to_string(row.members.size()) + " groups "
                                   : std::string())
        << "destroyed without Wait</text>";
  } else {
    double x1 = std::max(X(e), x0 + 1);
    out << "<rect class=\"tl-group-bar\" x=\"" << Num(x0) << "\" y=\"" << Num(y + 6)
        << "\" width=\"" << Num(x1 - x0) << "\" height=\"" << Num(kBar - 6) << "\"/>";
    if (first.start_ns && row.members.size() == 1) {
      double w0 = X(*first.start_ns);
      out << "<rect class=\"tl-wait\" x=\"" << Num(w0) << "\" y=\"" << Num(y + 6) << "\" width=\""
          << Num(std::max(x1 - w0, 1.0)) << "\" height=\"" << Num(kBar - 6) << "\"/>";
    }
    if (row.members.size() > 1) {
      out << "<text class=\"tl-count\" x=\"" << Num(x1 + 4) << "\" y=\"" << Num(y + 13)
          << "\">\xC3\x97" << row.members.size() << "</text>";
    }
  }
  out << "</g>\n";
}

void Timeline::WriteTaskRow(std::ostream& out, const Lane& lane, const Row& row, double y) const {
  const Node& first = g_[row.members.front()];
  std::int64_t b = first.begin_ns.value_or(origin_), e = EndOf(row.members.front());
  std::int64_t worst = 0;  // the longest overhang of the row's zombies
  bool running = false;
  for (Vertex v : row.members) {
    b = std::min(b, g_[v].begin_ns.value_or(b));
    e = std::max(e, EndOf(v));
    running = running || !g_[v].end_ns;
    if (auto o = outlived_.find(v); o != outlived_.end()) worst = std::max(worst, o->second);
  }
  std::optional<std::int64_t> scope_end = ScopeEnd(lane);
  std::string cls = "tl-bar task " + std::string(StatusName(first.status));
  out << "<g class=\"" << cls << "\" data-node=\"" << NodeId(row.members.front())
      << "\" data-members=\"" << row.members.size() << "\"><title>"
      << EscapeHtml(TaskTitle(lane, row)) << "</title>";
  double x0 = X(b), x1 = std::max(X(e), x0 + 1);
  double label_x = x1 + 4;
  if (first.status == Status::kZombie && scope_end) {
    double xe = std::clamp(X(*scope_end), x0, x1);
    if (xe > x0) {
      out << "<rect class=\"tl-run\" x=\"" << Num(x0) << "\" y=\"" << Num(y + 3) << "\" width=\""
          << Num(xe - x0) << "\" height=\"" << Num(kBar) << "\"/>";
    }
    std::string text = "+" + trace::FormatReportDuration(worst) + (running ? ", never ended" : "");
    if (row.members.size() > 1) text = "up to " + text;
    out << "<rect class=\"tl-overhang\" data-task=\"" << first.key << "\" data-outlived-ns=\""
        << worst << "\" x=\"" << Num(xe) << "\" y=\"" << Num(y + 3) << "\" width=\""
        << Num(std::max(x1 - xe, 1.0)) << "\" height=\"" << Num(kBar) << "\"/>";
    // The length written on the red part when it fits, else right of it.
    double text_w = 5.6 * static_cast<double>(text.size()) + 6;
    if (x1 - xe >= text_w) {
      out << "<text class=\"tl-label-in\" x=\"" << Num(xe + 3) << "\" y=\"" << Num(y + 12.5)
          << "\">" << EscapeHtml(text) << "</text>";
    } else {
      out << "<text class=\"tl-label-out\" x=\"" << Num(x1 + 4) << "\" y=\"" << Num(y + 12.5)
          << "\">" << EscapeHtml(text) << "</text>";
      label_x += text_w;
    }
  } else {
    const char* bar = first.status == Status::kLeaked ? "tl-leak" : "tl-run";
    out << "<rect class=\"" << bar << "\" x=\"" << Num(x0) << "\" y=\"" << Num(y + 3)
        << "\" width=\"" << Num(x1 - x0) << "\" height=\"" << Num(kBar) << "\"/>";
    if (first.status == Status::kLeaked) {
      out << "<text class=\"tl-label-out\" x=\"" << Num(std::max(x0 + 4, x1 - 150)) << "\" y=\""
          << Num(y + 12.5) << "\">still running at exit</text>";
    }
  }
  if (row.members.size() > 1) {
    out << "<text class=\"tl-count\" x=\"" << Num(label_x) << "\" y=\"" << Num(y + 12.5)
        << "\">\xC3\x97" << row.members.size() << "</text>";
  }
  out << "</g>\n";
}

// Hover/click text of a task row: what, where, how long, its context chain
// and where that chain was cut.
std::string Timeline::TaskTitle(const Lane& lane, const Row& row) const {
  Vertex v = row.members.front();
  const Node& n = g_[v];
  std::ostringstream t;
  if (row.members.size() > 1) {
    t << row.members.size() << " tasks like '" << n.name << "' (folded: same site and status)\n";
  } else {
    t << "task '" << n.name << "' (" << n.key << ")\n";
  }
  t << "spawned at " << detail::SiteText(n.site, true) << "\n";
  if (row.members.size() == 1) {
    t << "ran "
      << trace::FormatReportDuration(trace::SaturatingSub(EndOf(v), n.begin_ns.value_or(origin_)))
      << (n.end_ns ? " (" + n.detail + ")" : std::string(", never ended")) << "\n";
  }
  if (auto o = outlived_.find(v); o != outlived_.end() && lane.scope) {
    t << "ZOMBIE: outlived scope '" << g_[*lane.scope].name << "' by "
      << trace::FormatReportDuration(o->second) << "\n";
  }
  t << "context chain: " << detail::ChainText(g_, v) << "\n";
  if (auto p = path_of_.find(v); p != path_of_.end()) {
    t << detail::CutText(g_, analyses_.ownership[p->second]);
  }
  std::string s = t.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace

void WriteTimelineSvg(const ScopeGraph& sg, const Analyses& analyses, std::size_t fold_tasks_above,
                      const DisplayGraph* display, std::ostream& out) {
  Timeline(sg, analyses, fold_tasks_above, display).Write(out);
}

namespace detail {
void WriteTimelineHtml(const ScopeGraph& sg, const Analyses& analyses, std::size_t fold_tasks_above,
                       const DisplayGraph& display, std::ostream& out) {
  Timeline(sg, analyses, fold_tasks_above, &display).WriteVirtual(out);
}
}  // namespace detail

}  // namespace tether::graph
