// REQUIRES: checker
// go vet's lostcancel test suite (golang/tools go/analysis/passes/lostcancel/
// testdata/src/a/a.go and typeparams/typeparams.go) rendered in C++ on
// libtether: each case vet flags is expected here at its line (the warning
// where the cancel function is defined, the note where the path leaves), each
// case it keeps silent stays silent. README.md maps the cases.
// RUN: not %tether check --quiet --checks=-*,tether-lost-cancel %s -- %libtether_flags 2>&1 \
// RUN:   | FileCheck %s -implicit-check-not="warning:"
#include <chrono>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <utility>

#include <tether/context.hpp>
#include <tether/task.hpp>

using namespace std::chrono_literals;

const tether::Context bg = tether::Background();
bool condition;
int someInt;
void print(int);
void print(const char*);
void print(const tether::Context&);
[[noreturn]] void FailNow();  // testing.T.FailNow: runtime.Goexit
[[noreturn]] void LogFatal();  // log.Fatal
int Recv(int ch);
int Ready(int ch);  // which case of a select is ready
template <class F>
struct Defer {
  explicit Defer(F fn) : f(fn) {}
  ~Defer() { f(); }
  F f;
};

// The three derivations and the assignment forms (auto [..], declared then assigned).
void A1() {
  auto [_, cancel] = tether::WithCancel(bg);
  // CHECK: :[[@LINE-1]]:12: warning: the cancel function 'cancel' is not called on every path (possible context leak); {{.*}} [tether-lost-cancel]
  if (false) {
    (void)cancel;
  }
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel'

void A2() {
  auto [_, cancel2] = tether::WithDeadline(bg, tether::TimePoint{});
  // CHECK: :[[@LINE-1]]:12: warning: the cancel function 'cancel2' is not called on every path
  if (false) {
    (void)cancel2;
  }
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel2'

void A3() {
  tether::CancelFunc cancel3;
  cancel3 = tether::WithTimeout(bg, 0s).cancel;
  // CHECK: :[[@LINE-1]]:3: warning: the cancel function 'cancel3' is not called on every path
  if (false) {
    (void)cancel3;
  }
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel3'

// The var form: the cancel taken from the derivation's result as it is declared.
void A3v() {
  tether::CancelFunc cancel3v = tether::WithCancel(bg).cancel;
  // CHECK: :[[@LINE-1]]:22: warning: the cancel function 'cancel3v' is not called on every path
  if (false) {
    (void)cancel3v;
  }
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel3v'

void A4() {
  tether::Context ctx = tether::WithCancel(bg).ctx;
  // CHECK: :[[@LINE-1]]:25: warning: the cancel function returned by 'tether::WithCancel' is discarded
  ctx = tether::WithTimeout(bg, 0s).ctx;
  // CHECK: :[[@LINE-1]]:9: warning: the cancel function returned by 'tether::WithTimeout' is discarded
  ctx = tether::WithDeadline(bg, tether::TimePoint{}).ctx;
  // CHECK: :[[@LINE-1]]:9: warning: the cancel function returned by 'tether::WithDeadline' is discarded
  (void)ctx;
}

void A5() {
  auto [_, cancel] = tether::WithCancel(bg);
  Defer deferred{cancel};  // ok
}

void A6() {
  auto [_, cancel] = tether::WithCancel(bg);
  // CHECK: :[[@LINE-1]]:12: warning: the cancel function 'cancel' is not called on every path
  if (condition) {
    cancel();
  }
  return;
  // CHECK: :[[@LINE-1]]:3: note: this path reaches the end of the scope without calling 'cancel'
}

void A7() {
  auto [_, cancel] = tether::WithCancel(bg);
  if (condition) {
    cancel();
  } else {
    // ok: infinite loop
    for (;;) {
      print(0);
    }
  }
}

void A8() {
  auto [_, cancel] = tether::WithCancel(bg);
  // CHECK: :[[@LINE-1]]:12: warning: the cancel function 'cancel' is not called on every path
  if (condition) {
    cancel();
  } else {
    for (int i = 0; i < 10; i++) {
      print(0);
    }
  }
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel'

void A9() {
  auto [_, cancel] = tether::WithCancel(bg);
  // ok: used on all paths
  switch (someInt) {
    case 0:
      FailNow();
    case 1:
      LogFatal();
    case 2:
      cancel();
      break;
    case 3:
      print("hi");
      [[fallthrough]];
    default:
      std::exit(1);
  }
}

void A10() {
  auto [_, cancel] = tether::WithCancel(bg);
  // CHECK: :[[@LINE-1]]:12: warning: the cancel function 'cancel' is not called on every path
  switch (someInt) {
    case 0:
      FailNow();
    case 1:
      LogFatal();
    case 2:
      cancel();
      break;
    case 3:
      print("hi");  // falls through to the implicit return
      break;
    default:
      std::exit(1);
  }
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel'

// A select, rendered as a switch over the ready case.
void A11(int ch) {
  auto [_, cancel] = tether::WithCancel(bg);
  // CHECK: :[[@LINE-1]]:12: warning: the cancel function 'cancel' is not called on every path
  switch (Ready(ch)) {
    case 0:
      FailNow();
    case 1:
      print("hi");  // falls through to the implicit return
      break;
    case 2:
      cancel();
      break;
    default:
      std::exit(1);
  }
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel'

// A blocking select must execute one of its cases; that one panics (throws).
void A12(int ch) {
  auto [_, cancel] = tether::WithCancel(bg);
  Recv(ch);
  throw std::runtime_error("0");
  if (false) {
    (void)cancel;
  }
}

// go func() { ... }()
void A13() {
  tether::Go(bg, [] {
    auto [ctx, cancel] = tether::WithCancel(bg);
    // CHECK: :[[@LINE-1]]:16: warning: the cancel function 'cancel' is not called on every path
    if (false) {
      (void)cancel;
    }
    print(ctx);
  });
  // CHECK: :[[@LINE-1]]:3: note: this path reaches the end of the scope without calling 'cancel'
}

// Go issue 16143: a call through a function-valued field.
void A14() {
  struct {
    std::function<void()> f;
  } x;
  x.f();
}

// Go issue 16230: named results (here: the result is assigned, then returned).
tether::ContextAndCancel A15() {
  tether::ContextAndCancel result;
  result = tether::WithCancel(bg);
  return result;
}
// Same as above, but for a lambda.
auto a16 = []() -> tether::ContextAndCancel {
  tether::ContextAndCancel result;
  result = tether::WithCancel(bg);
  return result;
};

// Go issue 31856: assigned inside a lambda that runs at once, called after.
void A17() {
  tether::CancelFunc cancel;
  [&] { cancel = tether::WithCancel(bg).cancel; }();
  cancel();
}

// ---- typeparams/typeparams.go: templates, analysed as written ----

template <class T>
void T1() {
  auto [_, cancel] = tether::WithCancel(bg);
  // CHECK: :[[@LINE-1]]:12: warning: the cancel function 'cancel' is not called on every path
  if (false) {
    (void)cancel;
  }
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel'

template <class T>
void T2() {
  auto [_, cancel] = tether::WithCancel(bg);
  Defer deferred{cancel};  // ok
}

// The var and assignment forms in templates.
template <class T>
void T1v() {
  tether::CancelFunc cancel = tether::WithTimeout(bg, 0s).cancel;
  // CHECK: :[[@LINE-1]]:22: warning: the cancel function 'cancel' is not called on every path
  if (false) {
    (void)cancel;
  }
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel'

template <class T>
void T1a() {
  tether::CancelFunc cancel;
  cancel = tether::WithDeadline(bg, tether::TimePoint{}).cancel;
  // CHECK: :[[@LINE-1]]:3: warning: the cancel function 'cancel' is not called on every path
  if (false) {
    (void)cancel;
  }
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel'

// A context of a user-defined (template) type that is still a context.
template <class P1, class P2>
struct C1 {
  tether::Context ctx;
};
void T3(const C1<bool, int>& c) {
  tether::Context ctx = tether::WithCancel(c.ctx).ctx;
  // CHECK: :[[@LINE-1]]:25: warning: the cancel function returned by 'tether::WithCancel' is discarded
  ctx = tether::WithTimeout(c.ctx, 0s).ctx;
  // CHECK: :[[@LINE-1]]:9: warning: the cancel function returned by 'tether::WithTimeout' is discarded
  (void)ctx;
}

// A WithCancel that is not the model's.
template <class P>
struct C2 {
  std::pair<tether::Context, std::function<void()>> WithCancel(const tether::Context& parent);
};
void T4(C2<int>& c) {
  tether::Context ctx = c.WithCancel(bg).first;  // not tether::WithCancel
  (void)ctx;
}

// Further regression test for Go issue 16143.
void T5() {
  struct C {
    std::function<int()> f;
  };
  C x;
  x.f();
}
