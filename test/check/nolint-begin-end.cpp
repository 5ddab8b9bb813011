// REQUIRES: checker
// RUN: %check_tether %s tether-detached-task,tether-justification %t
// A NOLINT-BEGIN(tether-<check>): <reason> ... NOLINT-END(tether-<check>) region
// suppresses the named checks on every line between the two markers
// (inclusive), as clang-tidy does. The BEGIN must give a reason; an END closes
// the latest open BEGIN with the same check list; unmatched ones are reported
// with clang-tidy's wording.
#include <tether/context.hpp>
#include <tether/task.hpp>

void Flush();

void Region(const tether::Context& ctx) {
  // NOLINTBEGIN(tether-detached-task): the process-lifetime pumps, joined by exit()
  tether::Go(ctx, [] { Flush(); });
  tether::Go(ctx, [] { Flush(); });
  // NOLINTEND(tether-detached-task)
  tether::Go(ctx, [] {});
  // CHECK: :[[@LINE-1]]:3: warning: detached task: 'tether::Go' starts work that nobody waits for{{.*}} [tether-detached-task]
}

// A region for another check does not cover this one; nested regions pair
// by their check lists.
void Nested(const tether::Context& ctx) {
  /* NOLINTBEGIN(tether-lost-cancel): cancel is handed to the caller */
  // NOLINTBEGIN(tether-detached-task): the watchdog outlives every build
  tether::Go(ctx, [] {});
  // NOLINTEND(tether-detached-task)
  tether::Go(ctx, [] {});
  // CHECK: :[[@LINE-1]]:3: warning: detached task: 'tether::Go'{{.*}} [tether-detached-task]
  /* NOLINTEND(tether-lost-cancel) */
}

// Without a reason the region still suppresses (like NOLINT(check)), but the
// missing reason is a finding.
void NoReason(const tether::Context& ctx) {
  // NOLINTBEGIN(tether-detached-task)
  // CHECK: :[[@LINE-1]]:6: warning: 'NOLINT{{(BEGIN)}}' without a reason: say why this is allowed after the marker [tether-justification]
  tether::Go(ctx, [] {});
  // NOLINTEND(tether-detached-task)
}

// An END whose check list matches no open BEGIN closes nothing.
void Mismatched(const tether::Context& ctx) {
  // NOLINTBEGIN(tether-detached-task): flusher
  // CHECK: :[[@LINE-1]]:6: warning: unmatched 'NOLINT{{(BEGIN)}}' comment without a subsequent 'NOLINT{{(END)}}' comment [tether-justification]
  tether::Go(ctx, [] {});
  // CHECK: :[[@LINE-1]]:3: warning: detached task: 'tether::Go'{{.*}} [tether-detached-task]
  // NOLINTEND(tether-*)
  // CHECK: :[[@LINE-1]]:6: warning: unmatched 'NOLINT{{(END)}}' comment without a previous 'NOLINT{{(BEGIN)}}' comment [tether-justification]
}
