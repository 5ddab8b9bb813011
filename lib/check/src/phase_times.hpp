// Opt-in timing of `tether check` (TETHER_CHECK_TIME_PHASES=1): one stderr
// line per TU with the wall and this thread's CPU seconds of each phase, and
// one for the run. A phase whose wall time is well above its CPU time waited:
// for a core (a loaded machine) or for a lock; equal figures mean it ran.
#pragma once

#include <string>

namespace tether::check {

struct Stamp {
  double wall = 0, cpu = 0;
  static Stamp Now();
};
struct PhaseTimes {
  // setup: the ClangTool; parse: driver, preprocessing, parsing and Sema up
  // to the AST; match: the checks' matchers (and the CFGs they build);
  // facts: the per-function facts; deps: justifications and the dependency
  // hashes; teardown: from the consumer's end to tool.run's return (freeing
  // the AST).
  Stamp start, tool_ready, ast_ready, matched, facts_done, deps_done, end;
};
bool TimePhasesRequested();
// One line on stderr for the TU `file` analysed by `worker`.
void PrintPhases(unsigned worker, const std::string& file, const PhaseTimes& t, double run_start);

}  // namespace tether::check
