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
#include "tether/scope.hpp"

namespace tether {
namespace detail {
namespace {

// Tasks between the start and the end of their function (see TasksRunning).
std::atomic<std::int64_t> g_tasks_running{0};

// What every task thread does around its function: adopt the context's scope
// as the thread's current scope, report start and end, and turn an escaping
// exception into an Error (a throwing task must not std::terminate the process).
Error RunTask(const TaskFunc& f, std::uint64_t task, std::uint64_t scope) {
  SetCurrentScope(scope);
  g_tasks_running.fetch_add(1, std::memory_order_relaxed);
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
  g_tasks_running.fetch_sub(1, std::memory_order_relaxed);
  SetCurrentScope(0);  // the cached thread may run another task next
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
// the group waits for `active` to reach zero instead.
class GroupState {
 public:
  GroupState(const Context& parent, std::source_location where)
      : node(NewCancellable(parent, hooks::ContextKind::kGroup, where)), ctx(node), loc(where) {
    if (auto* t = hooks::Active()) {
      id = hooks::NextId();
      t->GroupCreated(id, ctx.id(), loc);
    }
  }

  // Counts a task in; the caller holds mu and has checked the limit. Start
  // it with Start after releasing mu (a task ending meanwhile takes mu).
  void ReserveLocked() {
    ++active;
    unwaited = true;
  }

  // Starts a reserved task (mu not held).
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
      std::lock_guard<std::mutex> lock(mu);
      --active;
      slot_freed.notify_all();
      throw;
    }
  }

  // A task's last act: record its error and free its slot. Notifies under mu:
  // the group may be destroyed as soon as mu is released after the last task.
  void Finish(const Error& err) {
    std::lock_guard<std::mutex> lock(mu);
    if (!err.ok() && first_err.ok()) {
      first_err = err;
      // Go's errgroup: the first error cancels the group's context, with the
      // error as its cause; before the slot is freed, so a task started in
      // that slot already sees the cancelled context.
      node->Cancel(true, Error::Canceled(), err);
    }
    --active;
    slot_freed.notify_all();
  }

  // Waits for every task to return, including tasks started by tasks meanwhile
  // (a task starting another counts it before it ends itself).
  void JoinAll() {
    std::unique_lock<std::mutex> lock(mu);
    // Wait joins every task whatever the context (its contract): ctx only asks tasks to end.
    // NOLINTNEXTLINE(tether-loop-without-context): joining must not stop on cancellation
    slot_freed.wait(lock, [&] { return active == 0; });
    unwaited = false;
  }

  const std::shared_ptr<ContextNode> node;  // the group context's node (we cancel it)
  const Context ctx;
  const std::source_location loc;
  std::uint64_t id = 0;  // 0 unless a tracer was installed at creation

  std::mutex mu;
  std::condition_variable slot_freed;  // notified whenever a task finishes
  int limit = -1;                      // guarded by mu; < 0: unlimited
  int active = 0;                      // guarded by mu; started, not returned
  bool unwaited = false;               // guarded by mu; a task started after the last Wait
  Error first_err;                     // guarded by mu
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

std::int64_t TasksRunning() { return detail::g_tasks_running.load(std::memory_order_relaxed); }

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
  bool unwaited;
  int running;
  {
    std::lock_guard<std::mutex> lock(g.mu);
    unwaited = g.unwaited;
    running = g.active;
  }
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
  detail::GroupState& g = *state_;
  {
    std::unique_lock<std::mutex> lock(g.mu);
    g.slot_freed.wait(lock, [&] { return g.limit < 0 || g.active < g.limit; });
    g.ReserveLocked();
  }
  g.Start(std::move(name), std::move(f), loc);
}

bool TaskGroup::TryGoImpl(std::string name, TaskFunc f, std::source_location loc) {
  detail::GroupState& g = *state_;
  {
    std::lock_guard<std::mutex> lock(g.mu);
    if (g.limit >= 0 && g.active >= g.limit) return false;
    g.ReserveLocked();
  }
  g.Start(std::move(name), std::move(f), loc);
  return true;
}

void TaskGroup::SetLimit(int n) {
  detail::GroupState& g = *state_;
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.active != 0) {
    std::fprintf(stderr, "tether: TaskGroup::SetLimit(%d) called while %d task(s) run\n", n,
                 g.active);
    std::abort();
  }
  g.limit = n;
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
