// Internal: the shared state behind tether::Signal.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "tether/select.hpp"
#include "tether/signal.hpp"

namespace tether::detail {

// A one-shot event. Invariant: once fired_ is true it stays true, and every
// Waiter registered before that has been notified exactly once and dropped.
// Waiters are notified under mu_, so a Waiter that unregisters (under mu_)
// can be destroyed right after: no notification can reach it later.
class SignalState {
 public:
  bool Fired() const { return fired_.load(std::memory_order_acquire); }

  // Everything happens under mu_, and Wait() always takes mu_: once a waiter
  // has returned, Fire() no longer touches the state, so the waiter may
  // destroy it at once (even when the firing thread borrowed the handle).
  bool Fire() {
    if (owned_by_context_) return false;  // a context's Done() is fired by its cancel only
    std::lock_guard<std::mutex> lock(mu_);
    return FireLocked();
  }

  // For the context node that embeds this signal: it shares mu_ (one lock
  // guards the node's cancel state and the waiters), and fires under it.
  std::mutex& mutex() { return mu_; }
  void SetOwnedByContext() { owned_by_context_ = true; }
  bool FireLocked() {
    if (fired_.load(std::memory_order_relaxed)) return false;
    fired_.store(true, std::memory_order_release);
    for (Waiter* w : waiters_) w->Notify();
    waiters_.clear();
    cv_.notify_all();
    return true;
  }

  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return fired_.load(std::memory_order_relaxed); });
  }

  bool WaitUntil(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_until(lock, deadline, [&] { return fired_.load(std::memory_order_relaxed); });
  }

  bool Register(Waiter* w) {
    std::lock_guard<std::mutex> lock(mu_);
    if (fired_.load(std::memory_order_relaxed)) return false;
    waiters_.push_back(w);
    return true;
  }

  void Unregister(Waiter* w) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find(waiters_.begin(), waiters_.end(), w);
    if (it != waiters_.end()) waiters_.erase(it);
  }

 private:
  std::atomic<bool> fired_{false};
  bool owned_by_context_ = false;  // set before the state is shared
  std::mutex mu_;
  std::condition_variable cv_;    // Wait()/WaitUntil() callers; notified once, on Fire
  std::vector<Waiter*> waiters_;  // guarded by mu_; Select/Channel waiters
};

// Builds a Signal handle over a state owned by something else (a context
// node embeds its done signal; the aliasing shared_ptr keeps the owner alive).
struct SignalAccess {
  static Signal Wrap(std::shared_ptr<SignalState> s) { return Signal(std::move(s)); }
};

}  // namespace tether::detail
