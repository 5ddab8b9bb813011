// The interruptible waits a thread is most often found in (a sleep, poll,
// select, epoll_wait, pause, sigwait), interposed so that asking a thread in one where it runs
// (running_stacks.cpp) changes nothing the program sees: a handled signal
// ends these calls with EINTR whatever SA_RESTART says (signal(7)), so the
// wrapper takes the EINTR the asking caused and goes on with the rest of the
// wait; an EINTR from any other signal is the program's, returned as it
// was. Without them, a thread in such a call was not asked, and its zombie
// or leak had no "running at".
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>

#include "interpose.hpp"
#include "running_stacks.hpp"

namespace {

using tether::threads::NextDefinition;
using tether::threads::QuietCall;

using Clock = std::chrono::steady_clock;

// What is left of a wait of timeout_ms (negative: no bound) begun at start.
int RemainingMs(int timeout_ms, Clock::time_point start) {
  if (timeout_ms < 0) return timeout_ms;
  const auto left = std::chrono::milliseconds(timeout_ms) - (Clock::now() - start);
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return ms <= 0 ? 0 : static_cast<int>(ms);
}

// The same for a relative timespec (null: no bound), into *left.
const timespec* Remaining(const timespec* timeout, Clock::time_point start, timespec* left) {
  if (timeout == nullptr) return nullptr;
  const auto total =
      std::chrono::seconds(timeout->tv_sec) + std::chrono::nanoseconds(timeout->tv_nsec);
  auto rest = std::chrono::duration_cast<std::chrono::nanoseconds>(total - (Clock::now() - start));
  if (rest.count() < 0) rest = std::chrono::nanoseconds(0);
  left->tv_sec = static_cast<time_t>(rest.count() / 1'000'000'000);
  left->tv_nsec = static_cast<long>(rest.count() % 1'000'000'000);
  return left;
}

// The same for a timeval, from a copy of the whole wait.
timeval RemainingTimeval(const timeval& total, Clock::time_point start) {
  const auto whole = std::chrono::seconds(total.tv_sec) + std::chrono::microseconds(total.tv_usec);
  auto rest = std::chrono::duration_cast<std::chrono::microseconds>(whole - (Clock::now() - start));
  if (rest.count() < 0) rest = std::chrono::microseconds(0);
  timeval left{};
  left.tv_sec = static_cast<time_t>(rest.count() / 1'000'000);
  left.tv_usec = static_cast<suseconds_t>(rest.count() % 1'000'000);
  return left;
}

// The wait of a call that fails with -1 and EINTR when a handled signal
// cuts it short: made again (wait() computes what is left of it) while the
// EINTR was the asking's; returns what the call returned otherwise.
template <typename Wait>
int WaitAgainWhileAsked(Wait wait) {
  QuietCall quiet;
  for (;;) {
    const int rc = wait();
    if (rc >= 0 || errno != EINTR || !quiet.AskedMeanwhile()) return rc;
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int nanosleep(const timespec* req, timespec* rem) {
  static const auto real = NextDefinition<int (*)(const timespec*, timespec*)>("nanosleep");
  QuietCall quiet;
  timespec left{};
  for (;;) {
    const int rc = real(req, &left);
    if (rc == 0 || errno != EINTR || !quiet.AskedMeanwhile()) {
      if (rc != 0 && rem != nullptr) *rem = left;
      return rc;
    }
    req = &left;  // the kernel wrote what was left of the sleep
  }
}

__attribute__((visibility("default"))) int clock_nanosleep(clockid_t clock, int flags,
                                                           const timespec* req, timespec* rem) {
  static const auto real =
      NextDefinition<int (*)(clockid_t, int, const timespec*, timespec*)>("clock_nanosleep");
  QuietCall quiet;
  timespec left{};
  for (;;) {
    // Returns the error (not -1 and errno).
    const int rc = real(clock, flags, req, (flags & TIMER_ABSTIME) != 0 ? nullptr : &left);
    if (rc != EINTR || !quiet.AskedMeanwhile()) {
      if (rc == EINTR && rem != nullptr && (flags & TIMER_ABSTIME) == 0) *rem = left;
      return rc;
    }
    if ((flags & TIMER_ABSTIME) == 0) req = &left;  // an absolute end stays
  }
}

__attribute__((visibility("default"))) unsigned int sleep(unsigned int seconds) {
  static const auto real = NextDefinition<unsigned int (*)(unsigned int)>("sleep");
  QuietCall quiet;
  for (;;) {
    const unsigned int left = real(seconds);
    if (left == 0 || !quiet.AskedMeanwhile()) return left;
    seconds = left;
  }
}

__attribute__((visibility("default"))) int usleep(useconds_t usec) {
  static const auto real = NextDefinition<int (*)(useconds_t)>("usleep");
  QuietCall quiet;
  const auto end = Clock::now() + std::chrono::microseconds(usec);
  for (;;) {
    const int rc = real(usec);
    if (rc == 0 || errno != EINTR || !quiet.AskedMeanwhile()) return rc;
    const auto left = std::chrono::ceil<std::chrono::microseconds>(end - Clock::now()).count();
    if (left <= 0) return 0;
    usec = static_cast<useconds_t>(left);
  }
}

__attribute__((visibility("default"))) int poll(pollfd* fds, nfds_t count, int timeout_ms) {
  static const auto real = NextDefinition<int (*)(pollfd*, nfds_t, int)>("poll");
  const auto start = timeout_ms > 0 ? Clock::now() : Clock::time_point{};
  return WaitAgainWhileAsked([&] { return real(fds, count, RemainingMs(timeout_ms, start)); });
}

__attribute__((visibility("default"))) int ppoll(pollfd* fds, nfds_t count, const timespec* timeout,
                                                 const sigset_t* mask) {
  static const auto real =
      NextDefinition<int (*)(pollfd*, nfds_t, const timespec*, const sigset_t*)>("ppoll");
  const auto start = timeout != nullptr ? Clock::now() : Clock::time_point{};
  timespec left{};
  return WaitAgainWhileAsked(
      [&] { return real(fds, count, Remaining(timeout, start, &left), mask); });
}

// select(2) leaves the sets as they were when it fails, so the asked wait
// is made again with them; the timeout (which Linux lowers by the time
// waited, and leaves undefined on an error) is what was left of the whole.
__attribute__((visibility("default"))) int select(int count, fd_set* read_fds, fd_set* write_fds,
                                                  fd_set* except_fds, timeval* timeout) {
  static const auto real =
      NextDefinition<int (*)(int, fd_set*, fd_set*, fd_set*, timeval*)>("select");
  QuietCall quiet;
  const auto start = timeout != nullptr ? Clock::now() : Clock::time_point{};
  const timeval total = timeout != nullptr ? *timeout : timeval{};
  for (;;) {
    const int rc = real(count, read_fds, write_fds, except_fds, timeout);
    if (rc >= 0 || errno != EINTR || !quiet.AskedMeanwhile()) return rc;
    if (timeout != nullptr) *timeout = RemainingTimeval(total, start);
  }
}

__attribute__((visibility("default"))) int pselect(int count, fd_set* read_fds, fd_set* write_fds,
                                                   fd_set* except_fds, const timespec* timeout,
                                                   const sigset_t* mask) {
  static const auto real =
      NextDefinition<int (*)(int, fd_set*, fd_set*, fd_set*, const timespec*, const sigset_t*)>(
          "pselect");
  const auto start = timeout != nullptr ? Clock::now() : Clock::time_point{};
  timespec left{};
  return WaitAgainWhileAsked([&] {
    return real(count, read_fds, write_fds, except_fds, Remaining(timeout, start, &left), mask);
  });
}

__attribute__((visibility("default"))) int epoll_wait(int epfd, epoll_event* events, int max,
                                                      int timeout_ms) {
  static const auto real = NextDefinition<int (*)(int, epoll_event*, int, int)>("epoll_wait");
  const auto start = timeout_ms > 0 ? Clock::now() : Clock::time_point{};
  return WaitAgainWhileAsked(
      [&] { return real(epfd, events, max, RemainingMs(timeout_ms, start)); });
}

__attribute__((visibility("default"))) int epoll_pwait(int epfd, epoll_event* events, int max,
                                                       int timeout_ms, const sigset_t* mask) {
  static const auto real =
      NextDefinition<int (*)(int, epoll_event*, int, int, const sigset_t*)>("epoll_pwait");
  const auto start = timeout_ms > 0 ? Clock::now() : Clock::time_point{};
  return WaitAgainWhileAsked(
      [&] { return real(epfd, events, max, RemainingMs(timeout_ms, start), mask); });
}

// pause() returns only when a handled signal arrives: the asking's is not
// one the program waits for.
__attribute__((visibility("default"))) int pause() {
  static const auto real = NextDefinition<int (*)()>("pause");
  QuietCall quiet;
  for (;;) {
    const int rc = real();
    if (errno != EINTR || !quiet.AskedMeanwhile()) return rc;
  }
}

// The sigwait family: a thread waits for signals it blocks, and the asking's
// signal (never one it waits for: a thread that blocks it is not asked)
// ends sigwaitinfo and sigtimedwait with EINTR. sigwait goes on by itself
// (glibc retries it); it is wrapped so that a thread in it is asked.
__attribute__((visibility("default"))) int sigwait(const sigset_t* set, int* sig) {
  static const auto real = NextDefinition<int (*)(const sigset_t*, int*)>("sigwait");
  QuietCall quiet;
  return real(set, sig);
}

__attribute__((visibility("default"))) int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  static const auto real = NextDefinition<int (*)(const sigset_t*, siginfo_t*)>("sigwaitinfo");
  return WaitAgainWhileAsked([&] { return real(set, info); });
}

__attribute__((visibility("default"))) int sigtimedwait(const sigset_t* set, siginfo_t* info,
                                                        const timespec* timeout) {
  static const auto real =
      NextDefinition<int (*)(const sigset_t*, siginfo_t*, const timespec*)>("sigtimedwait");
  const auto start = timeout != nullptr ? Clock::now() : Clock::time_point{};
  timespec left{};
  return WaitAgainWhileAsked([&] { return real(set, info, Remaining(timeout, start, &left)); });
}

}  // extern "C"
