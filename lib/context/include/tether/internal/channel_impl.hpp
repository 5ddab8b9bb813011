// tether::Channel<T> implementation (included by channel.hpp; not a public API).
//
// One mutex guards the whole channel. Blocked Send/Recv calls sleep on the
// channel's own condition variables (send_cv, recv_cv), exactly like a
// textbook bounded queue. A context that can end wakes them through a
// detail::Waiter registered with its Done signal that targets the channel's
// mutex and condition variable. Select receive cases register their own
// Waiter in recv_waiters. Nothing polls.
//
// Lock order: a context's lock, then the channel's (a firing Done signal
// notifies the channel). So the channel never takes a context's lock while
// holding its own: it registers with Done signals outside its lock, and
// Context::Err() is lock-free.
//
// Unbuffered channels hand values over through offers: a sender parks an
// Offer (a pointer to its value) and sleeps until a receiver marks it taken.
// After Close() offers are never taken: their senders return Closed.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <utility>

namespace tether {

template <class T>
struct Channel<T>::State {
  struct Offer {
    T* value;
    bool taken = false;  // guarded by mu
  };

  explicit State(std::size_t cap) : capacity(cap) {}

  // Requires mu. A buffered value, or (open channel) a parked offer's value.
  // Sets *wake_senders when a sender may now proceed (notify after unlocking).
  std::optional<T> TakeLocked(bool* wake_senders) {
    if (!buffer.empty()) {
      std::optional<T> v(std::move(buffer.front()));
      buffer.pop_front();
      *wake_senders = send_sleepers > 0;
      return v;
    }
    if (!offers.empty() && !closed) {
      Offer* o = offers.front();
      offers.pop_front();
      o->taken = true;
      std::optional<T> v(std::move(*o->value));
      *wake_senders = true;  // the sender of this offer sleeps on send_cv
      return v;
    }
    return std::nullopt;
  }
  // Requires mu: true when a receiver would not block.
  bool RecvReadyLocked() const { return !buffer.empty() || !offers.empty() || closed; }
  // Requires mu: a value or offer arrived; wakes Select receivers now (their
  // Waiters are only valid under mu), and says whether to wake a Recv.
  bool ValueArrivedLocked() {
    for (detail::Waiter* w : recv_waiters) w->Notify();
    recv_waiters.clear();  // a Select that must sleep again registers again
    return recv_sleepers > 0;
  }

  const std::size_t capacity;
  mutable std::mutex mu;
  std::condition_variable recv_cv;            // Recv callers waiting for a value
  std::condition_variable send_cv;            // Send callers waiting for space / a taker
  std::deque<T> buffer;                       // guarded by mu; size() <= capacity
  std::deque<Offer*> offers;                  // guarded by mu; unbuffered senders waiting
  std::vector<detail::Waiter*> recv_waiters;  // guarded by mu; Select receive cases
  int recv_sleepers = 0;                      // guarded by mu; threads in recv_cv.wait
  int send_sleepers = 0;                      // guarded by mu; threads in send_cv.wait
  bool closed = false;                        // guarded by mu; never reset
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
  State& s = *state_;
  detail::DoneWaker waker(ctx, &s.mu, &s.send_cv);
  std::unique_lock<std::mutex> lock(s.mu);
  if (s.capacity > 0) {
    for (;;) {
      // A done context wins over a ready channel, so a sending loop always
      // observes cancellation.
      if (Error e = ctx.Err(); !e.ok()) return e;
      if (s.closed) return Error::Closed();
      if (s.buffer.size() < s.capacity) {
        s.buffer.push_back(std::move(value));
        bool wake = s.ValueArrivedLocked();
        lock.unlock();
        if (wake) s.recv_cv.notify_one();
        return Error();
      }
      if (waker.NeedsRegistration()) {
        waker.Register(lock);
        continue;
      }
      ++s.send_sleepers;
      s.send_cv.wait(lock);
      --s.send_sleepers;
    }
  }
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
    s.send_cv.wait(lock);
    --s.send_sleepers;
  }
}

template <class T>
std::optional<T> Channel<T>::Recv(const Context& ctx, Error* err) {
  State& s = *state_;
  detail::DoneWaker waker(ctx, &s.mu, &s.recv_cv);
  std::unique_lock<std::mutex> lock(s.mu);
  Error result;
  for (;;) {
    if (Error e = ctx.Err(); !e.ok()) {
      result = e;
      break;
    }
    bool wake_senders = false;
    if (auto v = s.TakeLocked(&wake_senders)) {
      lock.unlock();
      // Offers: several senders may sleep, only one of them is ours to wake.
      if (wake_senders) s.send_cv.notify_all();
      if (err) *err = Error();
      return v;
    }
    if (s.closed) {
      result = Error::Closed();
      break;
    }
    if (waker.NeedsRegistration()) {
      waker.Register(lock);
      continue;
    }
    ++s.recv_sleepers;
    s.recv_cv.wait(lock);
    --s.recv_sleepers;
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
  bool wake_senders = false;
  std::optional<T> v;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    v = s.TakeLocked(&wake_senders);
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
    s.ValueArrivedLocked();  // Select receivers see the close
  }
  s.recv_cv.notify_all();
  s.send_cv.notify_all();
  detail::OnChannelClosed(state_.get(), loc);
}

template <class T>
bool Channel<T>::Closed() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->closed;
}

template <class T>
std::size_t Channel<T>::capacity() const {
  return state_->capacity;
}

template <class T>
std::size_t Channel<T>::size() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->buffer.size();
}

template <class T>
template <class F>
detail::SelectCase Channel<T>::MakeRecvCase(F handler) {
  // slot holds what try_ready took: a value, or an empty optional (closed).
  auto slot = std::make_shared<std::optional<std::optional<T>>>();
  std::shared_ptr<State> st = state_;
  detail::SelectCase c;
  c.try_ready = [st, slot] {
    bool wake_senders = false;
    bool ready = false;
    {
      std::lock_guard<std::mutex> lock(st->mu);
      if (auto v = st->TakeLocked(&wake_senders)) {
        slot->emplace(std::move(v));
        ready = true;
      } else if (st->closed) {
        slot->emplace(std::nullopt);
        ready = true;
      }
    }
    if (wake_senders) st->send_cv.notify_all();
    return ready;
  };
  c.attach = [st](detail::Waiter* w) {
    std::lock_guard<std::mutex> lock(st->mu);
    if (st->RecvReadyLocked()) return false;
    st->recv_waiters.push_back(w);
    return true;
  };
  c.detach = [st](detail::Waiter* w) {
    std::lock_guard<std::mutex> lock(st->mu);
    auto it = std::find(st->recv_waiters.begin(), st->recv_waiters.end(), w);
    if (it != st->recv_waiters.end()) st->recv_waiters.erase(it);
  };
  c.run = [slot, handler = std::move(handler)]() mutable { handler(std::move(**slot)); };
  return c;
}

}  // namespace tether
