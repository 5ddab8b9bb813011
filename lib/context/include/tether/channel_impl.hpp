// tether::Channel<T> implementation (included by channel.hpp; not a public API).
//
// One mutex guards the whole channel. Blocked senders and receivers, and
// Selects with a receive case, wait on their own detail::Waiter, registered
// in recv_waiters/send_waiters (and with the context's Done signal), so a
// wake-up comes from whichever happens first: the channel changed or the
// context ended. Nothing polls.
//
// Unbuffered channels hand values over through offers: a sender parks an
// Offer (a pointer to its value) and sleeps until a receiver marks it taken.
// After Close() offers are never taken: their senders return Closed.
#pragma once

#include <algorithm>
#include <utility>

namespace tether {

template <class T>
struct Channel<T>::State {
  struct Offer {
    T* value;
    detail::Waiter* sender;
    bool taken = false;  // guarded by mu
  };

  explicit State(std::size_t cap) : capacity(cap) {}

  // Requires mu. A buffered value, or (open channel) a parked offer's value.
  std::optional<T> TakeLocked() {
    if (!buffer.empty()) {
      std::optional<T> v(std::move(buffer.front()));
      buffer.pop_front();
      NotifyAll(send_waiters);
      return v;
    }
    if (!offers.empty() && !closed) {
      Offer* o = offers.front();
      offers.pop_front();
      o->taken = true;
      std::optional<T> v(std::move(*o->value));
      o->sender->Notify();
      return v;
    }
    return std::nullopt;
  }
  // Requires mu: true when a receiver would not block.
  bool RecvReadyLocked() const { return !buffer.empty() || !offers.empty() || closed; }

  static void NotifyAll(const std::vector<detail::Waiter*>& ws) {
    for (detail::Waiter* w : ws) w->Notify();
  }
  static void Remove(std::vector<detail::Waiter*>& ws, detail::Waiter* w) {
    auto it = std::find(ws.begin(), ws.end(), w);
    if (it != ws.end()) ws.erase(it);
  }

  const std::size_t capacity;
  mutable std::mutex mu;
  std::deque<T> buffer;                       // guarded by mu; size() <= capacity
  std::deque<Offer*> offers;                  // guarded by mu; unbuffered senders waiting
  std::vector<detail::Waiter*> recv_waiters;  // guarded by mu; woken on value/offer/close
  std::vector<detail::Waiter*> send_waiters;  // guarded by mu; woken on space/close
  bool closed = false;                        // guarded by mu; never reset
};

namespace detail {
// A Waiter registered with a channel list (under the channel's mutex) and
// with a context's Done signal; unregisters from both on scope exit, the
// caller holding the channel's mutex.
class ChannelWait {
 public:
  ChannelWait(std::vector<Waiter*>& list, const Context& ctx) : list_(list), done_(ctx.Done()) {}
  ~ChannelWait() {
    if (registered_) {
      auto it = std::find(list_.begin(), list_.end(), &waiter_);
      if (it != list_.end()) list_.erase(it);
      done_.Unregister(&waiter_);
    }
  }
  ChannelWait(const ChannelWait&) = delete;
  ChannelWait& operator=(const ChannelWait&) = delete;
  Waiter* waiter() { return &waiter_; }
  // Registers (once) and sleeps until notified; lock is released meanwhile.
  void Sleep(std::unique_lock<std::mutex>& lock) {
    if (!registered_) {
      registered_ = true;
      list_.push_back(&waiter_);
      if (!done_.Register(&waiter_)) return;  // ctx already done: look again
    }
    lock.unlock();
    waiter_.WaitUntil(std::nullopt);
    lock.lock();
  }

 private:
  std::vector<Waiter*>& list_;
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
  std::unique_lock<std::mutex> lock(s.mu);
  detail::ChannelWait wait(s.send_waiters, ctx);
  if (s.capacity > 0) {
    for (;;) {
      // A done context wins over a ready channel, so a sending loop always
      // observes cancellation.
      if (Error e = ctx.Err(); !e.ok()) return e;
      if (s.closed) return Error::Closed();
      if (s.buffer.size() < s.capacity) {
        s.buffer.push_back(std::move(value));
        State::NotifyAll(s.recv_waiters);
        return Error();
      }
      wait.Sleep(lock);
    }
  }
  if (Error e = ctx.Err(); !e.ok()) return e;
  if (s.closed) return Error::Closed();
  typename State::Offer offer{&value, wait.waiter()};
  s.offers.push_back(&offer);
  State::NotifyAll(s.recv_waiters);
  for (;;) {
    if (offer.taken) return Error();  // the receiver already dequeued it
    Error e = s.closed ? Error::Closed() : ctx.Err();
    if (!e.ok()) {
      s.offers.erase(std::find(s.offers.begin(), s.offers.end(), &offer));
      return e;
    }
    wait.Sleep(lock);
  }
}

template <class T>
std::optional<T> Channel<T>::Recv(const Context& ctx, Error* err) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  detail::ChannelWait wait(s.recv_waiters, ctx);
  for (;;) {
    if (Error e = ctx.Err(); !e.ok()) {
      if (err) *err = e;
      return std::nullopt;
    }
    if (auto v = s.TakeLocked()) {
      if (err) *err = Error();
      return v;
    }
    if (s.closed) {
      if (err) *err = Error::Closed();
      return std::nullopt;
    }
    wait.Sleep(lock);
  }
}

template <class T>
std::optional<T> Channel<T>::Recv(const Context& ctx) {
  return Recv(ctx, nullptr);
}

template <class T>
std::optional<T> Channel<T>::TryRecv() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->TakeLocked();
}

template <class T>
void Channel<T>::Close(std::source_location loc) {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->closed) return;
    state_->closed = true;
    State::NotifyAll(state_->recv_waiters);
    State::NotifyAll(state_->send_waiters);
    for (auto* o : state_->offers) o->sender->Notify();
  }
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
    std::lock_guard<std::mutex> lock(st->mu);
    if (auto v = st->TakeLocked()) {
      slot->emplace(std::move(v));
      return true;
    }
    if (st->closed) {
      slot->emplace(std::nullopt);
      return true;
    }
    return false;
  };
  c.attach = [st](detail::Waiter* w) {
    std::lock_guard<std::mutex> lock(st->mu);
    if (st->RecvReadyLocked()) return false;
    st->recv_waiters.push_back(w);
    return true;
  };
  c.detach = [st](detail::Waiter* w) {
    std::lock_guard<std::mutex> lock(st->mu);
    State::Remove(st->recv_waiters, w);
  };
  c.run = [slot, handler = std::move(handler)]() mutable { handler(std::move(**slot)); };
  return c;
}

}  // namespace tether
