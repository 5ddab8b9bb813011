// REQUIRES: checker
// RUN: %check_tether %s tether-task-ignores-context %t --implicit-check-not=note:
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <istream>
#include <mutex>
#include <string>
#include <thread>

#include <tether/context.hpp>
#include <tether/task.hpp>

using namespace std::chrono_literals;
void Consume(const std::string& line);
void Ship(const tether::Context& ctx, const std::string& line);

// Vela's docker TailContainer: the log copier sees ctx but never looks at it;
// it ends only when the pipe does.
void TailContainer(const tether::Context& ctx, int pipe_fd) {
  auto [logs, logs_ctx] = tether::TaskGroup::WithContext(ctx);
  logs.Go([&] {
    // CHECK: :[[@LINE-1]]:8: warning: task started here has context 'ctx' but never reads it (no Done/Err/Value, never passes it on) while it blocks; it keeps running after 'ctx' is cancelled [tether-task-ignores-context]
    char buf[4096];
    while (::read(pipe_fd, buf, sizeof buf) > 0) {
      // CHECK: :[[@LINE-1]]:12: note: the task blocks here: '::read' blocks without a context
      Consume(std::string(buf));
    }
    return tether::Error();
  });
  logs.Wait();
}

// Given the context as a parameter (tether::Go hands it over) and ignoring it.
void Poller(const tether::Context& ctx) {
  tether::Go(ctx, [](const tether::Context& task_ctx) {
    // CHECK: :[[@LINE-1]]:3: warning: task started here has context 'task_ctx' but never reads it
    for (;;) std::this_thread::sleep_for(1s);
    // CHECK: :[[@LINE-1]]:14: note: the task blocks here: 'std::this_thread::sleep_for' blocks without a context
  });
}

// A captured context, a std::thread, and the blocking read in a helper of
// the same translation unit.
std::string ReadAll(std::istream& in) {
  std::string all, line;
  while (std::getline(in, line)) all += line;
  return all;
}
void Copier(tether::Context ctx, std::istream& in) {
  std::thread copier([ctx, &in] { Consume(ReadAll(in)); });
  // CHECK: :[[@LINE-1]]:15: warning: task started here has context 'ctx' but never reads it
  // CHECK: :[[@LINE-2]]:43: note: the task blocks here: 'ReadAll' blocks without a context (ReadAll -> std::getline)
  // CHECK: :[[@LINE-7]]:10: note: 'std::getline' blocks without a context
  copier.join();
}

// A jthread waiting on a condition variable, given ctx as an argument.
void Waiter(const tether::Context& ctx, std::mutex& mu, std::condition_variable& cv, bool& ready) {
  std::jthread waiter(
      // CHECK: :[[@LINE-1]]:16: warning: task started here has context 'ctx' but never reads it
      [&mu, &cv, &ready](tether::Context) {
        std::unique_lock lock(mu);
        while (!ready) cv.wait(lock);
        // CHECK: :[[@LINE-1]]:24: note: the task blocks here: 'std::condition_variable::wait' blocks without a context
      },
      ctx);
}

// A spin loop with no bound is blocking too.
void Spinner(const tether::Context& ctx, const bool& stop) {
  auto [g, g_ctx] = tether::TaskGroup::WithContext(ctx);
  g.Go([&] {
    // CHECK: :[[@LINE-1]]:5: warning: task started here has context 'ctx' but never reads it
    while (!stop) {
      // CHECK: :[[@LINE-1]]:5: note: the task blocks here: it loops without a bound
      std::this_thread::yield();
    }
    return tether::Error();
  });
  g.Wait();
}

// ---- Not findings -------------------------------------------------------

// Reads ctx.Done()/Err() in the loop.
void ChecksDone(const tether::Context& ctx, int fd) {
  auto [g, g_ctx] = tether::TaskGroup::WithContext(ctx);
  g.Go([&] {
    char buf[64];
    while (ctx.Err().ok()) {
      if (::read(fd, buf, sizeof buf) <= 0) break;
    }
    return tether::Error();
  });
  g.Go([&] {
    ctx.Done().Wait();
    return tether::Error();
  });
  g.Wait();
}

// Passes the context on.
void PassesOn(const tether::Context& ctx, std::istream& in) {
  auto [g, g_ctx] = tether::TaskGroup::WithContext(ctx);
  g.Go([&] {
    std::string line;
    while (std::getline(in, line)) Ship(ctx, line);
    return tether::Error();
  });
  g.Wait();
}

// Does not block: a bounded loop and plain work.
void Quick(const tether::Context& ctx) {
  auto [g, g_ctx] = tether::TaskGroup::WithContext(ctx);
  g.Go([&] {
    for (int i = 0; i < 10; ++i) Consume("x");
    return tether::Error();
  });
  g.Wait();
}

// No context anywhere.
void NoContext(int fd) {
  std::thread t([fd] {
    char buf[8];
    while (::read(fd, buf, sizeof buf) > 0) {
    }
  });
  t.join();
}

// A member context read through a method of the same object.
class Pump {
 public:
  void Start() {
    thread_ = std::thread([this] {
      while (Running()) std::this_thread::sleep_for(10ms);
    });
  }
  bool Running() const { return ctx_.Err().ok(); }

 private:
  tether::Context ctx_;
  std::thread thread_;
};

// Std code gets std's words: a jthread's stop_token, ignored while it sleeps.
void Heartbeat(std::atomic<int>& beats) {
  std::jthread pulse([&beats](std::stop_token halt) {
    // CHECK: :[[@LINE-1]]:16: warning: task started here has stop_token 'halt' but never reads it (no stop_requested(), no stop_callback, never passes it on) while it blocks; it keeps running after a stop is requested [tether-task-ignores-context]
    for (;;) {
      ++beats;
      std::this_thread::sleep_for(50ms);
      // CHECK: :[[@LINE-1]]:7: note: the task blocks here: 'std::this_thread::sleep_for' blocks without a context
    }
  });
}
