// REQUIRES: checker
// RUN: %check_tether %s tether-cleanup-on-cancellable-context %t --implicit-check-not=note:
#include <chrono>
#include <functional>
#include <memory>
#include <utility>

#include <tether/context.hpp>
#include <tether/task.hpp>

using namespace std::chrono_literals;
tether::Error ExecBuild(const tether::Context& ctx);
tether::Error DestroyBuild(const tether::Context& ctx);
tether::Error UploadLogs(const tether::Context& ctx);
void CloseStream(const tether::Context& ctx, int stream);

struct ScopeExit {
  explicit ScopeExit(std::function<void()> f) : f_(std::move(f)) {}
  ~ScopeExit() { f_(); }
  std::function<void()> f_;
};

// Vela's exec(): DestroyBuild on the context the build timeout ends.
tether::Error Exec(const tether::Context& build_ctx) {
  auto [ctx, timeout] = tether::WithTimeout(build_ctx, 30min);
  ScopeExit release{[&] { timeout(); }};
  tether::Error err = ExecBuild(ctx);
  DestroyBuild(ctx);
  // CHECK: :[[@LINE-1]]:16: warning: cleanup call 'DestroyBuild' is passed context 'ctx', which 'tether::WithTimeout' may already have ended; cleanup must run on a context that outlives the work: pass WithoutCancel(ctx) (with its own deadline: WithTimeout(WithoutCancel(ctx), d)) [tether-cleanup-on-cancellable-context]
  // CHECK: :[[@LINE-5]]:25: note: 'tether::WithTimeout' derives the context here; its deadline or cancel ends it before the cleanup
  // CHECK-FIXES: {{^}}  DestroyBuild(tether::WithoutCancel(ctx));{{$}}
  return err;
}

// Any call in a scope guard: the final upload, deferred, on a cancellable context.
void Stream(const tether::Context& parent) {
  auto [ctx, cancel] = tether::WithCancel(parent);
  ScopeExit upload{[&] { UploadLogs(ctx); }};
  // CHECK: :[[@LINE-1]]:37: warning: call to 'UploadLogs' in a scope guard is passed context 'ctx', which 'tether::WithCancel' may already have ended
  // CHECK: :[[@LINE-3]]:24: note: 'tether::WithCancel' derives the context here
  // CHECK-FIXES: {{^}}  ScopeExit upload{[&] { UploadLogs(tether::WithoutCancel(ctx)); }};{{$}}
  ScopeExit stop{[&] { cancel(); }};
  ExecBuild(ctx);
}

// The caller's timeout: FinishStream gets its context from a call in this TU.
void FinishStream(const tether::Context& ctx, int stream) {
  CloseStream(ctx, stream);
  // CHECK: :[[@LINE-1]]:15: warning: cleanup call 'CloseStream' is passed context 'ctx', which 'tether::WithDeadline' may already have ended
  // CHECK: :[[@LINE+6]]:3: note: 'FinishStream' is called here with a context that may already be done
  // CHECK: :[[@LINE+4]]:25: note: 'tether::WithDeadline' derives the context here
  // CHECK-FIXES: {{^}}  CloseStream(tether::WithoutCancel(ctx), stream);{{$}}
}
void Run(const tether::Context& ctx, tether::TimePoint until) {
  auto [dctx, cancel] = tether::WithDeadline(ctx, until);
  FinishStream(dctx, 3);
  cancel();
}

// A task group's context is cancelled when Wait returns.
void Group(const tether::Context& ctx) {
  auto [g, gctx] = tether::TaskGroup::WithContext(ctx);
  g.Go([&] { return ExecBuild(gctx); });
  g.Wait();
  DestroyBuild(gctx);
  // CHECK: :[[@LINE-1]]:16: warning: cleanup call 'DestroyBuild' is passed context 'gctx', which 'tether::TaskGroup::WithContext' may already have ended
  // CHECK: :[[@LINE-5]]:20: note: 'tether::TaskGroup::WithContext' derives the context here
}

// A scope guard that names its function's parameter, which the caller
// derived: Vela's StreamStep re-tails on the streaming context, which the
// group of ExecStep ends (the caller passes r.ctx of a local result).
void StreamStep(const tether::Context& ctx) {
  ScopeExit retail{[&] { UploadLogs(ctx); }};
  // CHECK: :[[@LINE-1]]:37: warning: call to 'UploadLogs' in a scope guard is passed context 'ctx', which 'tether::TaskGroup::WithContext' may already have ended
  // CHECK: :[[@LINE+7]]:34: note: 'StreamStep' is called here with a context that may already be done
  // CHECK: :[[@LINE+5]]:15: note: 'tether::TaskGroup::WithContext' derives the context here
  // CHECK-FIXES: {{^}}  ScopeExit retail{[&] { UploadLogs(tether::WithoutCancel(ctx)); }};{{$}}
  ExecBuild(ctx);
}
void ExecStep(const tether::Context& ctx) {
  auto logs = tether::TaskGroup::WithContext(ctx);
  logs.group.Go([c = logs.ctx] { StreamStep(c); });
  logs.group.Wait();
}

// The verbs real code tears down with are cleanup by default (Unmount*,
// Release*, Shutdown*, Flush*, Deregister*, Delete*, Stop*, Kill*, ...).
tether::Error UnmountScratch(const tether::Context& ctx, int volume);
void Scratch(const tether::Context& parent) {
  auto [sctx, stop] = tether::WithTimeout(parent, 5min);
  ExecBuild(sctx);
  UnmountScratch(sctx, 3);
  // CHECK: :[[@LINE-1]]:18: warning: cleanup call 'UnmountScratch' is passed context 'sctx', which 'tether::WithTimeout' may already have ended
  // CHECK: :[[@LINE-4]]:23: note: 'tether::WithTimeout' derives the context here
  // CHECK-FIXES: {{^}}  UnmountScratch(tether::WithoutCancel(sctx), 3);{{$}}
  stop();
}

// Deferred regions found by what runs them, not by their spelling: a guard
// template that calls its callable through a member function and is made by
// a factory; a unique_ptr whose deleter is a lambda; a hand-written RAII type
// whose destructor uses the context it was constructed with.
template <class F>
class OnLeave {
 public:
  explicit OnLeave(F f) : f_(std::move(f)) {}
  ~OnLeave() { Fire(); }

 private:
  void Fire() { f_(); }
  F f_;
};
template <class F>
OnLeave<F> Later(F f) { return OnLeave<F>(std::move(f)); }
template <class F>
void Now(F f) { f(); }
tether::Error SaveJournal(const tether::Context& ctx);

void Journal(const tether::Context& parent, tether::TimePoint until) {
  auto [jctx, stop] = tether::WithDeadline(parent, until);
  auto save = Later([&] { SaveJournal(jctx); });
  // CHECK: :[[@LINE-1]]:39: warning: call to 'SaveJournal' in a scope guard is passed context 'jctx', which 'tether::WithDeadline' may already have ended
  // CHECK: :[[@LINE-3]]:23: note: 'tether::WithDeadline' derives the context here
  // CHECK-FIXES: {{^}}  auto save = Later([&] { SaveJournal(tether::WithoutCancel(jctx)); });{{$}}
  Now([&] { SaveJournal(jctx); });  // runs at once, while jctx is live
  ExecBuild(jctx);
  stop();
}

struct Socket;
Socket* Dial(const tether::Context& ctx);
void Hangup(const tether::Context& ctx, Socket* s);

void Call(const tether::Context& parent) {
  auto [cctx, cancel] = tether::WithCancel(parent);
  auto hangup = [cctx](Socket* s) { Hangup(cctx, s); };
  // CHECK: :[[@LINE-1]]:44: warning: call to 'Hangup' in a scope guard is passed context 'cctx', which 'tether::WithCancel' may already have ended
  // CHECK: :[[@LINE-3]]:25: note: 'tether::WithCancel' derives the context here
  // CHECK-FIXES: {{^}}  auto hangup = [cctx](Socket* s) { Hangup(tether::WithoutCancel(cctx), s); };{{$}}
  std::unique_ptr<Socket, decltype(hangup)> sock(Dial(cctx), hangup);
  cancel();
}

tether::Error Detach(const tether::Context& ctx, int volume);
class VolumeLease {
 public:
  VolumeLease(tether::Context ctx, int volume) : ctx_(std::move(ctx)), volume_(volume) {}
  ~VolumeLease() { Detach(ctx_, volume_); }
  // CHECK: :[[@LINE-1]]:27: warning: call to 'Detach' in a destructor is passed context 'ctx_', which 'tether::TaskGroup::WithContext' may already have ended
  // CHECK: :[[@LINE+10]]:15: note: 'VolumeLease' is constructed here with a context that may already be done
  // CHECK: :[[@LINE+8]]:12: note: 'tether::TaskGroup::WithContext' derives the context here
  // CHECK-FIXES: {{^}}  ~VolumeLease() { Detach(tether::WithoutCancel(ctx_), volume_); }{{$}}

 private:
  tether::Context ctx_;
  int volume_;
};
void Mount(const tether::Context& parent) {
  auto r = tether::TaskGroup::WithContext(parent);
  VolumeLease lease{r.ctx, 7};
  r.group.Go([c = r.ctx] { return ExecBuild(c); });
  r.group.Wait();
}

// ---- Not findings -------------------------------------------------------

// The RAII type built on a context of its own.
void MountDetached(const tether::Context& parent) {
  // tether:detached(the lease must be released after the build's cancellation)
  VolumeLease lease{tether::WithoutCancel(parent), 8};
  ExecBuild(parent);
}

// The sanctioned form: the cleanup's own deadline on WithoutCancel.
void Sanctioned(const tether::Context& ctx) {
  auto [tctx, timeout] = tether::WithTimeout(ctx, 1min);
  ExecBuild(tctx);
  timeout();
  // tether:detached(cleanup must outlive the build's cancellation)
  auto [cctx, cancel] = tether::WithTimeout(tether::WithoutCancel(ctx), 30s);
  DestroyBuild(cctx);
  cancel();
  // tether:detached(same, through a variable)
  tether::Context detached = tether::WithoutCancel(ctx);
  auto [c2, cancel2] = tether::WithTimeout(detached, 30s);
  DestroyBuild(c2);
  DestroyBuild(tether::WithoutCancel(tctx));
  cancel2();
}

// The caller's own context, not derived here and not by a caller in this TU.
void Plain(const tether::Context& ctx) {
  DestroyBuild(ctx);
  ScopeExit guard{[&] { UploadLogs(ctx); }};
}

// Not a cleanup call, not in a guard.
void Work(const tether::Context& ctx) {
  auto [tctx, cancel] = tether::WithTimeout(ctx, 1s);
  ExecBuild(tctx);
  cancel();
}
