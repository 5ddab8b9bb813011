// REQUIRES: checker
// The second shipped model: std::stop_token is the context, a default-
// constructed token is a root, std::thread must be joined on every path.
// RUN: not %tether check --quiet --model=builtin:std-stop-token %s -- -std=c++20 2>&1 \
// RUN:   | FileCheck %s -implicit-check-not="warning:"
#include <stop_token>
#include <thread>

void Poll(std::stop_token st);

void Worker(std::stop_token st) {
  Poll(std::stop_token{});
  // CHECK: :[[@LINE-1]]:8: warning: root context 'std::stop_token{}' created in 'Worker', which can reach context 'st'; pass it on, or say why it must not stop with a tether:detached(<why>) comment [tether-detached-context]
}

void Unjoined(std::stop_token st, bool early) {
  std::thread t([st] { Poll(st); });
  // CHECK: :[[@LINE-1]]:15: warning: task group 't' starts a task here but is not waited for on every path; call t.join() before it goes out of scope [tether-unwaited-group]
  if (early) return;
  t.join();
}

void Joined(std::stop_token st) {
  std::thread t([st] { Poll(st); });
  t.join();
  std::jthread j([](std::stop_token s) { Poll(s); });  // its destructor requests stop and joins
  Poll(st);
}
