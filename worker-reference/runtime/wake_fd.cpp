#include "runtime/wake_fd.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace tether::worker::runtime {

ContextWakeFd::ContextWakeFd(const Context& ctx) : done_(ctx.Done()) {
  if (!done_.CanFire()) return;
  fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd_ < 0) return;
  waiter_ = std::make_unique<detail::Waiter>(&ContextWakeFd::Wake, &fd_);
  if (!done_.Register(waiter_.get())) {
    waiter_.reset();  // already done: readable from the start
    Wake(&fd_);
  }
}

ContextWakeFd::~ContextWakeFd() {
  // After Unregister returns the cancel no longer reaches fd_ (it notifies
  // under the signal's lock, which Unregister takes).
  if (waiter_) done_.Unregister(waiter_.get());
  if (fd_ >= 0) ::close(fd_);
}

void ContextWakeFd::Wake(void* fd) {
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(*static_cast<int*>(fd), &one, sizeof one);
}

WakeFlag::WakeFlag() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

WakeFlag::~WakeFlag() {
  if (fd_ >= 0) ::close(fd_);
}

void WakeFlag::Fire() {
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(fd_, &one, sizeof one);  // never read: stays readable
}

bool WakeFlag::fired() const {
  pollfd pfd{fd_, POLLIN, 0};
  return ::poll(&pfd, 1, 0) == 1;
}

PollResult PollWithContext(const Context& ctx, const int* fds, int n, int timeout_ms) {
  PollResult result;
  if (Error err = ctx.Err(); !err.ok()) {
    result.err = err;
    return result;
  }
  // A deadline is waited for by poll's own timer, not by a wake-up from
  // libtether's timer thread through an AfterFunc thread: one hand-off less
  // between the deadline and the caller's reaction (cancel latency).
  bool deadline_wins = false;
  if (std::optional<TimePoint> deadline = ctx.Deadline()) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
    if (left < 0) left = 0;
    if (timeout_ms < 0 || left < timeout_ms) {
      timeout_ms = static_cast<int>(std::min<long long>(left, 1LL << 30));
      deadline_wins = true;
    }
  }
  ContextWakeFd wake(ctx);
  pollfd pfds[5];
  for (int i = 0; i < n; ++i) pfds[i] = {fds[i], POLLIN, 0};
  pfds[n] = {wake.fd(), POLLIN, 0};
  for (;;) {
    int rc = ::poll(pfds, static_cast<nfds_t>(n + 1), timeout_ms);
    if (rc < 0) {
      if (errno == EINTR) continue;
      result.err = Error(ErrorCode::kIo, std::string("poll: ") + std::strerror(errno));
      return result;
    }
    if (rc == 0) {
      if (deadline_wins) {
        // ctx's deadline has passed: its timer is firing now; wait for it so
        // that ctx.Err() is set when the caller looks.
        ctx.Done().Wait();
        result.err = ctx.Err();
        return result;
      }
      result.err = Error::DeadlineExceeded();
      return result;
    }
    bool any = false;
    for (int i = 0; i < n; ++i) {
      if (pfds[i].revents != 0) {
        result.ready[i] = true;
        any = true;
      }
    }
    if (any) return result;
    if (pfds[n].revents != 0) {
      result.err = ctx.Err().ok() ? Error::Canceled() : ctx.Err();
      return result;
    }
  }
}

}  // namespace tether::worker::runtime
