// The old code: two known findings (baseline.test).
#include <tether/context.hpp>
#include <tether/task.hpp>

void Flush();

void StartPumps(const tether::Context& ctx) {
  tether::Go(ctx, [] { Flush(); });
  tether::Go(ctx, [] { Flush(); });
}

void Watchdog(const tether::Context& ctx) {
  tether::Go(ctx, [] {});
}
