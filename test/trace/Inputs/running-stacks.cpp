// Threads that outlive their scope or the program, for "running at", asked of the thread by a
// signal; each mode checks that asking changed nothing the program sees (an interrupted read(),
// wait, poll or sleep goes on as if never asked). Traced through libtether_threads.so alone.
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "tether/trace/scope.h"

namespace {

// Blocks in read() until one byte arrives; says whether the read was ever cut
// short (a signal without SA_RESTART would make it fail with EINTR).
std::atomic<bool> g_reading{false};

void ReadOneByte(int fd) {
  char byte = 0;
  g_reading = true;
  const ssize_t n = read(fd, &byte, 1);
  std::printf("read returned %zd\n", n);
}

// A scope ends while its thread still waits for input: a zombie blocked in
// read(). The byte comes 100 ms after the scope ended; then it is joined.
int BlockedRead() {
  int fds[2];
  if (pipe(fds) != 0) return 2;
  std::thread reader;
  {
    TETHER_SCOPE("fetch");
    reader = std::thread(ReadOneByte, fds[0]);
    while (!g_reading) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // it is in read() now
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (write(fds[1], "x", 1) != 1) return 2;
  reader.join();
  return 0;
}

std::mutex g_mu;
std::condition_variable g_cv;
bool g_notified = false;

// Waits once, with no predicate: only a notify (or a spurious wake-up) ends it.
std::atomic<bool> g_waiting{false};

void WaitOnce(std::atomic<bool>* woke) {
  std::unique_lock<std::mutex> lock(g_mu);
  g_waiting = true;
  g_cv.wait(lock);
  *woke = true;
}

// A zombie in a condition variable's wait: being asked where it runs must
// not wake it (glibc's wait goes back to sleep after the signal).
int WaitWithoutPredicate() {
  std::atomic<bool> woke{false};
  std::thread waiter;
  {
    TETHER_SCOPE("consume");
    waiter = std::thread(WaitOnce, &woke);
    while (!g_waiting) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::printf("woken before the notify: %d\n", woke.load() ? 1 : 0);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_notified = true;
  }
  g_cv.notify_all();
  waiter.join();
  return 0;
}

std::atomic<bool> g_stop{false};
std::atomic<long> g_spins{0};

__attribute__((noinline)) void SpinUntilStopped() {
  while (!g_stop.load(std::memory_order_relaxed)) g_spins.fetch_add(1, std::memory_order_relaxed);
}

// A detached thread busy in a loop nobody stops: at exit it is running, not
// blocked, and its frame is the loop's.
int Busy() {
  std::thread(SpinUntilStopped).detach();
  while (g_spins.load() == 0) std::this_thread::yield();
  return 0;
}

std::atomic<bool> g_blocked{false};

// Blocks in a wait nothing ends (a futex: asking resumes it). Never
// destroyed: a condition variable destroyed at exit waits for its waiters.
void WaitForever() {
  static auto* mu = new std::mutex;
  static auto* cv = new std::condition_variable;
  std::unique_lock<std::mutex> lock(*mu);
  g_blocked = true;
  cv->wait(lock, [] { return false; });
}

// The program ends with quick_exit while a thread waits.
int QuickExit() {
  std::thread(WaitForever).detach();
  while (!g_blocked) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::quick_exit(0);
}

// The program handles the tracer's signal itself (SIGRTMAX - 3): the tracer
// leaves it alone and asks nothing; the program's handler must never run.
void ProgramsOwnHandler(int) { std::abort(); }

int OwnHandler() {
  signal(SIGRTMAX - 3, ProgramsOwnHandler);
  std::thread(WaitForever).detach();
  while (!g_blocked) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return 0;
}

std::atomic<bool> g_pausing{false};
std::atomic<bool> g_pause_returned{false};

void PauseOnce() {
  g_pausing = true;
  pause();  // returns when a handled signal arrives, whatever SA_RESTART says
  g_pause_returned = true;
}

// A zombie in pause(): a signal with a handler would end its pause, so it is
// not asked where it runs (its finding has no "running at").
int Pause() {
  {
    TETHER_SCOPE("idle");
    std::thread(PauseOnce).detach();
    while (!g_pausing) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::printf("pause returned: %d\n", g_pause_returned.load() ? 1 : 0);
  return 0;
}

std::atomic<bool> g_in_wait{false};
std::atomic<int> g_cut_short{0};  // waits that ended early (EINTR)

void PollForAWhile() {
  g_in_wait = true;
  if (poll(nullptr, 0, 400) != 0) g_cut_short.fetch_add(1);  // 0: it timed out, as asked
}

void SleepForAWhile() {
  g_in_wait = true;
  const timespec nap{0, 400'000'000};
  if (nanosleep(&nap, nullptr) != 0) g_cut_short.fetch_add(1);
}

void SelectForAWhile() {
  g_in_wait = true;
  timeval wait{0, 400'000};
  if (select(0, nullptr, nullptr, nullptr, &wait) != 0) g_cut_short.fetch_add(1);
}

void PselectForAWhile() {
  g_in_wait = true;
  const timespec wait{0, 400'000'000};
  if (pselect(0, nullptr, nullptr, nullptr, &wait, nullptr) != 0) g_cut_short.fetch_add(1);
}

// A signal-handling thread: it blocks SIGUSR1 and waits for it, 400 ms.
void SigtimedwaitForAWhile() {
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
  g_in_wait = true;
  const timespec wait{0, 400'000'000};
  if (sigtimedwait(&usr1, nullptr, &wait) != -1 || errno != EAGAIN) g_cut_short.fetch_add(1);
}

// A zombie in poll() or nanosleep(): asked where it runs inside the shim's
// wrapper, which takes the asking's EINTR and goes on waiting, so the call
// still returns as it would have (timed out, after the whole wait).
int InterruptibleWait(void (*wait)()) {
  {
    TETHER_SCOPE("waiting");
    std::thread(wait).detach();
    while (!g_in_wait) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::printf("waits cut short: %d\n", g_cut_short.load());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "blocked-read") return BlockedRead();
  if (what == "wait") return WaitWithoutPredicate();
  if (what == "busy") return Busy();
  if (what == "quick-exit") return QuickExit();
  if (what == "own-handler") return OwnHandler();
  if (what == "pause") return Pause();
  if (what == "poll") return InterruptibleWait(PollForAWhile);
  if (what == "nanosleep") return InterruptibleWait(SleepForAWhile);
  if (what == "select") return InterruptibleWait(SelectForAWhile);
  if (what == "pselect") return InterruptibleWait(PselectForAWhile);
  if (what == "sigtimedwait") return InterruptibleWait(SigtimedwaitForAWhile);
  std::fprintf(stderr,
               "usage: running-stacks "
               "blocked-read|wait|busy|quick-exit|own-handler|pause|poll|nanosleep|select|"
               "pselect|sigtimedwait\n");
  return 2;
}
