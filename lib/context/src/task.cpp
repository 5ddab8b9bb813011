// TaskGroup (Go's errgroup) and detached tasks (Go's `go` statement).
#include "tether/task.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>

#include "context_node.hpp"
#include "tether/hooks.hpp"
#include "tether/internal/blocking.hpp"
#include "tether/scope.hpp"

namespace tether {
namespace detail {
namespace {

// Tasks between the start and the end of their function (see TasksRunning),
// counted in stripes of a cache line each: a thread adds and subtracts on
// its own stripe (a task starts and ends on one thread), so a task's start
// and end write no line that the other running threads write; TasksRunning
// sums the stripes. Threads beyond kStripes share stripes (correct, only
// slower).
constexpr std::size_t kStripes = 128;
struct alignas(64) Stripe {
  std::atomic<std::int64_t> running{0};
};
Stripe g_tasks_running[kStripes];
std::atomic<std::size_t> g_next_stripe{0};

std::atomic<std::int64_t>& ThisThreadsRunningCount() {
  thread_local std::atomic<std::int64_t>* const count =
      &g_tasks_running[g_next_stripe.fetch_add(1, std::memory_order_relaxed) % kStripes].running;
  return *count;
}

// What every task thread does around its function: adopt the context's scope
// as the thread's current scope, report start and end, and turn an escaping
// exception into an Error (a throwing task must not std::terminate the process).
Error RunTask(const TaskFunc& f, std::uint64_t task, std::uint64_t scope) {
  SetCurrentScope(scope, task);
  std::atomic<std::int64_t>& running = ThisThreadsRunningCount();
  running.fetch_add(1, std::memory_order_relaxed);
  if (task != 0) {
    if (auto* t = hooks::Active()) t->TaskStarted(task);
  }
  Error err;
  try {
    err = f();
  } catch (const std::exception& e) {
    err = Error::Failed(std::string("task threw: ") + e.what());
  } catch (...) {
    err = Error::Failed("task threw a non-standard exception");
  }
  if (task != 0) {
    if (auto* t = hooks::Active()) t->TaskEnded(task, err.code());
  }
  running.fetch_sub(1, std::memory_order_relaxed);
  SetCurrentScope(0, 0);  // the cached thread may run another task next
  return err;
}

// Reports a spawn; returns the task id (0 when no tracer is installed).
std::uint64_t ReportSpawn(const Context& ctx, std::uint64_t group, std::string_view name,
                          const std::source_location& loc) {
  auto* t = hooks::Active();
  if (t == nullptr) return 0;
  std::uint64_t task = hooks::NextId();
  std::uint64_t scope = ctx.scope_id();
  std::uint64_t detached_from = scope == 0 ? CurrentScopeId() : 0;
  t->TaskSpawned(task, ctx.id(), group, scope, detached_from, name, loc);
  return task;
}

}  // namespace

// The shared state of one TaskGroup. Lives at a fixed address (the group
// holds it by unique_ptr) until the group's destructor has seen every task
// return. Tasks run on cached threads (thread_cache.cpp) that nobody joins:
// the group waits for the count of running tasks to reach zero instead.
//
// The count lives in one atomic word with three flags, so that a Go and a
// task's end are one compare-and-swap each, without the mutex, and a task's
// end wakes nobody unless somebody waits for exactly that end: a thread in
// Wait sleeps until the count is 0 (only the last task's end takes the mutex
// and notifies), a Go at the limit until it is below the limit. The mutex and
// condition variable serve only those sleepers and the first error.
class GroupState {
 public:
  // state's bits: the count of tasks started and not yet returned, and flags.
  static constexpr std::uint32_t kUnwaited = 1u << 31;    // a task started since the last Wait
  static constexpr std::uint32_t kJoinWaiter = 1u << 30;  // a thread sleeps until count == 0
  static constexpr std::uint32_t kSlotWaiter = 1u << 29;  // a Go sleeps until count < limit
  static constexpr std::uint32_t kCountMask = kSlotWaiter - 1;
  static std::uint32_t Count(std::uint32_t s) { return s & kCountMask; }

  GroupState(const Context& parent, std::source_location where)
      : node(NewCancellable(parent, hooks::ContextKind::kGroup, where)), ctx(node), loc(where) {
    if (auto* t = hooks::Active()) {
      id = hooks::NextId();
      t->GroupCreated(id, ctx.id(), loc);
    }
  }

  // Counts a task in if the limit allows it now.
  bool TryReserve() {
    const int lim = limit.load(std::memory_order_relaxed);
    std::uint32_t s = state.load(std::memory_order_relaxed);
    do {
      if (lim >= 0 && Count(s) >= static_cast<std::uint32_t>(lim)) return false;
    } while (!state.compare_exchange_weak(s, (s + 1) | kUnwaited, std::memory_order_relaxed));
    return true;
  }

  // Counts a task in, sleeping while the limit is reached.
  void Reserve() {
    if (TryReserve()) return;
    std::unique_lock<std::mutex> lock(mu);
    AddWaiter(&slot_waiters, kSlotWaiter);
    BlockingRegion asleep;  // (thread_cache.cpp: the tasks it waits for run meanwhile)
    // Set before this test: a task ending from here on takes mu and notifies.
    // Like errgroup's Go at its limit, this waits for a slot whatever the
    // context: a cancelled group's tasks end, and each end frees a slot.
    // NOLINTNEXTLINE(tether-loop-without-context): a slot frees as tasks end; ctx only asks them to
    while (!TryReserve()) cv.wait(lock);
    RemoveWaiter(&slot_waiters, kSlotWaiter);
  }

  // Starts a reserved task.
  void Start(std::string name, TaskFunc f, std::source_location spawn_loc) {
    std::uint64_t task = ReportSpawn(ctx, id, name, spawn_loc);
    try {
      RunDetachedThread([this, task, f = std::move(f)]() mutable {
        Error err;
        {
          TaskFunc run = std::move(f);
          err = RunTask(run, task, ctx.scope_id());
        }  // its captures are destroyed before Wait can return, as when a thread was joined
        Finish(err);
      });
    } catch (...) {
      Release();
      throw;
    }
  }

  // A task's last act: record its error and free its slot.
  void Finish(const Error& err) {
    if (!err.ok()) {
      std::lock_guard<std::mutex> lock(mu);
      if (first_err.ok()) {
        first_err = err;
        // Go's errgroup: the first error cancels the group's context, with the
        // error as its cause; before the slot is freed, so a task started in
        // that slot already sees the cancelled context.
        node->Cancel(true, Error::Canceled(), err);
      }
    }
    Release();
  }

  // Counts a task out. Without a sleeper to wake, one compare-and-swap, and
  // nothing of the group is touched after it (the group may be destroyed as
  // soon as a waiter sees the count reach 0). With one, under mu: the waiter
  // takes mu before it returns, so it cannot return before mu is released.
  void Release() {
    std::uint32_t s = state.load(std::memory_order_relaxed);
    for (;;) {
      const bool wake = (s & kSlotWaiter) != 0 || ((s & kJoinWaiter) != 0 && Count(s) == 1);
      if (wake) break;
      if (state.compare_exchange_weak(s, s - 1, std::memory_order_acq_rel,
                                      std::memory_order_relaxed)) {
        return;
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    state.fetch_sub(1, std::memory_order_acq_rel);
    cv.notify_all();
  }

  // Waits for every task to return, including tasks started by tasks meanwhile
  // (a task starting another counts it before it ends itself), and marks the
  // group waited for at a moment when no task runs.
  void JoinAll() {
    std::unique_lock<std::mutex> lock(mu);
    std::uint32_t s = state.load(std::memory_order_acquire);
    for (;;) {
      if (Count(s) != 0) {
        AddWaiter(&join_waiters, kJoinWaiter);
        BlockingRegion asleep;  // (thread_cache.cpp: the tasks it waits for run meanwhile)
        // Wait joins every task whatever the context (its contract): ctx only asks tasks to end.
        // NOLINTNEXTLINE(tether-loop-without-context): joining must not stop on cancellation
        cv.wait(lock, [&] { return Count(state.load(std::memory_order_acquire)) == 0; });
        RemoveWaiter(&join_waiters, kJoinWaiter);
        s = state.load(std::memory_order_acquire);
        continue;
      }
      // Fails (reloading s) if a Go from another thread came in meanwhile:
      // then its task is joined too.
      if (state.compare_exchange_weak(s, s & ~kUnwaited, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
        return;
      }
    }
  }

  int Running() const { return static_cast<int>(Count(state.load(std::memory_order_acquire))); }
  bool Unwaited() const { return (state.load(std::memory_order_acquire) & kUnwaited) != 0; }

  const std::shared_ptr<ContextNode> node;  // the group context's node (we cancel it)
  const Context ctx;
  const std::source_location loc;
  std::uint64_t id = 0;  // 0 unless a tracer was installed at creation

  std::atomic<std::uint32_t> state{0};  // count | kUnwaited | kJoinWaiter | kSlotWaiter
  std::atomic<int> limit{-1};           // < 0: unlimited; set only while no task runs

  std::mutex mu;
  std::condition_variable cv;  // sleepers in JoinAll and Reserve
  int join_waiters = 0;        // guarded by mu
  int slot_waiters = 0;        // guarded by mu
  Error first_err;             // guarded by mu

 private:
  // A sleeper's flag is set while it sleeps (caller holds mu).
  void AddWaiter(int* waiters, std::uint32_t flag) {
    if ((*waiters)++ == 0) state.fetch_or(flag, std::memory_order_acq_rel);
  }
  void RemoveWaiter(int* waiters, std::uint32_t flag) {
    if (--*waiters == 0) state.fetch_and(~flag, std::memory_order_acq_rel);
  }
};

void SpawnDetached(const Context& ctx, std::string name, std::function<void()> f,
                   std::source_location loc) {
  std::uint64_t task = ReportSpawn(ctx, 0, name, loc);
  std::uint64_t scope = ctx.scope_id();
  RunDetachedThread([task, scope, loc, f = std::move(f)] {
    Error err = RunTask(
        [&f]() -> Error {
          f();
          return Error();
        },
        task, scope);
    if (!err.ok()) {
      std::fprintf(stderr, "tether: detached task started at %s:%u: %s\n", loc.file_name(),
                   static_cast<unsigned>(loc.line()), err.ToString().c_str());
    }
  });
}

}  // namespace detail

std::int64_t TasksRunning() {
  std::int64_t sum = 0;
  for (const auto& stripe : detail::g_tasks_running) {
    sum += stripe.running.load(std::memory_order_relaxed);
  }
  return sum;
}

TaskGroup::WithContextResult TaskGroup::WithContext(const Context& parent,
                                                    std::source_location loc) {
  auto state = std::make_unique<detail::GroupState>(parent, loc);
  Context ctx = state->ctx;
  return WithContextResult{TaskGroup(std::move(state)), std::move(ctx)};
}

TaskGroup::TaskGroup(std::unique_ptr<detail::GroupState> state) : state_(std::move(state)) {}
TaskGroup::TaskGroup(TaskGroup&&) noexcept = default;

TaskGroup& TaskGroup::operator=(TaskGroup&& other) noexcept {
  if (this != &other) {
    TaskGroup old(std::move(*this));  // destroyed (and checked) here
    state_ = std::move(other.state_);
  }
  return *this;
}

TaskGroup::~TaskGroup() {
  if (!state_) return;  // moved from
  detail::GroupState& g = *state_;
  const bool unwaited = g.Unwaited();
  const int running = g.Running();
  // Cancel first so the tasks can stop, then join: no task escapes its owner.
  g.node->Cancel(true, Error::Canceled(), Error());
  if (unwaited) {
    std::fprintf(stderr,
                 "tether: TaskGroup created at %s:%u destroyed without Wait() "
                 "(%d task(s) still running): cancelled its context and joined them\n",
                 g.loc.file_name(), static_cast<unsigned>(g.loc.line()), running);
    if (auto* t = hooks::Active()) {
      t->GroupDestroyedUnwaited(g.id, static_cast<std::uint64_t>(running));
    }
  }
  g.JoinAll();
}

void TaskGroup::GoImpl(std::string name, TaskFunc f, std::source_location loc) {
  state_->Reserve();
  state_->Start(std::move(name), std::move(f), loc);
}

bool TaskGroup::TryGoImpl(std::string name, TaskFunc f, std::source_location loc) {
  if (!state_->TryReserve()) return false;
  state_->Start(std::move(name), std::move(f), loc);
  return true;
}

void TaskGroup::SetLimit(int n) {
  detail::GroupState& g = *state_;
  if (const int running = g.Running(); running != 0) {
    std::fprintf(stderr, "tether: TaskGroup::SetLimit(%d) called while %d task(s) run\n", n,
                 running);
    std::abort();
  }
  g.limit.store(n, std::memory_order_relaxed);
}

Error TaskGroup::Wait(std::source_location loc) {
  detail::GroupState& g = *state_;
  if (g.id != 0) {
    if (auto* t = hooks::Active()) t->GroupWaitBegin(g.id, loc);
  }
  g.JoinAll();
  Error err;
  {
    std::lock_guard<std::mutex> lock(g.mu);
    err = g.first_err;
  }
  g.node->Cancel(true, Error::Canceled(), err);
  if (g.id != 0) {
    if (auto* t = hooks::Active()) t->GroupWaitEnd(g.id, err.code());
  }
  return err;
}

const Context& TaskGroup::context() const { return state_->ctx; }

std::uint64_t TaskGroup::id() const { return state_->id; }

}  // namespace tether
