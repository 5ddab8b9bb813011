// REQUIRES: checker
// RUN: %check_tether %s tether-unwaited-group %t
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include <tether/context.hpp>
#include <tether/task.hpp>

tether::Error Work(const tether::Context& ctx);

// Never waited for (Vela's ExecStep log streaming, site 11).
void NeverWaited(const tether::Context& ctx) {
  auto [logs, log_ctx] = tether::TaskGroup::WithContext(ctx);
  logs.Go([c = log_ctx] { return Work(c); });
  // CHECK: :[[@LINE-1]]:3: warning: task group 'logs' starts a task here but is not waited for on every path; call logs.Wait() before it goes out of scope [tether-unwaited-group]
  // CHECK: :[[@LINE+1]]:1: note: 'logs' may reach the end of its scope here without Wait()
}

// An early return skips the Wait.
tether::Error EarlyReturn(const tether::Context& ctx, bool skip) {
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  group.Go([c = gctx] { return Work(c); });
  // CHECK: :[[@LINE-1]]:3: warning: task group 'group' starts a task here but is not waited for on every path
  if (skip) return tether::Error();
  // CHECK: :[[@LINE-1]]:13: note: 'group' may reach the end of its scope here without Wait()
  return group.Wait();
}

// A throw between the spawn and the Wait.
void Throws(const tether::Context& ctx, bool bad) {
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  group.Go([c = gctx] { return Work(c); });
  // CHECK: :[[@LINE-1]]:3: warning: task group 'group' starts a task here
  if (bad) throw std::runtime_error("bad input");
  // CHECK: :[[@LINE-1]]:12: note: a throw here leaves 'group' without Wait()
  group.Wait();
}

// A group declared in a loop body spawns every iteration and is never waited.
void InLoop(const tether::Context& ctx, int n) {
  for (int i = 0; i < n; ++i) {
    auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
    group.TryGo([c = gctx] { return Work(c); });
    // CHECK: :[[@LINE-1]]:5: warning: task group 'group' starts a task here
  }
}

// The whole WithContext result kept in one variable: r.group is the obligation.
tether::Error Whole(const tether::Context& ctx, bool skip) {
  auto r = tether::TaskGroup::WithContext(ctx);
  r.group.Go([c = r.ctx] { return Work(c); });
  // CHECK: :[[@LINE-1]]:3: warning: task group 'r.group' starts a task here but is not waited for on every path; call r.group.Wait()
  if (skip) return tether::Error();
  // CHECK: :[[@LINE-1]]:13: note: 'r.group' may reach the end of its scope here without Wait()
  return r.group.Wait();
}

// Spawns in a loop, then an early return out of the loop skips the Wait.
tether::Error EarlyFromLoop(const tether::Context& ctx, const std::vector<int>& steps) {
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  for (int step : steps) {
    group.Go([c = gctx, step] { return step < 0 ? tether::Error::Canceled() : Work(c); });
    // CHECK: :[[@LINE-1]]:5: warning: task group 'group' starts a task here
    if (step == 0) return tether::Error();
    // CHECK: :[[@LINE-1]]:20: note: 'group' may reach the end of its scope here without Wait()
  }
  return group.Wait();
}

// Members of a class template: analysed once, as written, whether an
// instantiation uses them (twice) or none does.
template <class Runtime>
class StepRunner {
 public:
  tether::Error Exec(const tether::Context& ctx) {
    auto [logs, log_ctx] = tether::TaskGroup::WithContext(ctx);
    logs.Go([this, c = log_ctx] { return runtime_.Stream(c); });
    // CHECK: :[[@LINE-1]]:5: warning: task group 'logs' starts a task here but is not waited for on every path
    return runtime_.Run(ctx);
  }
  tether::Error Unused(const tether::Context& ctx) {
    auto [logs, log_ctx] = tether::TaskGroup::WithContext(ctx);
    logs.Go([this, c = log_ctx] { return runtime_.Stream(c); });
    // CHECK: :[[@LINE-1]]:5: warning: task group 'logs' starts a task here but is not waited for on every path
    return tether::Error();
  }
  tether::Error Waited(const tether::Context& ctx) {
    auto [logs, log_ctx] = tether::TaskGroup::WithContext(ctx);
    logs.Go([this, c = log_ctx] { return runtime_.Stream(c); });
    return logs.Wait();
  }

 private:
  Runtime runtime_;
};
struct Docker {
  tether::Error Run(const tether::Context& ctx);
  tether::Error Stream(const tether::Context& ctx);
};
struct Kubernetes {
  tether::Error Run(const tether::Context& ctx);
  tether::Error Stream(const tether::Context& ctx);
};
void RunBoth(const tether::Context& ctx) {
  StepRunner<Docker>().Exec(ctx);
  StepRunner<Kubernetes>().Exec(ctx);
  StepRunner<Docker>().Waited(ctx);
}

// ---- Not findings -------------------------------------------------------

// A lambda that waits (or hands the group on) owns it.
void LambdaWaits(const tether::Context& ctx, const std::vector<int>& steps) {
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  for (int step : steps) group.Go([c = gctx, step] { return Work(c); });
  auto finish = [&] { return group.Wait(); };
  finish();
}
// Escapes: the new owner answers for the group.
tether::TaskGroup Returned(const tether::Context& ctx) {
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  group.Go([c = gctx] { return Work(c); });
  return std::move(group);
}
struct Owner {
  std::vector<tether::TaskGroup> groups;
  void Adopt(const tether::Context& ctx) {
    auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
    group.Go([c = gctx] { return Work(c); });
    groups.push_back(std::move(group));
  }
};
void WaitLater(tether::TaskGroup& g);
void PassedOn(const tether::Context& ctx) {
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  group.Go([c = gctx] { return Work(c); });
  WaitLater(group);
}
// An RAII guard (a stored lambda that captures the group) waits for it.
template <class F>
struct ScopeExit {
  explicit ScopeExit(F fn) : f(fn) {}
  ~ScopeExit() { f(); }
  F f;
};
void Guarded(const tether::Context& ctx, bool early) {
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  ScopeExit guard{[&group] { group.Wait(); }};
  group.Go([c = gctx] { return Work(c); });
  if (early) return;
  group.Go([c = gctx] { return Work(c); });
}
// A no-return path does not reach the end of the scope.
[[noreturn]] void Fatal();
void NoReturn(const tether::Context& ctx, bool broken) {
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  group.Go([c = gctx] { return Work(c); });
  if (broken) Fatal();
  group.Wait();
}
// A member of a class template whose guard lambda captures by default: in the
// definition the capture list is not resolved yet, so what the lambda names
// counts as captured (the guard waits for the group on every path).
template <class Sink>
struct Fanout {
  Sink sink;
  tether::Error Publish(const tether::Context& ctx, int n) {
    auto [pushers, pctx] = tether::TaskGroup::WithContext(ctx);
    ScopeExit join_all{[&] { pushers.Wait(); }};
    for (int i = 0; i < n; ++i) pushers.Go([&] { sink.Put(i); return Work(pctx); });
    if (n > 8) return tether::Error();
    return Work(ctx);
  }
  // The same without the guard: reported once, in the definition, whatever
  // instantiates it.
  void Leaky(const tether::Context& ctx) {
    auto [pushers, pctx] = tether::TaskGroup::WithContext(ctx);
    pushers.Go([&] { sink.Put(0); return Work(pctx); });
    // CHECK: :[[@LINE-1]]:5: warning: task group 'pushers' starts a task here but is not waited for on every path
  }
};
struct IntSink { void Put(int) {} };
struct LongSink { void Put(long) {} };
void PublishBoth(const tether::Context& ctx) {
  Fanout<IntSink>{}.Publish(ctx, 3);
  Fanout<LongSink>{}.Publish(ctx, 3);
  Fanout<IntSink>{}.Leaky(ctx);
  Fanout<LongSink>{}.Leaky(ctx);
}
