// REQUIRES: checker
// Both shipped models are on by default (docs/checker.md, "The API model"):
// code that uses only std::thread / std::jthread / std::stop_token is checked
// without any --model flag.
// RUN: not %tether check --quiet %s -- -std=c++20 2>&1 | FileCheck %s -implicit-check-not="warning:"
// Giving a model replaces the set: with libtether's alone nothing here is modelled.
// RUN: %tether check --quiet --model=builtin:libtether %s -- -std=c++20 2>&1 | FileCheck --check-prefix=LIBTETHER %s
// LIBTETHER: tether check: note: none of the model's types appear in 1 TU: nothing to check; see --model
// LIBTETHER: tether check: 0 findings in 1 translation unit
// The clang-tidy plugin has the same default (its RUN line is in
// clang-tidy-plugin.cpp, which needs clang-tidy-16): TIDY lines below.
#include <stop_token>
#include <thread>

void Drain(std::stop_token st);

void FireAndForget(std::stop_token st) {
  std::thread logger([st] { Drain(st); });
  logger.detach();
  // CHECK: :[[@LINE-1]]:10: warning: detached task: 'std::thread::detach' {{.*}} [tether-detached-task]
  // TIDY: :[[@LINE-2]]:10: warning: detached task: 'std::thread::detach' {{.*}} [tether-detached-task]
}

void Restart(std::stop_token st) {
  Drain(std::stop_token());
  // CHECK: :[[@LINE-1]]:9: warning: root context 'std::stop_token{{.*}}' {{.*}} [tether-detached-context]
  // TIDY: :[[@LINE-2]]:9: warning: root context 'std::stop_token{{.*}}' {{.*}} [tether-detached-context]
  Drain(st);
}

void Owned(std::stop_token st) {
  std::jthread worker([st] { Drain(st); });  // joined by its destructor
}
