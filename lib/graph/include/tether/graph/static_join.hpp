// Static and runtime in one view: the checker's findings (`tether check
// --graph`) joined to a trace's runtime findings by source location, so a
// report can say "the checker warned here (tether-detached-context at
// exec.cpp:16), and at run time this site left 6 zombies in 3 builds".
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "tether/error.hpp"
#include "tether/graph/scope_graph.hpp"

namespace tether::graph {

// One checker finding and the runtime findings whose source locations it
// names. A runtime finding matches a checker finding at file:line when that
// line is where its task was spawned (or, a thread, where it was detached),
// where the root context that cut its chain was created, where another
// context on its chain was created, or where its group was created. Files
// match when equal, when one path ends with the other at a '/' (traces may
// hold paths relative to the build directory, the checker writes absolute
// ones), or when both end with the same three components (one tree checked
// out in two places: the checker's and the build's).
struct JoinedFinding {
  StaticFinding check;
  std::vector<std::size_t> runtime;  // indices into ScopeGraph::findings
  std::size_t zombies = 0;
  std::size_t leaks = 0;
  std::size_t leaked_threads = 0;  // of the leaks, plain threads
  std::size_t unwaited_groups = 0;
  std::vector<std::string> scopes;  // names of the scopes hit, sorted, unique
  std::vector<std::string> how;     // "spawned here", "chain cut at a root created here", ...
};

struct StaticJoin {
  std::string static_path;
  std::vector<JoinedFinding> joined;             // one per checker finding, in the graph's order
  std::vector<std::size_t> runtime_unexplained;  // runtime findings no checker finding names
};

// Reads the static graph at `path` (as `tether report` reads any static
// graph: errors name path:line:col).
Error LoadStaticGraphFile(const std::string& path, StaticGraph* out);

// Joins a trace's graph (with its analyses) to the checker's findings.
StaticJoin JoinStatic(const ScopeGraph& sg, const Analyses& analyses, const StaticGraph& checker,
                      const std::string& static_path);

// "the checker warned here (tether-detached-context at exec.cpp:16), and at
// run time this site left 6 zombies in 3 scopes (build 1, build 2, build 3):
// their chains were cut at a root created here"; or "... and at run time
// nothing went wrong here in this trace".
std::string JoinSentence(const JoinedFinding& j);

// The join as text (the `--format text` report with --static) and as one
// JSON value (the "static" record of the JSON report).
void WriteJoinText(const ScopeGraph& sg, const StaticJoin& join, std::ostream& out);
void WriteJoinJson(const ScopeGraph& sg, const StaticJoin& join, std::ostream& out);
// The HTML section (strings escaped).
void WriteJoinHtml(const ScopeGraph& sg, const StaticJoin& join, std::ostream& out);

}  // namespace tether::graph
