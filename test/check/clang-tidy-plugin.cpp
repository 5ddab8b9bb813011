// REQUIRES: checker, clang-tidy16, tether-tidy
// The clang-tidy plugin form: the real clang-tidy-16 loads libTetherTidy.so and
// runs the same check classes as `tether check` (docs/checker.md).
// RUN: clang-tidy-16 --load=%tidyplugin --checks='-*,tether-*' %s -- %libtether_flags 2>&1 \
// RUN:   | FileCheck %s -implicit-check-not="warning:"
// RUN: clang-tidy-16 --load=%tidyplugin --checks='-*,tether-*' --list-checks 2>&1 | FileCheck --check-prefix=LIST %s
// LIST-DAG: tether-detached-context
// LIST-DAG: tether-context-not-forwarded
// LIST-DAG: tether-unwaited-group
// LIST-DAG: tether-lost-cancel
// LIST-DAG: tether-detached-task
// LIST-DAG: tether-justification
// Fix-its go through clang-tidy's own --fix:
// RUN: grep -v CHECK %s > %t.cpp
// RUN: clang-tidy-16 --load=%tidyplugin --checks='-*,tether-detached-context' --fix %t.cpp -- %libtether_flags
// RUN: FileCheck --check-prefix=CHECK-FIXES %s --input-file=%t.cpp
// A bad model is a configuration error, said once however many tether
// checks run (it was said 18 times with all of them):
// RUN: not clang-tidy-16 --load=%tidyplugin --checks='-*,tether-*' --config="{CheckOptions: {TetherModel: %t.no-such-model.json}}" %s -- %libtether_flags > %t.bad 2>&1
// RUN: FileCheck --check-prefix=BAD-MODEL %s --input-file=%t.bad
// RUN: grep -c 'bad model' %t.bad | FileCheck --check-prefix=ONCE %s
// BAD-MODEL: error: TetherModel: bad model (every tether check): {{.*}}no-such-model.json: error: no such file
// ONCE: {{^}}1{{$}}
// Both shipped models by default, as in `tether check`: std-only code is checked.
// RUN: clang-tidy-16 --load=%tidyplugin --checks='-*,tether-*' %S/default-models.cpp -- -std=c++20 2>&1 \
// RUN:   | FileCheck --check-prefix=TIDY %S/default-models.cpp -implicit-check-not="warning:"
// A check's Finish is given the TU's facts: the may-block candidates that they
// decide are reported, once, as `tether check` reports them for that file.
// RUN: clang-tidy-16 --load=%tidyplugin --checks='-*,tether-task-ignores-context,tether-loop-without-context' %S/Inputs/may-block/pipe.cpp -- %libtether_flags 2>&1 \
// RUN:   | FileCheck --check-prefix=ONE-TU %S/may-block-cross-tu.test -implicit-check-not="warning:"
#include <tether/context.hpp>
#include <tether/task.hpp>

void Use(const tether::Context& ctx);

void Parameter(const tether::Context& ctx) {
  Use(tether::Background());
  // CHECK: :[[@LINE-1]]:7: warning: root context 'tether::Background()' created in 'Parameter', which can reach context 'ctx'; {{.*}} [tether-detached-context]
  // CHECK: :[[@LINE-3]]:39: note: context 'ctx' is reachable here (parameter)
  // CHECK-FIXES: {{^}}  Use(ctx);{{$}}
}

void Spawn(const tether::Context& ctx) {
  tether::Go(ctx, [] {});
  // CHECK: :[[@LINE-1]]:3: warning: detached task: 'tether::Go' starts work that nobody waits for{{.*}} [tether-detached-task]
  // NOLINTBEGIN(tether-detached-task): process-lifetime pumps
  tether::Go(ctx, [] {});
  // NOLINTEND(tether-detached-task)
  tether::Go(ctx, [] {});  // tether:detached()
  // CHECK: :[[@LINE-1]]:31: warning: 'tether:detached' without a reason: say why this is allowed inside the parentheses [tether-justification]
}

void Lost(const tether::Context& ctx) {
  auto [child, cancel] = tether::WithCancel(ctx);
  // CHECK: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}}[tether-lost-cancel]
  Use(child);
}

// The transitive form, with the callee in this TU.
void Upload() { Use(tether::Background()); }
void Step(const tether::Context& ctx) {
  Use(ctx);
  Upload();
  // CHECK: :[[@LINE-1]]:3: warning: call to 'Upload' drops the context: 'Upload' takes no context but creates a root context itself; give it a context parameter and pass 'ctx' [tether-context-not-forwarded]
  // CHECK: :[[@LINE-5]]:21: note: root context 'tether::Background()' created here, via Upload
}
