// tether::Channel<T> implementation (included by channel.hpp; not a public API).
//
// Buffered channels (capacity > 0) keep their values in a ring of cells, each
// with a sequence number (after Dmitry Vyukov's bounded MPMC queue): a Send claims
// the next cell with one compare-exchange on send_pos and publishes the value
// by storing the cell's sequence; a Recv does the same on recv_pos. While the
// ring has room (or values) and nobody sleeps, neither takes a lock nor makes
// a system call, where a mutex-guarded queue pays a lock and a wake per value.
//
// A Send that finds the ring full (a Recv that finds it empty) first spins a
// little, yielding the core each round, then sleeps. Sleeping goes through
// the mutex, as in a textbook bounded queue. A Recv
// that finds the ring empty takes mu, announces itself in recv_waiting, looks
// once more, then sleeps on recv_cv. A Send, after publishing, fences and
// reads recv_waiting: of the announce-then-look and the publish-then-read,
// one side sees the other (both order through a seq_cst fence), so a value is
// never left with its receiver asleep. The waker takes mu before it
// notifies, so a sleeper between its last look and its wait cannot miss it.
// Senders on a full ring sleep on send_cv the same way, counted in
// send_waiting. Select receive cases register a Waiter in recv_waiters (and
// count in recv_waiting). A context that can end wakes a sleeper through a
// detail::Waiter registered with its Done signal that targets mu and the cv.
//
// Close() sets kClosedBit in send_pos under mu: a Send whose claim came first
// is delivered, one after it returns Closed, so "closed and drained" (every
// claimed cell taken) is exact.
//
// Unbuffered channels hand values over through offers, under mu: a sender
// parks an Offer (a pointer to its value) and sleeps until a receiver marks it
// taken. After Close() offers are never taken: their senders return Closed.
//
// Lock order: a context's lock, then the channel's (a firing Done signal
// notifies the channel). So the channel never takes a context's lock while
// holding its own: it registers with Done signals outside its lock, and
// Context::Err() is lock-free.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <new>
#include <thread>
#include <type_traits>
#include <utility>

#include "tether/internal/blocking.hpp"

namespace tether {

template <class T>
struct Channel<T>::State {
  // A value moved into a cell must not throw half-way: the cell is claimed.
  static_assert(std::is_nothrow_move_constructible_v<T>,
                "tether::Channel<T> needs a T whose move constructor is noexcept");

  struct Offer {
    T* value;
    bool taken = false;  // guarded by mu
  };
  struct Cell {
    // 2 * pos while free for position pos, 2 * pos + 1 while it holds
    // pos's value; taking it frees it for pos + capacity. (Vyukov's pos and
    // pos + 1 cannot tell "holds pos's value" from "free for pos + 1" when
    // the capacity is 1.)
    std::atomic<std::uint64_t> seq{0};
    alignas(T) unsigned char storage[sizeof(T)];
    T* value() { return std::launder(reinterpret_cast<T*>(storage)); }
  };
  static constexpr std::uint64_t kClosedBit = std::uint64_t{1} << 63;
  enum class Push { kDone, kFull, kClosed };

  explicit State(std::size_t cap) : capacity(cap) {
    if (cap == 0) return;
    cells.reset(new Cell[cap]);
    for (std::size_t i = 0; i < cap; ++i) cells[i].seq.store(2 * i, std::memory_order_relaxed);
  }
  ~State() {
    const std::uint64_t end = send_pos.load(std::memory_order_relaxed) & ~kClosedBit;
    for (std::uint64_t p = recv_pos.load(std::memory_order_relaxed); p < end; ++p)
      cells[p % capacity].value()->~T();
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  // Buffered: puts value in the next cell, without a lock.
  Push TryPush(T& value) {
    std::uint64_t pos = send_pos.load(std::memory_order_relaxed);
    for (;;) {
      if (pos & kClosedBit) return Push::kClosed;
      Cell& cell = cells[pos % capacity];
      const std::uint64_t seq = cell.seq.load(std::memory_order_acquire);
      if (seq == 2 * pos) {
        if (send_pos.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          ::new (static_cast<void*>(cell.storage)) T(std::move(value));
          cell.seq.store(2 * pos + 1, std::memory_order_release);
          return Push::kDone;
        }
      } else if (seq < 2 * pos) {
        return Push::kFull;  // the value of pos - capacity is still there (or being taken)
      } else {
        pos = send_pos.load(std::memory_order_relaxed);  // another sender took pos
      }
    }
  }
  // Buffered: the next value, without a lock; nullopt when none is published.
  std::optional<T> TryPop() {
    std::uint64_t pos = recv_pos.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells[pos % capacity];
      const std::uint64_t seq = cell.seq.load(std::memory_order_acquire);
      if (seq == 2 * pos + 1) {
        if (recv_pos.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          std::optional<T> v(std::move(*cell.value()));
          cell.value()->~T();
          cell.seq.store(2 * (pos + capacity), std::memory_order_release);
          return v;
        }
      } else if (seq < 2 * pos + 1) {
        return std::nullopt;  // empty, or its sender has claimed the cell but not filled it
      } else {
        pos = recv_pos.load(std::memory_order_relaxed);  // another receiver took pos
      }
    }
  }
  // Buffered: a value is published in the next cell.
  bool PublishedNow() const {
    const std::uint64_t pos = recv_pos.load(std::memory_order_acquire);
    return cells[pos % capacity].seq.load(std::memory_order_acquire) == 2 * pos + 1;
  }
  // Buffered: closed, and every value sent before the close taken.
  bool ClosedAndDrained() const {
    const std::uint64_t s = send_pos.load(std::memory_order_acquire);
    return (s & kClosedBit) && (s & ~kClosedBit) == recv_pos.load(std::memory_order_acquire);
  }
  // The seq_cst fence of the announce-then-look / publish-then-read pairs.
  // ThreadSanitizer does not model fences (GCC warns): under it a seq_cst
  // read-modify-write of the count stands in (it reads the latest count, and
  // synchronizes with the other side's), so TSan sees the order it checks.
  static void FenceOn(std::atomic<int>& count) {
#if defined(__SANITIZE_THREAD__)
    count.fetch_add(0, std::memory_order_seq_cst);
#else
    (void)count;
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  }
  // After a push: wakes a receiver that announced itself (see the file comment).
  void AfterPush() {
    FenceOn(recv_waiting);
    if (recv_waiting.load(std::memory_order_relaxed) == 0) return;
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mu);
      wake = ValueArrivedLocked();
    }
    if (wake) recv_cv.notify_one();
  }
  // After a pop: wakes a sender that announced itself.
  void AfterPop() {
    FenceOn(send_waiting);
    if (send_waiting.load(std::memory_order_relaxed) == 0) return;
    { std::lock_guard<std::mutex> lock(mu); }  // orders the wake after the sleeper's last look
    send_cv.notify_one();
  }
  // Before sleeping, a short spin: a value (or room) that comes within a few
  // microseconds saves the sleep and the other side's wake, two system calls
  // and two context switches. Each round yields the core, so a spinner never
  // keeps the thread it waits for from running.
  template <class Try>
  static bool SpinFor(Try&& attempt) {
    for (int round = 0; round < kSpinRounds; ++round) {
      if (attempt()) return true;
      std::this_thread::yield();
    }
    return false;
  }
  static constexpr int kSpinRounds = 20;

  // Requires mu; the caller looks again after it and before it sleeps.
  void Announce(std::atomic<int>& waiting) {
    waiting.fetch_add(1, std::memory_order_relaxed);
    FenceOn(waiting);
  }

  // Requires mu. Unbuffered: a parked offer's value.
  // Sets *wake_senders when a sender may now proceed (notify after unlocking).
  std::optional<T> TakeOfferLocked(bool* wake_senders) {
    if (offers.empty() || closed) return std::nullopt;
    Offer* o = offers.front();
    offers.pop_front();
    o->taken = true;
    std::optional<T> v(std::move(*o->value));
    *wake_senders = true;  // the sender of this offer sleeps on send_cv
    return v;
  }
  // Requires mu: true when a receiver would not block.
  bool RecvReadyLocked() const {
    if (capacity > 0) return PublishedNow() || ClosedAndDrained();
    return !offers.empty() || closed;
  }
  // Requires mu: a value or offer arrived; wakes Select receivers now (their
  // Waiters are only valid under mu), and says whether to wake a Recv.
  bool ValueArrivedLocked() {
    for (detail::Waiter* w : recv_waiters) w->Notify();
    recv_waiting.fetch_sub(static_cast<int>(recv_waiters.size()), std::memory_order_relaxed);
    recv_waiters.clear();  // a Select that must sleep again registers again
    return recv_sleepers > 0;
  }

  const std::size_t capacity;
  std::unique_ptr<Cell[]> cells;                       // buffered: capacity cells
  alignas(64) std::atomic<std::uint64_t> send_pos{0};  // next position to fill | kClosedBit
  alignas(64) std::atomic<std::uint64_t> recv_pos{0};  // next position to take
  // Changed under mu, read without it: sleeping receivers and registered
  // Select waiters; sleeping senders.
  alignas(64) std::atomic<int> recv_waiting{0};
  std::atomic<int> send_waiting{0};
  mutable std::mutex mu;
  std::condition_variable recv_cv;            // Recv callers waiting for a value
  std::condition_variable send_cv;            // Send callers waiting for space / a taker
  std::deque<Offer*> offers;                  // guarded by mu; unbuffered senders waiting
  std::vector<detail::Waiter*> recv_waiters;  // guarded by mu; Select receive cases
  int recv_sleepers = 0;                      // guarded by mu; threads in recv_cv.wait
  int send_sleepers = 0;                      // guarded by mu; threads in send_cv.wait
  std::atomic<bool> closed{false};            // set under mu; never reset
};

namespace detail {
// Wakes a channel's sleepers when ctx ends: registered with ctx's Done signal
// (outside the channel's lock) only once a call is about to sleep.
class DoneWaker {
 public:
  DoneWaker(const Context& ctx, std::mutex* mu, std::condition_variable* cv)
      : done_(ctx.Done()), waiter_(mu, cv) {}
  ~DoneWaker() {
    if (registered_) done_.Unregister(&waiter_);
  }
  DoneWaker(const DoneWaker&) = delete;
  DoneWaker& operator=(const DoneWaker&) = delete;
  // True if the caller must register before sleeping (it holds lock).
  bool NeedsRegistration() const { return !registered_ && done_.CanFire(); }
  // Registers with lock released, then re-takes it; the caller re-checks.
  void Register(std::unique_lock<std::mutex>& lock) {
    lock.unlock();
    registered_ = done_.Register(&waiter_);  // false: already done, the re-check sees it
    if (!registered_) done_ = Signal();      // nothing to unregister; never register again
    lock.lock();
  }

 private:
  Signal done_;
  Waiter waiter_;
  bool registered_ = false;
};
}  // namespace detail

template <class T>
Channel<T>::Channel(std::size_t capacity) : state_(std::make_shared<State>(capacity)) {}

template <class T>
Error Channel<T>::Send(const Context& ctx, T value) {
  using Push = typename State::Push;
  State& s = *state_;
  if (s.capacity > 0) {
    // A done context wins over a ready channel, so a sending loop always
    // observes cancellation.
    if (Error e = ctx.Err(); !e.ok()) return e;
    Push pushed = s.TryPush(value);
    if (pushed == Push::kFull)
      State::SpinFor([&] { return (pushed = s.TryPush(value)) != Push::kFull; });
    switch (pushed) {
      case Push::kDone:
        s.AfterPush();
        return Error();
      case Push::kClosed:
        return Error::Closed();
      case Push::kFull:
        break;
    }
    detail::DoneWaker waker(ctx, &s.mu, &s.send_cv);
    std::unique_lock<std::mutex> lock(s.mu);
    for (;;) {
      if (waker.NeedsRegistration()) waker.Register(lock);
      s.Announce(s.send_waiting);
      Error e = ctx.Err();
      Push pushed = e.ok() ? s.TryPush(value) : Push::kFull;
      if (e.ok() && pushed == Push::kFull) {
        ++s.send_sleepers;
        detail::BlockingRegion asleep;
        s.send_cv.wait(lock);
        --s.send_sleepers;
      }
      s.send_waiting.fetch_sub(1, std::memory_order_relaxed);
      if (!e.ok() || pushed == Push::kClosed) {
        // Leaving without sending: a wake meant for a sender may have been
        // ours, so pass it on while there is room.
        bool pass_on = s.send_sleepers > 0 &&
                       (s.send_pos.load(std::memory_order_relaxed) & ~State::kClosedBit) <
                           s.recv_pos.load(std::memory_order_relaxed) + s.capacity;
        lock.unlock();
        if (pass_on) s.send_cv.notify_one();
        return e.ok() ? Error::Closed() : e;
      }
      if (pushed == Push::kDone) {
        lock.unlock();
        s.AfterPush();
        return Error();
      }
    }
  }
  detail::DoneWaker waker(ctx, &s.mu, &s.send_cv);
  std::unique_lock<std::mutex> lock(s.mu);
  if (Error e = ctx.Err(); !e.ok()) return e;
  if (s.closed) return Error::Closed();
  typename State::Offer offer{&value};
  s.offers.push_back(&offer);
  if (s.ValueArrivedLocked()) s.recv_cv.notify_one();
  for (;;) {
    if (offer.taken) return Error();  // the receiver already dequeued it
    Error e = s.closed ? Error::Closed() : ctx.Err();
    if (!e.ok()) {
      s.offers.erase(std::find(s.offers.begin(), s.offers.end(), &offer));
      return e;
    }
    if (waker.NeedsRegistration()) {
      waker.Register(lock);
      continue;
    }
    ++s.send_sleepers;
    {
      detail::BlockingRegion asleep;
      s.send_cv.wait(lock);
    }
    --s.send_sleepers;
  }
}

template <class T>
std::optional<T> Channel<T>::Recv(const Context& ctx, Error* err) {
  State& s = *state_;
  if (s.capacity > 0) {
    if (Error e = ctx.Err(); !e.ok()) {
      if (err) *err = e;
      return std::nullopt;
    }
    std::optional<T> v = s.TryPop();
    if (!v) State::SpinFor([&] { return (v = s.TryPop()).has_value() || s.ClosedAndDrained(); });
    if (v) {
      s.AfterPop();
      if (err) *err = Error();
      return v;
    }
  }
  detail::DoneWaker waker(ctx, &s.mu, &s.recv_cv);
  std::unique_lock<std::mutex> lock(s.mu);
  Error result;
  for (;;) {
    if (waker.NeedsRegistration()) waker.Register(lock);
    s.Announce(s.recv_waiting);
    std::optional<T> v;
    bool wake_senders = false;
    if (Error e = ctx.Err(); !e.ok()) {
      result = e;
    } else if (s.capacity > 0) {
      v = s.TryPop();
      if (!v && s.ClosedAndDrained()) result = Error::Closed();
    } else {
      v = s.TakeOfferLocked(&wake_senders);
      if (!v && s.closed) result = Error::Closed();
    }
    if (!v && result.ok()) {
      ++s.recv_sleepers;
      detail::BlockingRegion asleep;
      s.recv_cv.wait(lock);
      --s.recv_sleepers;
    }
    s.recv_waiting.fetch_sub(1, std::memory_order_relaxed);
    if (v) {
      lock.unlock();
      if (s.capacity > 0) s.AfterPop();
      // Offers: several senders may sleep, only one of them is ours to wake.
      if (wake_senders) s.send_cv.notify_all();
      if (err) *err = Error();
      return v;
    }
    if (!result.ok()) break;
  }
  // Leaving without a value: if one is ready, another receiver may have been
  // woken for it in our place, so pass the wake-up on.
  bool pass_on = s.recv_sleepers > 0 && s.RecvReadyLocked();
  lock.unlock();
  if (pass_on) s.recv_cv.notify_one();
  if (err) *err = result;
  return std::nullopt;
}

template <class T>
std::optional<T> Channel<T>::Recv(const Context& ctx) {
  return Recv(ctx, nullptr);
}

template <class T>
std::optional<T> Channel<T>::TryRecv() {
  State& s = *state_;
  if (s.capacity > 0) {
    std::optional<T> v = s.TryPop();
    if (v) s.AfterPop();
    return v;
  }
  bool wake_senders = false;
  std::optional<T> v;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    v = s.TakeOfferLocked(&wake_senders);
  }
  if (wake_senders) s.send_cv.notify_all();
  return v;
}

template <class T>
void Channel<T>::Close(std::source_location loc) {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.closed) return;
    s.closed = true;
    s.send_pos.fetch_or(State::kClosedBit, std::memory_order_acq_rel);
    s.ValueArrivedLocked();  // Select receivers see the close
  }
  s.recv_cv.notify_all();
  s.send_cv.notify_all();
  detail::OnChannelClosed(state_.get(), loc);
}

template <class T>
bool Channel<T>::Closed() const {
  return state_->closed.load(std::memory_order_acquire);
}

template <class T>
std::size_t Channel<T>::capacity() const {
  return state_->capacity;
}

template <class T>
std::size_t Channel<T>::size() const {
  const State& s = *state_;
  if (s.capacity == 0) return 0;
  // A snapshot: taken positions first, so the difference is never negative.
  const std::uint64_t taken = s.recv_pos.load(std::memory_order_acquire);
  const std::uint64_t sent = s.send_pos.load(std::memory_order_acquire) & ~State::kClosedBit;
  return static_cast<std::size_t>(std::min<std::uint64_t>(sent - taken, s.capacity));
}

template <class T>
template <class F>
class Channel<T>::RecvCase final : public detail::SelectCase {
 public:
  RecvCase(const Channel& channel, F handler) : st_(channel.state_), handler_(std::move(handler)) {}

  bool TryReady() override {
    if (st_->capacity > 0) {
      if (auto v = st_->TryPop()) {
        st_->AfterPop();
        slot_.emplace(std::move(v));
        return true;
      }
      if (!st_->ClosedAndDrained()) return false;
      slot_.emplace(std::nullopt);
      return true;
    }
    bool wake_senders = false;
    bool ready = false;
    {
      std::lock_guard<std::mutex> lock(st_->mu);
      if (auto v = st_->TakeOfferLocked(&wake_senders)) {
        slot_.emplace(std::move(v));
        ready = true;
      } else if (st_->closed) {
        slot_.emplace(std::nullopt);
        ready = true;
      }
    }
    if (wake_senders) st_->send_cv.notify_all();
    return ready;
  }

  bool Attach(detail::Waiter* w) override {
    std::lock_guard<std::mutex> lock(st_->mu);
    st_->recv_waiters.push_back(w);
    st_->Announce(st_->recv_waiting);
    if (!st_->RecvReadyLocked()) return true;
    st_->recv_waiters.pop_back();
    st_->recv_waiting.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }

  void Detach(detail::Waiter* w) override {
    std::lock_guard<std::mutex> lock(st_->mu);
    auto it = std::find(st_->recv_waiters.begin(), st_->recv_waiters.end(), w);
    if (it == st_->recv_waiters.end()) return;  // notified (and removed) already
    st_->recv_waiters.erase(it);
    st_->recv_waiting.fetch_sub(1, std::memory_order_relaxed);
  }

  void Run() override { handler_(std::move(*slot_)); }

 private:
  std::shared_ptr<State> st_;
  std::optional<std::optional<T>> slot_;  // what TryReady took: a value, or nullopt (closed)
  F handler_;
};

}  // namespace tether
