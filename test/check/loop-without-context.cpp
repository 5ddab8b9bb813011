// REQUIRES: checker
// RUN: %check_tether %s tether-loop-without-context %t --implicit-check-not=note: -- --model builtin:libtether --model builtin:std-stop-token
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include <tether/context.hpp>
#include <sys/wait.h>

using namespace std::chrono_literals;
bool TryOnce();
bool Attempt(const tether::Context& ctx);
// client-go's wait: the context-less one and its sibling.
bool Poll(int step);
bool PollWithContext(const tether::Context& ctx, int step);
struct Inbox {
  std::optional<int> Recv();  // blocks until a message arrives
};

// The hand-written ExponentialBackoff: retries forever, sleeping, never
// looking at ctx.
void Backoff(const tether::Context& ctx) {
  auto delay = 10ms;
  while (!TryOnce()) {
    std::this_thread::sleep_for(delay);
    // CHECK: :[[@LINE-1]]:23: warning: blocking call in a loop that never reads context 'ctx': 'std::this_thread::sleep_for' blocks without a context, and the loop has no bound; it keeps running after 'ctx' is cancelled [tether-loop-without-context]
    // CHECK: :[[@LINE-3]]:3: note: this loop has no constant bound and does not check 'ctx' (read ctx.Err() or pass 'ctx' to the blocking call)
    delay *= 2;
  }
}

// The context-less sibling of a X/XWithContext pair, in a poll loop.
void WaitReady(const tether::Context& ctx) {
  for (int step = 0;; ++step) {
    if (Poll(step)) break;
    // CHECK: :[[@LINE-1]]:9: warning: blocking call in a loop that never reads context 'ctx': 'Poll' ignores the context; its sibling 'PollWithContext' takes one, and the loop has no bound
    // CHECK: :[[@LINE-3]]:3: note: this loop has no constant bound
  }
}

// Recv without a context, in a loop bounded by a variable (not a constant),
// with a derived local context.
void Drain(const tether::Context& parent, Inbox& inbox, int n) {
  auto [ctx, cancel] = tether::WithTimeout(parent, 5s);
  for (int i = 0; i < n; ++i) {
    inbox.Recv();
    // CHECK: :[[@LINE-1]]:11: warning: blocking call in a loop that never reads context 'parent': 'Inbox::Recv' blocks without a context
    // CHECK: :[[@LINE-3]]:3: note: this loop has no constant bound
  }
  cancel();
}

// A condition-variable wait in a lambda that captured a context.
void Waiter(tether::Context ctx, std::mutex& mu, std::condition_variable& cv, const bool& ready) {
  auto wait = [ctx, &mu, &cv, &ready] {
    std::unique_lock lock(mu);
    do {
      cv.wait_for(lock, 1s);
      // CHECK: :[[@LINE-1]]:10: warning: blocking call in a loop that never reads context 'ctx': 'std::condition_variable::wait_for' blocks without a context
      // CHECK: :[[@LINE-3]]:5: note: this loop has no constant bound
    } while (!ready);
  };
  wait();
}

// The blocking call initialises a variable (Vela's WaitContainer:
// `result := <-podWatch.ResultChan()` in a `for {}`).
void Watch(const tether::Context& ctx, Inbox& events) {
  for (;;) {
    std::optional<int> ev = events.Recv();
    // CHECK: :[[@LINE-1]]:36: warning: blocking call in a loop that never reads context 'ctx': 'Inbox::Recv' blocks without a context
    // CHECK: :[[@LINE-3]]:3: note: this loop has no constant bound
    if (!ev) return;
  }
}

// ---- Not findings -------------------------------------------------------

// Reads the context in the loop condition.
void ChecksErr(const tether::Context& ctx) {
  while (ctx.Err().ok() && !TryOnce()) std::this_thread::sleep_for(10ms);
}

// Passes the context to the blocking call.
void Sibling(const tether::Context& ctx) {
  for (int step = 0;; ++step)
    if (PollWithContext(ctx, step)) break;
}

// Reads the context in the body.
void BodyChecks(const tether::Context& ctx) {
  for (;;) {
    if (!ctx.Err().ok()) return;
    if (Attempt(ctx)) return;
    std::this_thread::sleep_for(10ms);
  }
}

// Bounded: a constant trip count, a counter compared to a constant.
constexpr int kAttempts = 5;
void Bounded(const tether::Context& ctx) {
  for (int i = 0; i < 3; ++i) std::this_thread::sleep_for(1ms);
  int attempts = 0;
  while (attempts < kAttempts) {
    if (TryOnce()) break;
    std::this_thread::sleep_for(1ms);
    ++attempts;
  }
  int tries = 0;
  do {
    std::this_thread::sleep_for(1ms);
  } while (tries++ < 4);
  (void)ctx;
}

// No context in the function.
void NoContext() {
  while (!TryOnce()) std::this_thread::sleep_for(10ms);
}

// A blocking call outside any loop.
void Once(const tether::Context& ctx) {
  std::this_thread::sleep_for(1ms);
  (void)ctx;
}

// ---- The may-block summary: blocking through the project's own functions.
#include <unistd.h>
#include <fcntl.h>
namespace summary {
// Two calls down to the primitive, all in this TU.
long Fill(int fd, char* buf, unsigned n) { return ::read(fd, buf, n); }
bool ForwardChunk(int from, int to) {
  char buf[256];
  long n = Fill(from, buf, sizeof buf);
  return n > 0 && ::write(to, buf, n) == n;
}
void Relay(const tether::Context& ctx, int from, int to) {
  while (ForwardChunk(from, to)) {
    // CHECK: :[[@LINE-1]]:10: warning: blocking call in a loop that never reads context 'ctx': 'summary::ForwardChunk' blocks without a context (summary::ForwardChunk -> summary::Fill -> ::read)
    // CHECK: :[[@LINE-2]]:3: note: this loop has no constant bound
    // CHECK: :[[@LINE-10]]:51: note: '::read' blocks without a context
  }
}
// A wait helper around a condition variable, in a do/while.
class Mailbox {
 public:
  void AwaitLetter() {
    std::unique_lock<std::mutex> lock(mu_);
    while (letters_ == 0) cv_.wait(lock);
    --letters_;
  }
 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int letters_ = 0;
};
void Sorter(const tether::Context& ctx, Mailbox& box, const bool& open) {
  do {
    box.AwaitLetter();
    // CHECK: :[[@LINE-1]]:9: warning: blocking call in a loop that never reads context 'ctx': 'summary::Mailbox::AwaitLetter' blocks without a context (summary::Mailbox::AwaitLetter -> std::condition_variable::wait)
    // CHECK: :[[@LINE-3]]:3: note: this loop has no constant bound
    // CHECK: :[[@LINE-13]]:27: note: 'std::condition_variable::wait' blocks without a context
  } while (open);
}
// Not blocking: a read on a descriptor made non-blocking drains what is there.
void DrainWakeups(const tether::Context& ctx, int events) {
  int fds[2];
  if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) return;
  char byte;
  while (::read(fds[0], &byte, 1) == 1) {
  }
  (void)events;
}
// Not blocking either: waitpid with WNOHANG.
void Reap(const tether::Context& ctx, int pid) {
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (ctx.Err().ok()) continue;
    break;
  }
}
// A constant bound in a conjunction bounds the loop.
void Settle(const tether::Context& ctx, const bool& calm) {
  for (int tries = 0; !calm && tries < 20; ++tries) std::this_thread::sleep_for(5ms);
}
// The token belongs to the task, not to the function: the loop is the
// function's own (it has no context), the task's loop reads its token.
void Supervise(int& beats) {
  std::jthread worker([&beats](std::stop_token st) {
    while (!st.stop_requested()) ++beats;
  });
  while (beats < 3) std::this_thread::sleep_for(1ms);
}
// The function stops its own thread: its token is the function's to stop.
void Run(int& beats) {
  std::jthread t([&beats] { ++beats; });
  std::stop_token mine = t.get_stop_token();
  while (beats < 1) std::this_thread::sleep_for(1ms);
  t.request_stop();
  (void)mine;
}
// A token variable the function fills later from the thread it owns: until
// then it is an empty token nothing can stop; it is no context the function
// was given.
void Handshake(std::atomic<int>& ready) {
  std::stop_token later;
  std::jthread peer([&ready] { ready = 1; });
  do std::this_thread::sleep_for(2ms);
  while (ready.load() == 0);
  later = peer.get_stop_token();
}
// The token of a carrier the function was handed is the function's.
struct Lane {
  std::stop_token Token() const;
  bool Empty() const;
};
void Flush(const Lane& lane) {
  while (!lane.Empty()) std::this_thread::sleep_for(3ms);
  // CHECK: :[[@LINE-1]]:43: warning: blocking call in a loop that never reads context 'lane.Token()'
  // CHECK: :[[@LINE-2]]:3: note: this loop has no constant bound and does not check 'lane.Token()' (check lane.Token().stop_requested() or pass 'lane.Token()' to the blocking call)
}
}  // namespace summary
