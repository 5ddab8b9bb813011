// REQUIRES: checker
// RUN: not %tether check --quiet --checks=-*,tether-loop-without-context %s -- -std=c++20 -I%srcroot/lib/context/include 2>&1 \
// RUN:   | FileCheck %s -implicit-check-not="warning:" -implicit-check-not="note:"
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include <tether/context.hpp>

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
