// REQUIRES: checker
// RUN: not %tether check --quiet --checks=-*,tether-lost-cancel %s -- -std=c++20 -I%srcroot/lib/context/include 2>&1 \
// RUN:   | FileCheck %s -implicit-check-not="warning:"
#include <chrono>
#include <stdexcept>
#include <utility>

#include <tether/context.hpp>

using namespace std::chrono_literals;
tether::Error Work(const tether::Context& ctx);
void Keep(tether::CancelFunc cancel);

// Called on one branch only (Vela's Worker.Start, site 1).
tether::Error OneBranch(const tether::Context& ctx, bool signal) {
  auto [wctx, done] = tether::WithCancel(ctx);
  // CHECK: :[[@LINE-1]]:15: warning: the cancel function 'done' is not called on every path (possible context leak); call it when the work under its context is done [tether-lost-cancel]
  if (signal) {
    done();
    return tether::Error();
  }
  return Work(wctx);
  // CHECK: :[[@LINE-1]]:3: note: this path reaches the end of the scope without calling 'done'
}

// Never called at all.
void Never(const tether::Context& ctx) {
  auto [tctx, cancel] = tether::WithTimeout(ctx, 5s);
  // CHECK: :[[@LINE-1]]:15: warning: the cancel function 'cancel' is not called on every path
  Work(tctx);
}

// A plain variable, not a structured binding, and a throw.
void Throwing(const tether::Context& ctx, bool bad) {
  tether::ContextAndCancel child = tether::WithCancel(ctx);
  tether::CancelFunc stop = std::move(child.cancel);
  auto [dctx, cancel] = tether::WithDeadline(ctx, tether::Clock::now() + 1s);
  // CHECK: :[[@LINE-1]]:15: warning: the cancel function 'cancel' is not called on every path
  if (bad) throw std::runtime_error("bad");
  // CHECK: :[[@LINE-1]]:12: note: a throw here leaves without calling 'cancel'
  cancel();
  stop();
}

// Discarded outright.
void Discarded(const tether::Context& ctx) {
  tether::Context c = tether::WithCancel(ctx).ctx;
  // CHECK: :[[@LINE-1]]:23: warning: the cancel function returned by 'tether::WithCancel' is discarded
  tether::WithTimeout(ctx, 1s);
  // CHECK: :[[@LINE-1]]:3: warning: the cancel function returned by 'tether::WithTimeout' is discarded
  Work(c);
}

// ---- Not findings -------------------------------------------------------

template <class F>
struct Defer {
  explicit Defer(F fn) : f(fn) {}
  ~Defer() { f(); }
  F f;
};
void Deferred(const tether::Context& ctx, bool early) {
  auto [tctx, cancel] = tether::WithTimeout(ctx, 5s);
  Defer guard{[&] { cancel(); }};  // any use counts, as in go vet
  if (early) return;
  Work(tctx);
}
void EveryPath(const tether::Context& ctx, bool a) {
  auto [c, cancel] = tether::WithCancelCause(ctx);
  if (a) {
    cancel(tether::Error::Canceled());
    return;
  }
  cancel();
}
// Escapes: handed on, returned.
void HandedOn(const tether::Context& ctx) {
  auto [c, cancel] = tether::WithCancel(ctx);
  Keep(cancel);
}
tether::ContextAndCancel Factory(const tether::Context& ctx) { return tether::WithCancel(ctx); }
tether::CancelFunc ReturnsIt(const tether::Context& ctx) {
  auto [c, cancel] = tether::WithCancel(ctx);
  return cancel;
}
// An infinite loop never reaches the end of the scope.
void Forever(const tether::Context& ctx) {
  auto [c, cancel] = tether::WithCancel(ctx);
  for (;;) Work(c);
}
// main: the process exit releases everything.
int main() {
  auto [c, cancel] = tether::WithCancel(tether::Background());
  return Work(c).ok() ? 0 : 1;
}
