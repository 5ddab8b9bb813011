// The checker's findings joined to a trace's runtime findings by source
// location (static_join.hpp), and the join written as text, JSON and HTML.
#include "tether/graph/static_join.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "describe.hpp"
#include "statement_span.hpp"
#include "tether/graph/input.hpp"
#include "tether/graph/writers.hpp"

namespace tether::graph {
namespace {

// A path without leading "./" and "../" steps: what is left is what two
// spellings of the same file can share.
std::string Tail(std::string_view path) {
  while (true) {
    if (path.starts_with("./")) {
      path.remove_prefix(2);
    } else if (path.starts_with("../")) {
      path.remove_prefix(3);
    } else {
      return std::string(path);
    }
  }
}

// The last n components of an absolute or relative path ("" when it has
// fewer).
std::string_view LastComponents(std::string_view path, int n) {
  std::size_t at = path.size();
  for (int i = 0; i < n; ++i) {
    if (at == 0 || at == std::string_view::npos) return {};
    at = path.rfind('/', at - 1);
    if (at == std::string_view::npos) return i + 1 == n ? path : std::string_view{};
  }
  return path.substr(at + 1);
}

// Equal, or one ends with the other at a '/', or both end with the same
// three components (dir/dir/file): the same tree checked out or built in two
// places (the checker in a developer's checkout, the program built in CI's,
// or a compiler cache's object made in another checkout).
bool SameFile(const std::string& a, const std::string& b) {
  std::string x = Tail(a), y = Tail(b);
  if (x.empty() || y.empty()) return false;
  if (x.size() < y.size()) std::swap(x, y);
  if (x == y || (x.ends_with(y) && (y.front() == '/' || x[x.size() - y.size() - 1] == '/'))) {
    return true;
  }
  constexpr int kSharedComponents = 3;
  const std::string_view tail = LastComponents(x, kSharedComponents);
  return !tail.empty() && tail == LastComponents(y, kSharedComponents);
}

// The last line of the statement that begins at file:line, from the source
// when it can be read (sources caches each file), else line.
int StatementLastLine(const std::string& file, int line,
                      std::map<std::string, std::optional<std::string>>* sources) {
  auto [it, fresh] = sources->try_emplace(file);
  if (fresh) {
    std::string text;
    if (ReadInput(file, &text).ok()) it->second = std::move(text);
  }
  return it->second ? detail::StatementLastLine(*it->second, line) : line;
}

// The places a runtime finding comes from, most telling first.
struct Place {
  SourceSite site;
  const char* how;
};

std::optional<Vertex> Out(const Graph& g, Vertex v, EdgeKind kind, NodeKind target) {
  for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
    if (g[e].kind == kind && g[boost::target(e, g)].kind == target) return boost::target(e, g);
  }
  return std::nullopt;
}

std::vector<Place> PlacesOf(const ScopeGraph& sg, const ReportFinding& f,
                            const OwnershipPath* path) {
  const Graph& g = sg.graph;
  std::vector<Place> places;
  if (!f.node) return places;
  Vertex v = *f.node;
  const bool task = g[v].kind == NodeKind::kTask;
  places.push_back({g[v].site, task ? "spawned here" : "the group was created here"});
  // A thread's detach: where `tether check` reports a detached thread.
  if (task && !g[v].detach_site.file.empty()) places.push_back({g[v].detach_site, "detached here"});
  if (path && path->first_root && !path->reaches_scope) {
    places.push_back({g[*path->first_root].site, "their chains were cut at a root created here"});
  }
  std::optional<Vertex> ctx =
      task ? Out(g, v, EdgeKind::kSpawnedBy, NodeKind::kContext) : std::nullopt;
  if (!task) {
    for (auto e : boost::make_iterator_range(boost::in_edges(v, g))) {
      if (g[e].kind == EdgeKind::kBelongsTo && g[boost::source(e, g)].kind == NodeKind::kContext) {
        ctx = boost::source(e, g);
      }
    }
  }
  std::set<Vertex> seen;
  while (ctx && seen.insert(*ctx).second) {
    places.push_back({g[*ctx].site, "a context on their chain was created here"});
    ctx = Out(g, *ctx, EdgeKind::kDerivedFrom, NodeKind::kContext);
  }
  if (task) {
    if (auto group = Out(g, v, EdgeKind::kBelongsTo, NodeKind::kGroup)) {
      places.push_back({g[*group].site, "their group was created here"});
    }
  }
  return places;
}

std::string Count(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string What(const JoinedFinding& j) {
  std::vector<std::string> parts;
  if (j.zombies) parts.push_back(Count(j.zombies, "zombie", "zombies"));
  if (j.leaked_threads) parts.push_back(Count(j.leaked_threads, "leaked thread", "leaked threads"));
  if (j.leaks > j.leaked_threads) {
    parts.push_back(Count(j.leaks - j.leaked_threads, "leaked task", "leaked tasks"));
  }
  if (j.unwaited_groups)
    parts.push_back(Count(j.unwaited_groups, "unwaited group", "unwaited groups"));
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  return out;
}

std::string Dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

Error LoadStaticGraphFile(const std::string& path, StaticGraph* out) {
  std::string text;
  if (Error err = ReadInput(path, &text); !err.ok()) return err;
  InputKind kind = InputKind::kTrace;
  if (Error err = DetectInput(path, text, &kind); !err.ok()) return err;
  if (kind != InputKind::kStaticGraph) {
    return Error(ErrorCode::kInvalidArgument, path +
                                                  ":1:1: error: --static needs a static graph "
                                                  "(tether check --graph F.json), not a trace");
  }
  return LoadStaticGraph(path, text, out);
}

StaticJoin JoinStatic(const ScopeGraph& sg, const Analyses& analyses, const StaticGraph& checker,
                      const std::string& static_path) {
  const Graph& g = sg.graph;
  StaticJoin join;
  join.static_path = static_path;
  std::map<Vertex, const OwnershipPath*> path_of;
  for (const OwnershipPath& p : analyses.ownership) path_of[p.task] = &p;
  // (basename, line) -> (runtime finding, place), so each checker finding
  // looks at the few runtime findings on its line.
  std::multimap<std::pair<std::string, int>, std::pair<std::size_t, Place>> by_line;
  for (std::size_t i = 0; i < sg.findings.size(); ++i) {
    const ReportFinding& f = sg.findings[i];
    auto p = f.node ? path_of.find(*f.node) : path_of.end();
    for (const Place& place : PlacesOf(sg, f, p == path_of.end() ? nullptr : p->second)) {
      if (place.site.file.empty()) continue;
      by_line.emplace(std::make_pair(detail::Basename(place.site.file), place.site.line),
                      std::make_pair(i, place));
    }
  }
  std::vector<bool> explained(sg.findings.size(), false);
  std::map<std::string, std::optional<std::string>> sources;  // by path; nullopt: unreadable
  for (const StaticFinding& check : checker.findings) {
    JoinedFinding j;
    j.check = check;
    std::set<std::size_t> matched;  // runtime findings (their first, most telling place sets `how`)
    std::vector<std::string> how_order;
    // The runtime site of a call written over several lines is a later line
    // of the statement the checker's line begins (the call's, often its last).
    const int last = StatementLastLine(check.file, check.line, &sources);
    for (int line = check.line; line <= last; ++line) {
      auto range = by_line.equal_range({detail::Basename(check.file), line});
      for (auto it = range.first; it != range.second; ++it) {
        const auto& [index, place] = it->second;
        if (!SameFile(place.site.file, check.file)) continue;
        if (matched.insert(index).second) {
          if (std::find(how_order.begin(), how_order.end(), place.how) == how_order.end()) {
            how_order.push_back(place.how);
          }
        }
      }
    }
    std::set<std::string> scopes;
    for (std::size_t index : matched) {
      const ReportFinding& f = sg.findings[index];
      j.runtime.push_back(index);
      explained[index] = true;
      if (f.kind == "zombie") ++j.zombies;
      if (f.kind == "leak") ++j.leaks;
      if (f.kind == "leak" && f.node && g[*f.node].pthread) ++j.leaked_threads;
      if (f.kind == "unwaited-group") ++j.unwaited_groups;
      if (f.scope) {
        scopes.insert(g[*f.scope].name);
      } else if (f.node && !g[*f.node].scope_key.empty()) {
        if (auto s = sg.Find(g[*f.node].scope_key)) scopes.insert(g[*s].name);
      }
    }
    j.scopes.assign(scopes.begin(), scopes.end());
    j.how = how_order;
    join.joined.push_back(std::move(j));
  }
  for (std::size_t i = 0; i < sg.findings.size(); ++i) {
    if (!explained[i]) join.runtime_unexplained.push_back(i);
  }
  return join;
}

std::string JoinSentence(const JoinedFinding& j) {
  std::string out = "the checker warned here (" + j.check.check + " at " +
                    detail::Basename(j.check.file) + ":" + std::to_string(j.check.line) +
                    "), and at run time ";
  if (j.runtime.empty()) return out + "nothing went wrong here in this trace";
  out += "this site left " + What(j);
  if (!j.scopes.empty()) {
    out += " in " + Count(j.scopes.size(), "scope", "scopes") + " (";
    for (std::size_t i = 0; i < j.scopes.size() && i < 6; ++i) out += (i ? ", " : "") + j.scopes[i];
    if (j.scopes.size() > 6) out += ", +" + std::to_string(j.scopes.size() - 6) + " more";
    out += ")";
  }
  if (!j.how.empty()) out += ": " + j.how.front();
  return out;
}

void WriteJoinText(const ScopeGraph& sg, const StaticJoin& join, std::ostream& out) {
  std::size_t hit = 0;
  for (const JoinedFinding& j : join.joined) hit += j.runtime.empty() ? 0 : 1;
  out << "static and runtime: " << join.joined.size() << " checker findings (" << join.static_path
      << "), " << hit << " of them left runtime findings in " << sg.input_path << "\n";
  for (const JoinedFinding& j : join.joined) {
    out << "\n"
        << j.check.file << ":" << j.check.line << ":" << j.check.col << ": " << JoinSentence(j)
        << "\n"
        << "  checker: " << j.check.message << " [" << j.check.check << "]\n";
    if (j.how.size() > 1) {
      out << "  matched where:";
      for (const std::string& h : j.how) out << " " << h << ";";
      out << "\n";
    }
  }
  // Runtime findings the checker named nowhere: one line per (kind, site).
  std::map<std::tuple<std::string, std::string, int>, std::size_t> sites;
  for (std::size_t i : join.runtime_unexplained) {
    const ReportFinding& f = sg.findings[i];
    sites[{f.kind, f.site.file, f.site.line}]++;
  }
  out << "\nruntime findings no checker finding names: " << join.runtime_unexplained.size() << "\n";
  for (const auto& [key, n] : sites) {
    out << "  " << std::get<1>(key) << ":" << std::get<2>(key) << ": " << n << " "
        << std::get<0>(key) << "\n";
  }
}

void WriteJoinJson(const ScopeGraph& sg, const StaticJoin& join, std::ostream& out) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["path"] = join.static_path;
  ordered_json joined = ordered_json::array();
  for (const JoinedFinding& f : join.joined) {
    ordered_json r;
    r["check"] = f.check.check;
    r["file"] = f.check.file;
    r["line"] = f.check.line;
    r["col"] = f.check.col;
    r["message"] = f.check.message;
    r["function"] = f.check.function;
    ordered_json rt;
    rt["zombies"] = f.zombies;
    rt["leaks"] = f.leaks;
    rt["unwaited_groups"] = f.unwaited_groups;
    rt["scopes"] = f.scopes;
    rt["how"] = f.how;
    ordered_json nodes = ordered_json::array();
    for (std::size_t i : f.runtime) {
      if (sg.findings[i].node) nodes.push_back(sg.graph[*sg.findings[i].node].key);
    }
    rt["nodes"] = nodes;
    r["runtime"] = rt;
    r["sentence"] = JoinSentence(f);
    joined.push_back(r);
  }
  j["joined"] = joined;
  ordered_json rest = ordered_json::array();
  for (std::size_t i : join.runtime_unexplained) {
    if (sg.findings[i].node) rest.push_back(sg.graph[*sg.findings[i].node].key);
  }
  j["runtime_unexplained"] = rest;
  out << Dump(j);
}

void WriteJoinHtml(const ScopeGraph& sg, const StaticJoin& join, std::ostream& out) {
  out << "<h2 id=\"static-title\">Static and runtime</h2>\n<p class=\"meta\">The checker's "
         "findings from <code>"
      << EscapeHtml(join.static_path)
      << "</code>, each joined to what this trace shows at its source line.</p>\n"
      << "<table class=\"static\" id=\"static\">\n<thead><tr><th>Check</th><th>Where</th><th>What "
         "happened there"
      << "</th></tr></thead>\n<tbody>\n";
  for (const JoinedFinding& j : join.joined) {
    SourceSite site{j.check.file, j.check.line, j.check.function};
    out << "<tr class=\"" << (j.runtime.empty() ? "quiet" : "hit") << "\"><td class=\"badge\">"
        << EscapeHtml(j.check.check) << "</td><td class=\"where\"><a class=\"src\" href=\""
        << EscapeHtml(SourceHref(j.check.file, j.check.line)) << "\" title=\""
        << EscapeHtml(j.check.file) << "\">" << EscapeHtml(detail::SiteText(site))
        << "</a></td><td><strong>" << EscapeHtml(JoinSentence(j))
        << "</strong><br><span class=\"meta\">" << EscapeHtml(j.check.message)
        << "</span></td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  if (!join.runtime_unexplained.empty()) {
    std::map<std::tuple<std::string, std::string, int>, std::size_t> sites;
    for (std::size_t i : join.runtime_unexplained) {
      const ReportFinding& f = sg.findings[i];
      sites[{f.kind, f.site.file, f.site.line}]++;
    }
    out << "<p class=\"meta\">Runtime findings no checker finding names ("
        << join.runtime_unexplained.size() << "): ";
    bool first = true;
    for (const auto& [key, n] : sites) {
      out << (first ? "" : ", ") << n << " " << EscapeHtml(std::get<0>(key)) << " at "
          << EscapeHtml(detail::SiteText({std::get<1>(key), std::get<2>(key), ""}));
      first = false;
    }
    out << "</p>\n";
  }
}

}  // namespace tether::graph
