// REQUIRES: checker
// RUN: %check_tether %s tether-detached-task,tether-justification %t
// RUN: %check_tether %s tether-detached-task %t --check-prefix=STD -- --model=builtin:std-stop-token
// The std::jthread/std::stop_token model (on by default, and alone here) covers std::thread::detach:
#include <pthread.h>

#include <thread>

#include <tether/context.hpp>
#include <tether/task.hpp>

void Stream(const tether::Context& ctx);

void Unjustified(const tether::Context& ctx) {
  tether::Go(ctx, [](const tether::Context& c) { Stream(c); });
  // CHECK: :[[@LINE-1]]:3: warning: detached task: 'tether::Go' starts work that nobody waits for; give it an owner (a task group that is waited for) or say why with a tether:detached(<why>) comment [tether-detached-task]
  std::thread t([] {});
  t.detach();
  // STD: :[[@LINE-1]]:5: warning: detached task: 'std::thread::detach' starts work that nobody waits for
  // CHECK: :[[@LINE-2]]:5: warning: detached task: 'std::thread::detach' starts work that nobody waits for
}

void Justified(const tether::Context& ctx) {
  // tether:detached(the access log flusher lives as long as the process)
  tether::Go(ctx, [] {});
  tether::Go(ctx, "metrics", [] {});  // tether:detached(process-lifetime metrics pump)
  // NOLINTNEXTLINE(tether-detached-task): the watchdog must survive every scope
  tether::Go(ctx, [] {});
}

// An empty reason is itself a finding (and the detach it marks stays unexplained).
void EmptyReason(const tether::Context& ctx) {
  tether::Go(ctx, [] {});  // tether:detached()
  // CHECK: :[[@LINE-1]]:31: warning: 'tether:detached' without a reason: say why this is allowed inside the parentheses [tether-justification]
  tether::Go(ctx, [] {});  // NOLINT(tether-detached-task)
  // CHECK: :[[@LINE-1]]:31: warning: 'NOLINT' without a reason: say why this is allowed after the marker [tether-justification]
}

// A wrapper detaches the thread its object owns on its caller's behalf: the
// wrapper is silent, each call of it is the decision and is reported.
class Poller {
 public:
  void Start() { thread_ = std::thread([] {}); }
  void Release() {
    if (thread_.joinable()) thread_.detach();
  }
  ~Poller() { Release(); }  // the object's own call: not a caller's decision
 private:
  std::thread thread_;
};
void Background(Poller* poller, Poller& other) {
  poller->Release();
  // CHECK: :[[@LINE-1]]:11: warning: detached task: 'Poller::Release' detaches the thread its object owns, on this caller's behalf; nobody waits for it: join it, or say why
  // CHECK: :[[@LINE-9]]:37: note: 'Poller::Release' detaches it here
  // STD: :[[@LINE-3]]:11: warning: detached task: 'Poller::Release' detaches the thread its object owns, on this caller's behalf; nobody waits for it: join it, or say why
  // STD: :[[@LINE-11]]:37: note: 'Poller::Release' detaches it here
  other.Release();  // tether:detached(the poller outlives the request by design)
}

// A constructor that detaches is the decision (not a wrapper); a method that
// forwards to its members' detach wrappers is a wrapper too, and the finding
// is where the decision is made.
class Listener {
 public:
  void detach() {
    if (thread_.joinable()) thread_.detach();
  }
  void Start() { thread_ = std::thread([] {}); }

 private:
  std::thread thread_;
};
class Server {
 public:
  Server() {
    listener_.Start();
    listener_.detach();
    // CHECK: :[[@LINE-1]]:15: warning: detached task: 'Listener::detach' detaches the thread its object owns, on this caller's behalf
    // CHECK: :[[@LINE-13]]:37: note: 'Listener::detach' detaches it here
    // STD: :[[@LINE-3]]:15: warning: detached task: 'Listener::detach' detaches the thread its object owns, on this caller's behalf
    // STD: :[[@LINE-15]]:37: note: 'Listener::detach' detaches it here
  }
  void detach() { executor_.detach(); }  // forwards: a wrapper, silent

 private:
  Listener listener_;
  Listener executor_;
};
void Serve(Server& s) {
  s.detach();
  // CHECK: :[[@LINE-1]]:5: warning: detached task: 'Server::detach' detaches the thread its object owns, on this caller's behalf; nobody waits for it: join it, or say why
  // CHECK: :[[@LINE-9]]:29: note: 'Server::detach' detaches it here
  // STD: :[[@LINE-3]]:5: warning: detached task: 'Server::detach' detaches the thread its object owns, on this caller's behalf
  // STD: :[[@LINE-11]]:29: note: 'Server::detach' detaches it here
}

// The C spellings of a detached thread.
void* Loop(void*);
void CDetached() {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t id;
  pthread_create(&id, &attr, Loop, nullptr);
  // CHECK: :[[@LINE-1]]:3: warning: detached thread: 'pthread_create' with a PTHREAD_CREATE_DETACHED attribute starts a thread that nobody joins; create it joinable and pthread_join it, or say why with a tether:detached(<why>) comment [tether-detached-task]
  // STD: :[[@LINE-2]]:3: warning: detached thread: 'pthread_create' with a PTHREAD_CREATE_DETACHED attribute
  pthread_t other;
  pthread_create(&other, nullptr, Loop, nullptr);
  pthread_detach(other);
  // CHECK: :[[@LINE-1]]:3: warning: detached task: 'pthread_detach' starts work that nobody waits for; keep the thread joinable and pthread_join it, or say why with a tether:detached(<why>) comment [tether-detached-task]
  // STD: :[[@LINE-2]]:3: warning: detached task: 'pthread_detach' starts work that nobody waits for
  pthread_t joined;
  pthread_create(&joined, nullptr, Loop, nullptr);
  pthread_join(joined, nullptr);
}
