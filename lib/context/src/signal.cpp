// tether::Signal: a handle over SignalState; the null state never fires.
#include "tether/signal.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

#include "signal_state.hpp"

namespace tether {

Signal::Signal() = default;

Signal Signal::Make() { return Signal(std::make_shared<detail::SignalState>()); }

bool Signal::Fired() const { return state_ && state_->Fired(); }

void Signal::Wait() const {
  if (state_) {
    state_->Wait();
    return;
  }
  // The never-firing signal: block forever, like receiving from Go's nil
  // channel (no polling: nobody ever notifies this condition variable).
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [] { return false; });
}

bool Signal::WaitUntil(std::chrono::steady_clock::time_point deadline) const {
  if (state_) return state_->WaitUntil(deadline);
  std::this_thread::sleep_until(deadline);
  return false;
}

bool Signal::Fire() const { return state_ && state_->Fire(); }

bool Signal::Register(detail::Waiter* w) const {
  // The never-firing signal accepts the registration and never notifies.
  return state_ ? state_->Register(w) : true;
}

void Signal::Unregister(detail::Waiter* w) const {
  if (state_) state_->Unregister(w);
}

}  // namespace tether
