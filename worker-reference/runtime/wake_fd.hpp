// ContextWakeFd: a file descriptor that becomes readable once a context is
// done, so that a poll(2) on pipes, pidfds or signalfds also waits on the
// context (no busy polling, no wait that ignores cancellation).
#pragma once

#include <memory>

#include "tether/context.hpp"
#include "tether/select.hpp"

namespace tether::worker::runtime {

class ContextWakeFd {
 public:
  // fd() is -1 (which poll ignores) when ctx can never be done.
  explicit ContextWakeFd(const Context& ctx);
  ~ContextWakeFd();
  ContextWakeFd(const ContextWakeFd&) = delete;
  ContextWakeFd& operator=(const ContextWakeFd&) = delete;

  int fd() const { return fd_; }

 private:
  // The eventfd is written by the thread that cancels the context, inside
  // its cancel (a waiter on ctx.Done(), as Select registers one): no
  // AfterFunc task that could still be running when the context's scope
  // ends (a zombie of the build, which `tether trace` reported), and one
  // hand-off less between the cancel and the poll's wake-up.
  static void Wake(void* fd);

  Signal done_;
  int fd_ = -1;
  std::unique_ptr<detail::Waiter> waiter_;  // registered on done_ while this lives
};

// A one-shot flag that a poll(2) can wait on: fd() becomes readable (for
// good) once Fire ran. Fire is thread-safe and idempotent.
class WakeFlag {
 public:
  WakeFlag();
  ~WakeFlag();
  WakeFlag(const WakeFlag&) = delete;
  WakeFlag& operator=(const WakeFlag&) = delete;
  void Fire();
  bool fired() const;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// Polls fds[0..n) for POLLIN together with ctx. Returns ok when one of them is
// readable, ctx.Err() when ctx is done first, DeadlineExceeded when timeout_ms
// (>= 0) passed. timeout_ms < 0 waits without a timer.
struct PollResult {
  Error err;
  bool ready[4] = {false, false, false, false};
};
PollResult PollWithContext(const Context& ctx, const int* fds, int n, int timeout_ms);

}  // namespace tether::worker::runtime
