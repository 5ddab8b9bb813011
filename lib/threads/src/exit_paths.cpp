// How each way a traced process ends keeps its thread records. exit() and a
// return from main run the sink's on_exit handler (the rings, then the exit
// record); std::terminate is threads.cpp's handler. The others run nothing
// of the program's:
//  - _exit, _Exit and quick_exit are interposed (preload.cpp; a static
//    program linked with Tether::threads_wrap has only the signal path): the
//    rings and the exit record are written, then the real call ends it;
//  - abort (assert's too), a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) and
//    SIGTERM, SIGINT, SIGHUP, SIGQUIT, whose action is still the default: a
//    one-shot handler asks this file's thread to write the rings out, waits
//    for it at most kFlushWait, then lets the signal end the process as it
//    would have (the default action, the same status for the parent).
// The writing is never done in the handler itself: it takes locks and
// allocates, and the interrupted thread may hold either. The handler only
// posts a semaphore and waits on another (futex operations), so a flush that
// cannot finish costs the wait, never a hang.
#include <semaphore.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>

#include <cerrno>

#include "interpose.hpp"

namespace {

constexpr long kFlushWaitNs = 2'000'000'000;  // kFlushWait: 2 s
constexpr int kSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
                            SIGTERM, SIGINT,  SIGHUP, SIGQUIT};

sem_t g_flush_request, g_flush_done;
pid_t g_traced_pid = 0;  // a forked child has no flushing thread: it does not wait

void* FlushOnRequest(void*) {
  for (;;) {
    while (sem_wait(&g_flush_request) != 0) {
    }
    tether::threads::FlushBeforeEnd(nullptr);
    sem_post(&g_flush_done);
  }
  return nullptr;
}

void OnEndingSignal(int sig) {
  const int saved_errno = errno;
  if (getpid() == g_traced_pid) {
    sem_post(&g_flush_request);
    timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += kFlushWaitNs % 1'000'000'000;
    deadline.tv_sec += kFlushWaitNs / 1'000'000'000 + deadline.tv_nsec / 1'000'000'000;
    deadline.tv_nsec %= 1'000'000'000;
    while (sem_timedwait(&g_flush_done, &deadline) != 0 && errno == EINTR) {
    }
  }
  errno = saved_errno;
  // SA_RESETHAND made the action the default again, and SA_NODEFER leaves
  // the signal unblocked: this ends the process as the signal would have. A
  // crash that returns instead faults again, now with the default action.
  raise(sig);
}

}  // namespace

void tether::threads::FlushOnSignals() {
  if (sem_init(&g_flush_request, 0, 0) != 0 || sem_init(&g_flush_done, 0, 0) != 0) return;
  // The thread takes no signal (it inherits this mask): a program that blocks
  // SIGTERM in its threads and takes it with sigwait or a signalfd (libtether's
  // signal task) must not have it delivered here instead.
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  pthread_t flusher;
  const int created = pthread_create(&flusher, nullptr, FlushOnRequest, nullptr);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (created != 0) return;
  // tether:detached(the library's own flush thread: it waits for a signal for the life of the
  // process, and nothing joins it at exit)
  pthread_detach(flusher);
  g_traced_pid = getpid();
  for (int sig : kSignals) {
    struct sigaction now {};
    if (sigaction(sig, nullptr, &now) != 0 || now.sa_handler != SIG_DFL ||
        (now.sa_flags & SA_SIGINFO) != 0)
      continue;  // the program's own handler (or an ignored signal) stays
    struct sigaction flush {};
    flush.sa_handler = OnEndingSignal;
    sigemptyset(&flush.sa_mask);
    flush.sa_flags = SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
    sigaction(sig, &flush, nullptr);
  }
}
