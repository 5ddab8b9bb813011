// Opt-in phase timing of `tether check` (phase_times.hpp).
#include "phase_times.hpp"

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string_view>

namespace tether::check {

Stamp Stamp::Now() {
  timespec w, c;
  clock_gettime(CLOCK_MONOTONIC, &w);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
  return {w.tv_sec + w.tv_nsec * 1e-9, c.tv_sec + c.tv_nsec * 1e-9};
}

bool TimePhasesRequested() {
  const char* v = std::getenv("TETHER_CHECK_TIME_PHASES");
  return v != nullptr && *v != '\0' && std::string_view(v) != "0";
}

void PrintPhases(unsigned worker, const std::string& file, const PhaseTimes& t, double run_start) {
  auto span = [](const Stamp& a, const Stamp& b) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f/%.3f", b.wall - a.wall, b.cpu - a.cpu);
    return std::string(buf);
  };
  const bool parsed = t.ast_ready.wall != 0;
  char head[96];
  std::snprintf(head, sizeof head, "tether check: time: worker %u at %.3f-%.3f s ", worker,
                t.start.wall - run_start, t.end.wall - run_start);
  std::string line = head + file + " (wall/cpu s)";
  line += " setup " + span(t.start, t.tool_ready);
  if (parsed) {
    line += " parse " + span(t.tool_ready, t.ast_ready) + " match " + span(t.ast_ready, t.matched) +
            " facts " + span(t.matched, t.facts_done) + " deps " + span(t.facts_done, t.deps_done) +
            " teardown " + span(t.deps_done, t.end);
  } else {
    line += " run " + span(t.tool_ready, t.end) + " (no AST)";
  }
  line += " total " + span(t.start, t.end) + "\n";
  std::cerr << line;
}

}  // namespace tether::check
