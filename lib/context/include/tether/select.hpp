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
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
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

// A case of Select, as its source implements it (a channel's receive, a
// signal, a timer): TryReady() completes the case without blocking when it
// can (true: taken, and Run() then runs its handler); Attach() registers the
// waiter with the source (false when the case is ready already); Detach()
// removes it. Select builds its cases in its own storage: a select loop
// builds one Select a message, and allocating its cases (four functions
// each) was most of its cost.
class SelectCase {
 public:
  virtual ~SelectCase() = default;
  virtual bool TryReady() = 0;
  virtual bool Attach(Waiter* w) = 0;
  virtual void Detach(Waiter* w) = 0;
  virtual void Run() = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline;  // timers only
};

// A case made of functions: a source outside libtether (Select::AddCase).
struct FunctionCase final : SelectCase {
  std::function<bool()> try_ready;      // non-blocking; true when this case completed
  std::function<bool(Waiter*)> attach;  // false if already ready
  std::function<void(Waiter*)> detach;
  std::function<void()> run;  // the handler, run after try_ready succeeded (may be empty)

  bool TryReady() override { return try_ready(); }
  bool Attach(Waiter* w) override { return attach(w); }
  void Detach(Waiter* w) override { detach(w); }
  void Run() override {
    if (run) run();
  }
};

}  // namespace detail

// Built, waited on once, dropped: neither copied nor moved (its cases live
// in it).
class Select {
 public:
  Select() = default;
  Select(const Select&) = delete;
  Select& operator=(const Select&) = delete;
  ~Select();

  Select& OnDone(const Context& ctx, std::function<void()> handler);
  Select& OnSignal(const Signal& signal, std::function<void()> handler);
  Select& OnTimer(Duration after, std::function<void()> handler);
  Select& OnDeadline(TimePoint at, std::function<void()> handler);
  // A source outside libtether, as functions.
  Select& AddCase(detail::FunctionCase c);
  template <class Ch, class F>
  Select& OnRecv(Ch& channel, F handler) {
    return Emplace<typename Ch::template RecvCase<F>>(channel, std::move(handler));
  }
  // Builds a case of type Case (a detail::SelectCase) from args: in the
  // Select's own storage while it has room, else on the heap.
  template <class Case, class... Args>
  Select& Emplace(Args&&... args);

  // Blocks until one case is ready, runs its handler, returns its index.
  std::size_t Wait();

 private:
  struct Entry {
    detail::SelectCase* c = nullptr;
    bool on_heap = false;
  };
  // Room for the usual few cases without an allocation.
  static constexpr std::size_t kInlineCases = 4;
  static constexpr std::size_t kInlineBytes = 4 * 128;

  // Where a case of size and align fits in storage_ (taken), or nullptr.
  void* InlineSpace(std::size_t size, std::size_t align);
  void Push(detail::SelectCase* c, bool on_heap);
  std::size_t size() const { return count_; }
  Entry& entry(std::size_t i) { return i < kInlineCases ? entries_[i] : more_[i - kInlineCases]; }
  detail::SelectCase& at(std::size_t i) { return *entry(i).c; }

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  std::size_t storage_used_ = 0;
  Entry entries_[kInlineCases];
  std::vector<Entry> more_;  // the cases past kInlineCases
  std::size_t count_ = 0;
};

template <class Case, class... Args>
Select& Select::Emplace(Args&&... args) {
  static_assert(std::is_base_of_v<detail::SelectCase, Case>);
  if (void* space = InlineSpace(sizeof(Case), alignof(Case))) {
    Case* c = new (space) Case(std::forward<Args>(args)...);
    try {
      Push(c, false);
    } catch (...) {
      c->~Case();
      throw;
    }
    return *this;
  }
  auto owned = std::make_unique<Case>(std::forward<Args>(args)...);
  Push(owned.get(), true);
  owned.release();
  return *this;
}

}  // namespace tether
