// REQUIRES: checker
// A marker without a reason justifies nothing: it is reported by
// tether-justification (standing in for the finding it marks) and is not
// counted in "(N justified)". With tether-justification off, the finding it
// marks is reported itself. (The CHECK lines spell the markers with a regex:
// the scanner reads markers in any comment.)
// RUN: %check_tether %s tether-detached-task,tether-justification %t
// RUN: %check_tether %s tether-detached-task %t --check-prefix=OFF
#include <tether/context.hpp>
#include <tether/task.hpp>

void Justified(const tether::Context& ctx) {
  tether::Go(ctx, [] {});  // NOLINT(tether-detached-task): the log pump lives as long as the process
}

void NextLineWithoutReason(const tether::Context& ctx) {
  // NOLINTNEXTLINE(tether-detached-task)
  tether::Go(ctx, [] {});
}
// CHECK: :[[@LINE-3]]:6: warning: '{{NOLINT}}NEXTLINE' without a reason: say why this is allowed after the marker [tether-justification]
// OFF: :[[@LINE-3]]:3: warning: detached task: 'tether::Go' {{.*}} [tether-detached-task]

void DetachedWithoutReason(const tether::Context& ctx) {
  // tether:detached()
  tether::Go(ctx, [] {});
}
// CHECK: :[[@LINE-3]]:6: warning: 'tether:detached' without a reason: say why this is allowed inside the parentheses [tether-justification]
// OFF: :[[@LINE-3]]:3: warning: detached task: 'tether::Go' {{.*}} [tether-detached-task]

// CHECK: tether check: 2 findings in 1 translation unit (1 justified)
// OFF: tether check: 2 findings in 1 translation unit (1 justified)
