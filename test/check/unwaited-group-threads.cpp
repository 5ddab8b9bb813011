// REQUIRES: checker
// tether-unwaited-group on plain std::thread locals: every way a thread is
// started is tracked (issue 30: `auto t = std::thread(f)`, `T t = T(f)`,
// assignment, braces, unique_ptr), and a call that may throw between the
// start and the join is an exit (the exception destroys a joinable thread).
// RUN: %check_tether %s tether-unwaited-group %t
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

void Work();
int Parse(const std::string& s) {
  if (s.empty()) throw std::invalid_argument("empty");
  return 1;
}
int NoThrow(const std::string& s) noexcept;

void AutoSpelling(bool early) {
  auto t = std::thread(Work);
  // CHECK: :[[@LINE-1]]:8: warning: thread 't' is not joined on every path (a joinable std::thread destroyed at the end of its scope calls std::terminate); call t.join() on every path, or detach it with a tether:detached(<why>) reason [tether-unwaited-group]
  if (early) return;
  // CHECK: :[[@LINE-1]]:14: note: 't' may reach the end of its scope here without join()
  t.join();
}

void TypedSpelling(bool early) {
  std::thread t = std::thread([] { Work(); });
  // CHECK: :[[@LINE-1]]:15: warning: thread 't' is not joined on every path
  if (early) return;
  t.join();
}

void Assigned(bool early) {
  std::thread t;
  t = std::thread(Work);
  // CHECK: :[[@LINE-1]]:3: warning: thread 't' is not joined on every path
  if (early) return;
  t.join();
}

void Braces(bool early) {
  std::thread t{Work};
  // CHECK: :[[@LINE-1]]:15: warning: thread 't' is not joined on every path
  if (early) return;
  t.join();
}

void Pointer(bool early) {
  auto t = std::make_unique<std::thread>(Work);
  // CHECK: :[[@LINE-1]]:8: warning: thread 't' is not joined on every path {{.*}} call t->join() on every path
  if (early) return;
  t->join();
}

void MovedIn(bool early) {
  std::thread a(Work);
  std::thread b = std::move(a);  // b owns the thread now; a is handed on
  // CHECK: :[[@LINE-1]]:15: warning: thread 'b' is not joined on every path
  if (early) return;
  b.join();
}

// A project function that throws, and a known-throwing library call.
void ThrowsBetween(const std::string& s) {
  std::thread t(Work);
  // CHECK: :[[@LINE-1]]:15: warning: thread 't' is not joined on every path
  int n = Parse(s);
  // CHECK: :[[@LINE-1]]:11: note: 'Parse' may throw here: the exception leaves 't' without join() (destroyed joinable: std::terminate)
  (void)n;
  t.join();
}
void StdThrows(const std::string& s) {
  std::thread t(Work);
  // CHECK: :[[@LINE-1]]:15: warning: thread 't' is not joined on every path
  int n = std::stoi(s);
  // CHECK: :[[@LINE-1]]:11: note: 'std::stoi' may throw here
  (void)n;
  t.join();
}

// Not findings: a try around the throwing call, a noexcept callee, a call
// with no visible throw, two threads started in a row (a failed start is
// std::system_error: not counted for locals), joins on every path.
void Fine(const std::string& s) {
  auto t = std::thread(Work);
  try {
    Parse(s);
  } catch (...) {
  }
  NoThrow(s);
  Work();
  t.join();
  std::thread u(Work);
  std::thread v(Work);
  u.join();
  v.join();
  std::thread w;
  if (!s.empty()) w = std::thread(Work);
  if (w.joinable()) w.join();
}
