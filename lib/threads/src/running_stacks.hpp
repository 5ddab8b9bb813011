// Where a thread is running now, asked of the thread itself: goleak prints a
// leaked goroutine's current stack, and a zombie's is what says why it did
// not stop (blocked in a wait that nothing wakes, in a read with no bound).
//
// The asking thread sends the thread a signal (kRunningStackSignal, a
// real-time signal the program does not use); its handler walks the
// interrupted stack into a request slot and answers, and the asking thread
// records it. Nothing happens until a scope ends with threads still running
// or the program exits with some: a program whose threads all end in time
// never receives the signal.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace tether::threads {

constexpr int kRunningPcs = 16;

struct RunningStack {
  std::uint64_t id = 0;  // the traced thread's task id
  std::uint64_t pcs[kRunningPcs] = {};
  int count = 0;
};

// Installs the handler, once, when tracing starts; a program that already
// handles the signal keeps it, and nothing is captured.
void InstallRunningStackCapture();

// Asks thread tid where it runs; true with *out filled when it answered as a
// traced thread not captured before (each thread is captured once: at its
// scope's end if it outlives it, else at exit). A thread blocked in a call
// that a signal would cut short (pause, sleep, poll, epoll_wait) is not
// asked: the program must see no difference. A thread that does not answer
// within 100 ms (uninterruptible, or stopped) is given up.
bool CaptureRunningStack(pid_t tid, RunningStack* out);

// The process's other threads (/proc/self/task) that do not block the signal.
std::vector<pid_t> OtherThreads();

// A call that a handled signal cuts short (a sleep, poll, select,
// epoll_wait, pause, the sigwait family) made through the shim's wrapper (quiet_calls.cpp): while a
// thread is in one, asking it is safe, since the wrapper takes the EINTR that the asking caused and
// goes on with the rest of the wait.
class QuietCall {
 public:
  QuietCall();
  ~QuietCall();
  QuietCall(const QuietCall&) = delete;
  QuietCall& operator=(const QuietCall&) = delete;
  // After an EINTR: whether the running-stack signal caused it (cleared).
  bool AskedMeanwhile();

 private:
  void* slot_;
};
// Whether thread tid is in a QuietCall now.
bool InQuietCall(pid_t tid);
// A traced thread ends: its QuietCall slot is free for another thread.
void ForgetQuietCallSlot();

// Set by threads.cpp: the task id of the calling (traced) thread, the first
// time it is asked; 0 for a thread that is not traced or was captured before.
// Called from the signal handler: async-signal-safe.
std::uint64_t TakeRunningStackTask();

}  // namespace tether::threads
