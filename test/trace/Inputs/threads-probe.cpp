// threads-probe: plain C++ threads, no libtether, one scenario each, for the
// `tether trace` thread lit tests (libtether_threads.so). Threads that must
// be running at exit wait on a condition nobody signals, never on a sleep.
//
//   threads-probe pool | detached | never-joined | terminate | async | jthread |
//   scope-zombie | c-scope | killed-after-scope | churn N | finished-unjoined | joined-late
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "tether/trace/scope.h"

namespace {

// Blocks for ever (until the process exits). The mutex and condition are
// never destroyed: destroying a condition waited on blocks exit.
void Forever() {
  static auto* mu = new std::mutex;
  static auto* cv = new std::condition_variable;
  std::unique_lock<std::mutex> lock(*mu);
  cv->wait(lock, [] { return false; });
}

// A small thread pool: workers started by Start, joined by the destructor.
class ThreadPool {
 public:
  explicit ThreadPool(int workers) { Start(workers); }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& w : workers_) w.join();
  }
  void Submit(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  void Start(int workers) {
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { Work(); });
  }
  void Work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop();
      }
      job();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::queue<std::function<void()>> jobs_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

int Pool() {
  ThreadPool pool(4);
  std::atomic<int> done{0};
  for (int i = 0; i < 100; ++i) pool.Submit([&done] { ++done; });
  return 0;
}

int Detached() {
  std::thread(Forever).detach();
  return 0;
}

int NeverJoined() {
  auto* leaked = new std::thread(Forever);  // never joined, never destroyed
  (void)leaked;
  return 0;
}

int Terminate() {
  std::thread joinable(Forever);
  return 0;  // ~thread on a joinable thread: std::terminate
}

int Async() {
  auto* leaked = new std::future<void>(std::async(std::launch::async, Forever));
  (void)leaked;
  return 0;
}

int JThread() {
  auto* leaked = new std::jthread([] { Forever(); });
  (void)leaked;
  return 0;
}

// A thread a scope started outlives it: a zombie of that scope, and so is
// the thread that thread starts. Another scope's joined worker is clean.
int ScopeZombie() {
  // The inner thread must exist before main returns (else the trace may end
  // first and see one zombie): set once it is created, waited for after the
  // scope ended, so whether it came while or after the scope is still open.
  static std::atomic<bool> inner_started{false};
  {
    TETHER_SCOPE("request 7");
    std::thread([] {
      std::thread(Forever).detach();
      inner_started = true;
      Forever();
    }).detach();
  }
  while (!inner_started) std::this_thread::yield();
  {
    TETHER_SCOPE("request 8");
    std::thread([] {}).join();
  }
  return 0;
}

// The C API: begin and end by hand.
int CScope() {
  uint64_t id = tether_scope_begin("job c");
  std::thread(Forever).detach();
  tether_scope_end(id);
  return 0;
}

// A thread joined inside a scope, then the program is killed at once: the
// scope's end is written through, and the thread's end (handed to the
// flusher when it exited) with it, so neither reads as still running.
int KilledAfterScope() {
  {
    TETHER_SCOPE("request killed");
    std::thread([] {}).join();
  }
  raise(SIGKILL);
  return 0;
}

// Creates and joins n threads one after another (the cost benchmark).
int Churn(int n) {
  for (int i = 0; i < n; ++i) std::thread([] {}).join();
  return 0;
}

}  // namespace

// Included here, not at the top: the lit tests pin the line numbers above.
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

// Waits until the thread whose kernel id is tid has exited (its
// /proc/self/task entry is gone), without joining it.
void AwaitExit(const std::atomic<pid_t>& tid) {
  while (tid.load() == 0) std::this_thread::yield();
  const std::string task = "/proc/self/task/" + std::to_string(tid.load());
  while (access(task.c_str(), F_OK) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// A thread that finished and that nobody joined or detached (ThreadSanitizer's
// "thread leak"); its std::thread is never destroyed, so nothing terminates.
// With "joined-late", the same thread is joined after it finished: clean.
int FinishedThread(bool join_late) {
  static std::atomic<pid_t> tid{0};
  auto* t = new std::thread([] { tid = static_cast<pid_t>(syscall(SYS_gettid)); });
  AwaitExit(tid);
  if (join_late) {
    t->join();
    delete t;
  }
  return 0;
}

// A thread started right before the process ends without exit's handlers
// (well within the flusher's 100 ms): its records are still in the rings.
// (Modes quick-exit, _exit, abort, segv, sigterm, join-waiting.)
std::atomic<bool> g_started{false};
void StartAndWait() {
  g_started = true;
  Forever();
}
// A join that never returns: the thread ignores every stop. Ended from
// outside (the test's `timeout`).
int JoinWaiting() {
  std::thread(StartAndWait).join();
  return 0;
}
// A thread started by a shared object loaded after tracing began.
int Plugin(const char* path) {
  void* plugin = dlopen(path, RTLD_NOW);
  if (plugin == nullptr) {
    std::fprintf(stderr, "threads-probe: %s\n", dlerror());
    return 2;
  }
  reinterpret_cast<void (*)()>(dlsym(plugin, "StartWorker"))();
  return 0;
}
// A thread its creator names (pthread_setname_np), never joined.
int Named() {
  auto* t = new std::thread(StartAndWait);
  pthread_setname_np(t->native_handle(), "io-poller");
  while (!g_started) std::this_thread::yield();
  return 0;
}
int EndsAbruptly(const std::string& how) {
  new std::thread(StartAndWait);  // never joined: still running when the process ends
  while (!g_started) std::this_thread::yield();
  if (how == "quick-exit") std::quick_exit(4);
  if (how == "_exit") _exit(5);
  if (how == "abort") std::abort();
  if (how == "segv") *static_cast<volatile int*>(nullptr) = 1;
  if (how == "sigterm") kill(getpid(), SIGTERM);
  std::this_thread::sleep_for(std::chrono::seconds(10));  // a signal's delivery
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string what = argc > 1 ? argv[1] : "";
  if (what == "pool") return Pool();
  if (what == "detached") return Detached();
  if (what == "never-joined") return NeverJoined();
  if (what == "terminate") return Terminate();
  if (what == "async") return Async();
  if (what == "jthread") return JThread();
  if (what == "scope-zombie") return ScopeZombie();
  if (what == "c-scope") return CScope();
  if (what == "killed-after-scope") return KilledAfterScope();
  if (what == "churn" && argc == 3) return Churn(std::atoi(argv[2]));
  if (what == "finished-unjoined") return FinishedThread(/*join_late=*/false);
  if (what == "joined-late") return FinishedThread(/*join_late=*/true);
  if (what == "join-waiting") return JoinWaiting();
  if (what == "named") return Named();
  if (what == "plugin" && argc == 3) return Plugin(argv[2]);
  if (what == "quick-exit" || what == "_exit" || what == "abort" || what == "segv" ||
      what == "sigterm")
    return EndsAbruptly(what);
  std::fprintf(stderr,
               "usage: threads-probe pool|detached|never-joined|terminate|async|jthread|"
               "scope-zombie|c-scope|killed-after-scope|churn N|finished-unjoined|joined-late\n");
  return 2;
}
