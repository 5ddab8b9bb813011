// REQUIRES: checker
// RUN: %check_tether %s tether-context-not-forwarded %t --also %S/Inputs/forwarding-callees.cpp
// RUN: %check_tether %s tether-context-not-forwarded %t --also %S/Inputs/forwarding-callees.cpp --check-prefix=DEPTH4 --partial -- --max-chain-depth=4
// The chain cap is an option: with depth 4, Level4 is reported too.
#include <functional>

#include <tether/context.hpp>

void Upload();
void Finish();
void Level3();
void Level4();
void Deliberate();
void Pure();
void UploadTwice();
void Use(const tether::Context& ctx);

// An overload that takes the context.
void Destroy();
void Destroy(const tether::Context& ctx);
// A sibling named X + "WithContext".
int Pop(int queue);
int PopWithContext(const tether::Context& ctx, int queue);

void Build(const tether::Context& ctx) {
  Destroy();
  // CHECK: :[[@LINE-1]]:3: warning: call to 'Destroy' drops the context: 'Destroy' takes one; call it with 'ctx' [tether-context-not-forwarded]
  // CHECK: :[[@LINE-8]]:6: note: 'Destroy' that takes a context is declared here
  // CHECK-FIXES: {{^}}  Destroy(ctx);{{$}}
  int item = Pop(3);
  // CHECK: :[[@LINE-1]]:14: warning: call to 'Pop' drops the context: 'PopWithContext' takes one; call it with 'ctx'
  // CHECK-FIXES: {{^}}  int item = PopWithContext(ctx, 3);{{$}}
  (void)item;

  // The transitive form: the callee (in another TU) creates a root.
  Upload();
  // CHECK: :[[@LINE-1]]:3: warning: call to 'Upload' drops the context: 'Upload' takes no context but creates a root context itself; give it a context parameter and pass 'ctx'
  // CHECK: forwarding-callees.cpp:7:21: note: root context 'tether::Background()' created here, via Upload
  Finish();
  // CHECK: :[[@LINE-1]]:3: warning: call to 'Finish' drops the context: 'Finish' takes no context but reaches a function that creates a root context
  // CHECK: note: root context 'tether::Background()' created here, via Finish -> Upload
  Level3();
  // CHECK: :[[@LINE-1]]:3: warning: call to 'Level3' drops the context
  // CHECK: note: {{.*}} via Level3 -> Finish -> Upload
  Level4();  // beyond the default depth cap of 3: silent
  // DEPTH4: :[[@LINE-1]]:3: warning: call to 'Level4' drops the context
  // DEPTH4: note: {{.*}} via Level4 -> Level3 -> Finish -> Upload

  Deliberate();  // its root is justified where it is created
  Pure();        // creates nothing
}

// The callee holds a context in a member (ctx_) and makes a root: it answers
// for that root itself (its tether-detached-context finding); the caller is
// not wrong for not passing its own.
class Uploader {
 public:
  void Flush();
  tether::Context Session();

 private:
  tether::Context ctx_;
};
tether::Context NewBuildContext();
tether::Context WithBuildId(const tether::Context& parent, int id);
void Reset(int id);
void UsesFactory();
void Members(const tether::Context& ctx, Uploader& up) {
  up.Flush();
  Use(up.Session());  // a getter: creates nothing
}
// Roots that reach the caller through a context factory.
void Factories(const tether::Context& ctx) {
  Use(NewBuildContext());
  // CHECK: :[[@LINE-1]]:7: warning: call to 'NewBuildContext' drops the context: 'NewBuildContext' takes no context but creates a root context itself
  // CHECK: note: root context 'tether::Background()' created here, via NewBuildContext
  Reset(7);
  // CHECK: :[[@LINE-1]]:3: warning: call to 'Reset' drops the context: 'Reset' takes no context but creates a root context itself
  // CHECK: note: root context 'tether::TODO()' created here, via Reset
  UsesFactory();
  // CHECK: :[[@LINE-1]]:3: warning: call to 'UsesFactory' drops the context: 'UsesFactory' takes no context but reaches a function that creates a root context
  // CHECK: note: {{.*}} via UsesFactory -> NewBuildContext
  Use(WithBuildId(ctx, 1));  // given the context: fine
}

// A member of a class template defined in the other TU (Vela's executor for
// two runtimes): the call names Executor<int>, the facts name the template.
template <class Runtime>
class Executor {
 public:
  void Cancel();
};
void CancelHandler(const tether::Context& ctx, Executor<int>& e) {
  e.Cancel();
  // CHECK: :[[@LINE-1]]:5: warning: call to 'Executor<int>::Cancel' drops the context: 'Executor<int>::Cancel' takes no context but creates a root context itself
  // CHECK: forwarding-callees.cpp:{{[0-9]+}}:{{[0-9]+}}: note: root context 'tether::Background()' created here, via Executor::Cancel
}

// Every root of the callee gets a note, not only the first.
void CallsUploadTwice(const tether::Context& ctx) {
  UploadTwice();
  // CHECK: :[[@LINE-1]]:3: warning: call to 'UploadTwice' drops the context: 'UploadTwice' takes no context but creates a root context itself
  // CHECK: forwarding-callees.cpp:[[#TWO:]]:7: note: root context 'tether::Background()' created here, via UploadTwice
  // CHECK: forwarding-callees.cpp:[[#TWO+1]]:7: note: root context 'tether::TODO()' created here, via UploadTwice
}

// Calls that cannot be resolved stay silent.
struct Engine {
  virtual void Destroy() = 0;
  virtual ~Engine() = default;
};
void Unresolvable(const tether::Context& ctx, Engine& engine, void (*fp)(),
                  const std::function<void()>& callback) {
  engine.Destroy();
  fp();
  callback();
}

// Without a context there is nothing to forward.
void NoContext() {
  Destroy();
  Upload();
}

// A justified drop.
void Operate(const tether::Context& ctx) {
  // tether:detached(one build's failure must not cancel the other builds)
  Upload();
}
// An overload that needs more than the context (a predicate) is another call,
// not the context-taking sibling: silent.
struct Turnstile {
  void WaitFor(int ms);
  template <class Pred>
  bool WaitFor(const tether::Context& ctx, int ms, Pred ready);
};
void PassThrough(const tether::Context& ctx, Turnstile& gate) { gate.WaitFor(10); }
// A function template whose parameter carries the context (an accessor of
// the type it is instantiated with) answers for its root itself; its callers
// pass the carrier, and are not reported.
struct BuildJob {
  tether::Context Scope() const;
  int id;
};
template <class Job>
void RunJob(const Job& job) { Use(tether::TODO()); }
void Dispatch(const BuildJob& job) { RunJob(job); }
void Redispatch(const tether::Context& ctx, const BuildJob& job) { RunJob(job); }

// A callee whose only context is a member of its own still drops the
// narrower context its caller holds (the seed's `w.exec(id)`, fixed as
// `w.exec(gctx, id)`); a caller that has only the same member does not.
namespace member_only {
void RunBuild(const tether::Context& ctx, int id);
class Worker {
 public:
  void Start(const tether::Context& gctx) {
    exec(1);
    // CHECK: :[[@LINE-1]]:5: warning: call to 'member_only::Worker::exec' drops the context: 'member_only::Worker::exec' takes no context but creates a root context itself; give it a context parameter and pass 'gctx' [tether-context-not-forwarded]
    // CHECK: :[[@LINE+6]]:18: note: root context 'tether::Background()' created here, via member_only::Worker::exec
  }
  void Loop() { exec(2); }

 private:
  void exec(int id) {
    auto build = tether::Background();
    RunBuild(build, id);
  }
  tether::Context ctx_;
};
}  // namespace member_only
