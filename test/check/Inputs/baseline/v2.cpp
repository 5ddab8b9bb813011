// The same code a year later: lines moved, re-indented, a function moved
// above another, and one new finding (baseline.test).
#include <tether/context.hpp>
#include <tether/task.hpp>

void Flush();
void Metrics();

void Watchdog(const tether::Context& ctx) {
  tether::Go(ctx, [] {});
}

// A helper that was added later.
int Twice(int x) { return 2 * x; }

void StartPumps(const tether::Context& ctx) {
  // the pumps
      tether::Go(ctx, [] { Flush(); });
  tether::Go(ctx, []  {  Flush();  });
  tether::Go(ctx, [] { Metrics(); });
}
