// Tasks: Go's errgroup and `go` statement, with one owner per task.
//
// Each task has a thread of its own from its start to its return (tasks block
// on processes and pipes, so a bounded pool would starve): an idle thread of
// the process's thread cache, or a new thread when none is idle. Idle threads
// exit after a few seconds without a task. Every spawn records its
// std::source_location so the tracer and the reports can name the line that
// started it.
//
//   auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
//   group.Go([gctx] { return Fetch(gctx); });       // returns tether::Error (or void)
//   tether::Error err = group.Wait();                // first error; cancels gctx
//
// Ownership rule: a TaskGroup is the one owner of its tasks. Wait() joins
// them all. Destroying a group whose tasks were never waited for is a bug:
// the destructor cancels the group's context, joins the tasks (so no task
// escapes its owner), prints one warning naming the group's creation site to
// stderr, and reports it to the tracer as "group destroyed without Wait".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "tether/context.hpp"
#include "tether/error.hpp"

namespace tether {

using TaskFunc = std::function<Error()>;

namespace detail {
class GroupState;
// Adapts a callable returning Error or void to TaskFunc.
template <class F>
TaskFunc ToTaskFunc(F&& f) {
  using R = std::invoke_result_t<std::decay_t<F>&>;
  if constexpr (std::is_void_v<R>) {
    return [f = std::forward<F>(f)]() mutable -> Error {
      f();
      return Error();
    };
  } else {
    static_assert(std::is_convertible_v<R, Error>, "a task returns void or tether::Error");
    return TaskFunc(std::forward<F>(f));
  }
}
// Spawns a detached task (see tether::Go).
void SpawnDetached(const Context& ctx, std::string name, std::function<void()> f,
                   std::source_location loc);
}  // namespace detail

class TaskGroup {
 public:
  struct WithContextResult;
  // A group and its context: a child of parent that is cancelled when any
  // task returns a non-ok Error, or when Wait() returns.
  static WithContextResult WithContext(const Context& parent,
                                       std::source_location loc = std::source_location::current());

  TaskGroup(TaskGroup&&) noexcept;
  TaskGroup& operator=(TaskGroup&&) noexcept;
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;
  ~TaskGroup();  // see the ownership rule above

  // Starts f on a thread of its own; blocks while the limit is reached.
  template <class F>
  void Go(F&& f, std::source_location loc = std::source_location::current()) {
    GoImpl(std::string(), detail::ToTaskFunc(std::forward<F>(f)), loc);
  }
  template <class F>
  void Go(std::string name, F&& f, std::source_location loc = std::source_location::current()) {
    GoImpl(std::move(name), detail::ToTaskFunc(std::forward<F>(f)), loc);
  }
  // Starts f only if the limit allows it now; returns whether it started.
  template <class F>
  bool TryGo(F&& f, std::source_location loc = std::source_location::current()) {
    return TryGoImpl(std::string(), detail::ToTaskFunc(std::forward<F>(f)), loc);
  }
  template <class F>
  bool TryGo(std::string name, F&& f, std::source_location loc = std::source_location::current()) {
    return TryGoImpl(std::move(name), detail::ToTaskFunc(std::forward<F>(f)), loc);
  }
  // At most n tasks run at once (n < 0: no limit). Must not be called while
  // tasks are running (as in Go, that is a programming error: it aborts).
  void SetLimit(int n);
  // Joins every task; returns the first non-ok Error; cancels the context.
  // May be called more than once; later calls return the same error.
  Error Wait(std::source_location loc = std::source_location::current());

  // The group's context (the same one WithContext returned).
  const Context& context() const;
  std::uint64_t id() const;

 private:
  explicit TaskGroup(std::unique_ptr<detail::GroupState> state);
  void GoImpl(std::string name, TaskFunc f, std::source_location loc);
  bool TryGoImpl(std::string name, TaskFunc f, std::source_location loc);
  std::unique_ptr<detail::GroupState> state_;
};

struct TaskGroup::WithContextResult {
  TaskGroup group;
  Context ctx;
};

// How many tasks (TaskGroup and Go tasks) are running now, process-wide: a
// task counts from the start of its function to its return. Always counted
// (one relaxed atomic add per start and end, on the starting thread's own
// stripe of the count; this sums the stripes), traced or not, so a long-running
// program can export it (tether-worker's /metrics: tasks_alive).
std::int64_t TasksRunning();

// A detached task: the goroutine analog, for code that truly owns its own
// lifetime. Nobody joins it; the tracer reports it if it is still running
// when its scope ends or the process exits. Justify each use with
// `// tether:detached(<why>)` (the tether-detached-task check asks for it).
// f is invocable as f(ctx) or f().
template <class F>
void Go(const Context& ctx, F&& f, std::source_location loc = std::source_location::current()) {
  if constexpr (std::is_invocable_v<std::decay_t<F>&, const Context&>) {
    detail::SpawnDetached(
        ctx, std::string(), [ctx, f = std::forward<F>(f)]() mutable { f(ctx); }, loc);
  } else {
    detail::SpawnDetached(ctx, std::string(), std::function<void()>(std::forward<F>(f)), loc);
  }
}
template <class F>
void Go(const Context& ctx, std::string name, F&& f,
        std::source_location loc = std::source_location::current()) {
  if constexpr (std::is_invocable_v<std::decay_t<F>&, const Context&>) {
    detail::SpawnDetached(
        ctx, std::move(name), [ctx, f = std::forward<F>(f)]() mutable { f(ctx); }, loc);
  } else {
    detail::SpawnDetached(ctx, std::move(name), std::function<void()>(std::forward<F>(f)), loc);
  }
}

}  // namespace tether
