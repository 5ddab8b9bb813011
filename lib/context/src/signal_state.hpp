// Internal: the shared state behind tether::Signal.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <mutex>
#include <vector>

#include "futex.hpp"
#include "tether/internal/blocking.hpp"
#include "tether/select.hpp"
#include "tether/signal.hpp"

namespace tether::detail {

// A one-shot event. Invariant: once fired_ is set it stays set, and every
// Waiter registered before that has been notified exactly once and dropped.
// Waiters are notified under mu_, so a Waiter that unregisters (under mu_)
// can be destroyed right after: no notification can reach it later.
class SignalState {
 public:
  bool Fired() const { return fired_.load(std::memory_order_acquire) != 0; }
  // Fired, and then the firing thread is done with the state (it passes mu_
  // as Wait() does): a Select that returns on this signal may destroy it at
  // once. (Seen fired by the load alone, Fire() may still be notifying and
  // unlocking: TSan caught a test's engine freed under it.)
  bool FiredSettled() {
    if (!Fired()) return false;
    std::lock_guard<FutexLock> lock(mu_);
    return true;
  }

  // Fire() runs under mu_, and Wait() passes through mu_ before it returns:
  // once a waiter has returned, Fire() no longer touches the state, so the
  // waiter may destroy it at once (even when the firing thread borrowed the
  // handle).
  bool Fire() {
    if (owned_by_context_) return false;  // a context's Done() is fired by its cancel only
    std::lock_guard<FutexLock> lock(mu_);
    return FireLocked();
  }

  // For the context node that embeds this signal: it shares mu_ (one lock
  // guards the node's cancel state and the waiters), and fires under it.
  FutexLock& mutex() { return mu_; }
  void SetOwnedByContext() { owned_by_context_ = true; }
  bool FireLocked() {
    if (fired_.load(std::memory_order_relaxed) != 0) return false;
    // seq_cst store, then seq_cst load of sleepers_ (and the reverse in
    // Wait): either this sees the sleeper, or the sleeper sees fired_.
    fired_.store(1, std::memory_order_seq_cst);
    for (Waiter* w : waiters_) w->Notify();
    waiters_.clear();
    if (sleepers_.load(std::memory_order_seq_cst) != 0) FutexWake(&fired_, INT_MAX);
    return true;
  }

  void Wait() {
    if (!Fired()) {
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      BlockingRegion asleep;
      while (fired_.load(std::memory_order_seq_cst) == 0) FutexWait(&fired_, 0);
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    std::lock_guard<FutexLock> lock(mu_);  // the firing thread is done with us
  }

  bool WaitUntil(std::chrono::steady_clock::time_point deadline) {
    if (!Fired()) {
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      BlockingRegion asleep;
      while (fired_.load(std::memory_order_seq_cst) == 0 &&
             std::chrono::steady_clock::now() < deadline) {
        FutexWaitUntil(&fired_, 0, deadline);
      }
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    std::lock_guard<FutexLock> lock(mu_);
    return Fired();
  }

  bool Register(Waiter* w) {
    std::lock_guard<FutexLock> lock(mu_);
    if (fired_.load(std::memory_order_relaxed) != 0) return false;
    waiters_.push_back(w);
    return true;
  }

  void Unregister(Waiter* w) {
    std::lock_guard<FutexLock> lock(mu_);
    auto it = std::find(waiters_.begin(), waiters_.end(), w);
    if (it != waiters_.end()) waiters_.erase(it);
  }

 private:
  FutexWord fired_{0};             // 0 until fired, then 1 forever; Wait() sleeps on it
  FutexWord sleepers_{0};          // threads in Wait()/WaitUntil(): Fire() wakes them only if any
  bool owned_by_context_ = false;  // set before the state is shared
  FutexLock mu_;
  std::vector<Waiter*> waiters_;  // guarded by mu_; Select/Channel waiters
};

// Builds a Signal handle over a state owned by something else (a context
// node embeds its done signal; the aliasing shared_ptr keeps the owner alive).
struct SignalAccess {
  static Signal Wrap(std::shared_ptr<SignalState> s) { return Signal(std::move(s)); }
  static bool FiredSettled(const Signal& s) { return s.state_ && s.state_->FiredSettled(); }
};

}  // namespace tether::detail
