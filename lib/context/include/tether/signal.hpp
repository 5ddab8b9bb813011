// tether::Signal — a one-shot event that can be waited on, alone or together
// with other sources, without polling.
//
// A Signal is a cheap copyable handle to shared state. It starts unfired;
// Fire() fires it once and for all and wakes every waiter. Context::Done()
// returns one. Waiting on several sources at once is tether::Select
// (select.hpp), which uses the Waiter registration below.
#pragma once

#include <chrono>
#include <memory>

namespace tether {

namespace detail {
class SignalState;
class Waiter;
struct SignalAccess;
}  // namespace detail

class Signal {
 public:
  // A signal that never fires (the Done() of Background()).
  Signal();
  // A fresh, unfired signal that can be fired.
  static Signal Make();

  // A poll: true once fired. The firing thread may still be inside Fire();
  // to destroy what owns the signal after seeing it fired, Wait() (which
  // returns at once then, and after Fire() is done with it), as Select does.
  bool Fired() const;
  // Blocks until fired.
  void Wait() const;
  // Blocks until fired or the deadline passes; returns Fired().
  bool WaitUntil(std::chrono::steady_clock::time_point deadline) const;
  template <class Rep, class Period>
  bool WaitFor(std::chrono::duration<Rep, Period> d) const {
    return WaitUntil(std::chrono::steady_clock::now() + d);
  }
  // Fires the signal (idempotent). Returns true for the call that fired it.
  bool Fire() const;
  // True if this signal can ever fire (false for the never-firing one).
  bool CanFire() const { return state_ != nullptr; }

  // For Select: register a waiter to be notified when fired. Returns false
  // (and does not register) if already fired.
  bool Register(detail::Waiter* w) const;
  void Unregister(detail::Waiter* w) const;

 private:
  friend struct detail::SignalAccess;  // context nodes embed their done signal
  explicit Signal(std::shared_ptr<detail::SignalState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::SignalState> state_;  // null: never fires
};

}  // namespace tether
