// tether::Select — Go's `select` over contexts, signals, channels and timers.
//
//   tether::Select sel;
//   sel.OnDone(ctx, [&] { ... });                       // ctx.Done()
//   sel.OnRecv(requests, [&](std::optional<Req> r) {});  // a value, or nullopt if closed
//   sel.OnTimer(std::chrono::seconds(5), [&] { ... });  // like time.After
//   std::size_t which = sel.Wait();                      // runs exactly one handler
//
// Wait() blocks (no busy polling: one condition variable, registered with
// every source) until at least one case is ready, picks one ready case (the
// first in declaration order, except that a ready receive is preferred over a
// timer), runs its handler on the calling thread and returns its index.
// Receiving in Select takes the value: exactly one Select or Recv gets it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "tether/context.hpp"
#include "tether/internal/blocking.hpp"
#include "tether/signal.hpp"

namespace tether {

namespace detail {

// One blocked waiter. Sources (signals, channels) call Notify() when they
// become ready; the waiter re-checks its cases after every wake-up.
class Waiter {
 public:
  Waiter() = default;
  // A waiter that wakes whoever sleeps on another mutex + condition variable
  // pair (a channel's): Notify() passes through mu, then wakes all of cv.
  // Such a waiter is only notified, never waited on.
  Waiter(std::mutex* mu, std::condition_variable* cv) : target_mu_(mu), target_cv_(cv) {}
  // A waiter whose Notify() calls fn(arg) instead: in the notifying thread,
  // under the source's lock, so fn must neither block nor take a lock (a
  // write to an eventfd that a poll(2) waits on). No task, no thread hop.
  Waiter(void (*fn)(void*), void* arg) : target_fn_(fn), target_arg_(arg) {}
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;

  void Notify() {
    if (target_fn_ != nullptr) {
      target_fn_(target_arg_);
      return;
    }
    if (target_cv_ != nullptr) {
      // Taking the sleeper's mutex orders this wake-up after its last check.
      { std::lock_guard<std::mutex> lock(*target_mu_); }
      target_cv_->notify_all();
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      notified_ = true;
    }
    cv_.notify_all();
  }
  // Waits for a Notify (or the deadline); clears the flag. Returns false on timeout.
  bool WaitUntil(std::optional<std::chrono::steady_clock::time_point> deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    BlockingRegion asleep;
    if (deadline) {
      if (!cv_.wait_until(lock, *deadline, [&] { return notified_; })) return false;
    } else {
      cv_.wait(lock, [&] { return notified_; });
    }
    notified_ = false;
    return true;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool notified_ = false;  // guarded by mu_
  std::mutex* target_mu_ = nullptr;
  std::condition_variable* target_cv_ = nullptr;
  void (*target_fn_)(void*) = nullptr;
  void* target_arg_ = nullptr;
};

// A case of Select: TryFire() attempts to complete the case without blocking
// (returns true and runs nothing yet if it did); Register/Unregister attach
// the waiter to the source.
struct SelectCase {
  std::function<bool()> try_ready;      // non-blocking; true when this case completed
  std::function<bool(Waiter*)> attach;  // false if already ready
  std::function<void(Waiter*)> detach;
  std::function<void()> run;  // the handler, run after try_ready succeeded
  std::optional<std::chrono::steady_clock::time_point> deadline;  // timers only
};

}  // namespace detail

class Select {
 public:
  Select& OnDone(const Context& ctx, std::function<void()> handler);
  Select& OnSignal(const Signal& signal, std::function<void()> handler);
  Select& OnTimer(Duration after, std::function<void()> handler);
  Select& OnDeadline(TimePoint at, std::function<void()> handler);
  // Channels add themselves through this (see channel.hpp).
  Select& AddCase(detail::SelectCase c);
  template <class Ch, class F>
  Select& OnRecv(Ch& channel, F handler) {
    return AddCase(channel.MakeRecvCase(std::move(handler)));
  }

  // Blocks until one case is ready, runs its handler, returns its index.
  std::size_t Wait();

 private:
  std::vector<detail::SelectCase> cases_;
};

}  // namespace tether
