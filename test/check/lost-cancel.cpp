// REQUIRES: checker
// RUN: %check_tether %s tether-lost-cancel %t -- --model builtin:libtether --model %S/Inputs/pair-model.json
#include <chrono>
#include <stdexcept>
#include <tuple>
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

// A plain variable, not a structured binding.
void Plain(const tether::Context& ctx, bool early) {
  tether::ContextAndCancel child = tether::WithCancel(ctx);
  tether::CancelFunc stop = std::move(child.cancel);
  // CHECK: :[[@LINE-1]]:22: warning: the cancel function 'stop' is not called on every path
  if (early) return;
  // CHECK: :[[@LINE-1]]:14: note: this path reaches the end of the scope without calling 'stop'
  stop();
}

// The whole result kept: r.cancel is the obligation.
void Whole(const tether::Context& ctx, bool early) {
  auto r = tether::WithTimeout(ctx, 1s);
  // CHECK: :[[@LINE-1]]:8: warning: the cancel function 'r.cancel' is not called on every path
  Work(r.ctx);
  if (early) return;
  // CHECK: :[[@LINE-1]]:14: note: this path reaches the end of the scope without calling 'r.cancel'
  r.cancel();
}

// Declared first, assigned later (Go's `var cancel func(); _, cancel = ...`):
// reported where it is assigned.
void AssignedLater(const tether::Context& ctx, bool a) {
  tether::CancelFunc cancel;
  tether::Context child;
  auto r = tether::WithCancel(ctx);
  child = r.ctx;
  cancel = r.cancel;
  // CHECK: :[[@LINE-1]]:3: warning: the cancel function 'cancel' is not called on every path
  if (a) cancel();
}
// CHECK: :[[@LINE-1]]:1: note: this path reaches the end of the scope without calling 'cancel'
void AssignedMember(const tether::Context& ctx) {
  tether::CancelFunc cancel;
  cancel = tether::WithDeadline(ctx, tether::Clock::now() + 1s).cancel;
  // CHECK: :[[@LINE-1]]:3: warning: the cancel function 'cancel' is not called on every path
}
namespace gocontext {
std::pair<tether::Context, tether::CancelFunc> WithCancel(const tether::Context& parent);
std::tuple<tether::Context, tether::CancelFunc> WithTimeout(const tether::Context& parent, tether::Duration d);
}  // namespace gocontext
void Tied(tether::Context ctx, bool a) {
  tether::CancelFunc cancel;
  std::tie(ctx, cancel) = gocontext::WithCancel(ctx);
  // CHECK: :[[@LINE-1]]:17: warning: the cancel function 'cancel' is not called on every path
  if (a) cancel();
}
void TiedTwice(tether::Context ctx) {
  tether::CancelFunc cancel;
  std::tie(ctx, cancel) = gocontext::WithTimeout(ctx, 1s);
  cancel();
  std::tie(ctx, cancel) = gocontext::WithTimeout(ctx, 2s);
  // CHECK: :[[@LINE-1]]:17: warning: the cancel function 'cancel' is not called on every path
  Work(ctx);
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
// A throw in a function that also returns normally is an exit like a return:
// the exception is caught somewhere and the context is never cancelled. A
// [[noreturn]] call needs no cancel (log.Fatal), nor does a function that can
// only throw (go vet's panic).
[[noreturn]] void Fatal();
void Throws(const tether::Context& ctx, bool bad, bool worse) {
  auto [dctx, cancel] = tether::WithDeadline(ctx, tether::Clock::now() + 1s);
  // CHECK: :[[@LINE-1]]:15: warning: the cancel function 'cancel' is not called on every path
  if (bad) throw std::runtime_error("bad");
  // CHECK: :[[@LINE-1]]:12: note: a throw here leaves the function without calling 'cancel'
  if (worse) Fatal();
  cancel();
}
void ThrowsAfterAssignment(const tether::Context& ctx) {
  tether::CancelFunc cancel;
  cancel = tether::WithCancel(ctx).cancel;
  throw std::runtime_error("always");
}
// Assigned from something that is not a derivation: nothing to track.
void NotDerived(tether::CancelFunc given) {
  tether::CancelFunc cancel;
  cancel = given;
}
// Assigned inside a lambda that runs at once (Go issue 31856), called after.
void AssignedInLambda(const tether::Context& ctx) {
  tether::CancelFunc cancel;
  [&] { cancel = tether::WithCancel(ctx).cancel; }();
  cancel();
}
// Templates are analysed as written, once.
template <class T>
void Generic(const tether::Context& ctx, T) {
  auto [c, cancel] = tether::WithCancel(ctx);
  // CHECK: :[[@LINE-1]]:12: warning: the cancel function 'cancel' is not called on every path
}
void Instantiate(const tether::Context& ctx) {
  Generic(ctx, 1);
  Generic(ctx, 2.0);
}
template <class T>
void NeverInstantiated(const tether::Context& ctx) {
  auto r = tether::WithCancel(ctx);
  // CHECK: :[[@LINE-1]]:8: warning: the cancel function 'r.cancel' is not called on every path
  T t{};
}
// The parent's type is a template parameter: the derivation is resolved only
// per instantiation, where it is checked (reported once, as written).
template <class Ctx>
tether::Error Dependent(const Ctx& parent) {
  auto [c, stop] = tether::WithCancel(parent);
  // CHECK: :[[@LINE-1]]:12: warning: the cancel function 'stop' is not called on every path
  return Work(c);
}
tether::Error UseDependent(const tether::Context& ctx) { return Dependent(ctx); }
// A class template member, the Go form `stop = WithTimeout(..).cancel`.
template <class Store>
struct Uploader {
  tether::Error Push(const tether::Context& ctx, Store& store) {
    tether::CancelFunc stop;
    if (store.slow()) stop = tether::WithTimeout(ctx, 2s).cancel;
    // CHECK: :[[@LINE-1]]:23: warning: the cancel function 'stop' is not called on every path
    return Work(ctx);
  }
};
struct DiskStore { bool slow() const { return true; } };
tether::Error Upload(const tether::Context& ctx, DiskStore& d) { return Uploader<DiskStore>().Push(ctx, d); }
// A result declared empty, filled on one branch: its cancel member is armed there.
tether::Error MaybeBounded(const tether::Context& ctx, bool bounded) {
  tether::ContextAndCancel work{ctx, tether::CancelFunc()};
  if (bounded) {
    work = tether::WithDeadline(ctx, tether::Clock::now() + 5s);
    // CHECK: :[[@LINE-1]]:5: warning: the cancel function 'work.cancel' is not called on every path
  }
  return Work(work.ctx);
}
tether::Error MaybeBoundedFixed(const tether::Context& ctx, bool bounded) {
  tether::ContextAndCancel work{ctx, tether::CancelFunc()};
  if (bounded) work = tether::WithDeadline(ctx, tether::Clock::now() + 5s);
  tether::Error err = Work(work.ctx);
  work.cancel();
  return err;
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

// A project's own derivation: any function whose result holds a context and
// the cancel function that ends it, whatever the type is called.
struct BuildContext {
  tether::Context ctx;
  tether::CancelFunc cancel;
};
BuildContext NewBuildContext(const tether::Context& parent);

void OwnDerivationLost(const tether::Context& parent) {
  auto b = NewBuildContext(parent);
  // CHECK: :[[@LINE-1]]:8: warning: the cancel function 'b.cancel' is not called on every path (possible context leak); call it when the work under its context is done [tether-lost-cancel]
  (void)Work(b.ctx);
}

void OwnDerivationAssigned(const tether::Context& parent) {
  BuildContext b{parent, {}};
  b = NewBuildContext(parent);
  // CHECK: :[[@LINE-1]]:3: warning: the cancel function 'b.cancel' is not called on every path
  (void)Work(b.ctx);
}

void OwnDerivationCalled(const tether::Context& parent) {
  auto b = NewBuildContext(parent);
  (void)Work(b.ctx);
  b.cancel();
}

// libtether's own guard, as docs/checks/lost-cancel.md advises: called on
// every path, nothing to report.
#include <tether/scope_exit.hpp>
tether::Error Guarded(const tether::Context& ctx, bool early) {
  auto [gctx, done] = tether::WithCancel(ctx);
  tether::ScopeExit release{[&] { done(); }};
  if (early) return tether::Error();
  return Work(gctx);
}
// CHECK-NOT: :[[@LINE-5]]:{{[0-9]+}}: warning
