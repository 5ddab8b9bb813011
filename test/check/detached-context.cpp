// REQUIRES: checker
// RUN: %check_tether %s tether-detached-context %t
#include <functional>
#include <string>
#include <thread>

#include <tether/context.hpp>
#include <tether/scope.hpp>

void Use(const tether::Context& ctx);

// A parameter: the root is replaced by it.
void Parameter(const tether::Context& ctx) {
  Use(tether::Background());
  // CHECK: :[[@LINE-1]]:7: warning: root context 'tether::Background()' created in 'Parameter', which can reach context 'ctx'; {{.*}} [tether-detached-context]
  // CHECK: note: context 'ctx' is reachable here (parameter)
  // CHECK-FIXES: {{^}}  Use(ctx);{{$}}
}

// A function that owns a scope: the fix takes the scope's context, so the
// scope's end still stops (and the tracer still sees) what the root's user starts.
void OwnsScope(const tether::Context& ctx) {
  tether::Scope build(ctx, "build");
  Use(tether::Background());
  // CHECK: :[[@LINE-1]]:7: warning: root context 'tether::Background()' created in 'OwnsScope', which can reach context 'ctx'
  // CHECK: :[[@LINE-3]]:17: note: 'build' owns a scope here: pass on 'build.context()'
  // CHECK-FIXES: {{^}}  Use(build.context());{{$}}
}

// A scope that has ended before the root: the parameter as usual.
void ScopeEnded(const tether::Context& ctx) {
  { tether::Scope step(ctx, "step"); }
  Use(tether::Background());
  // CHECK: :[[@LINE-1]]:7: warning: root context 'tether::Background()' created in 'ScopeEnded', which can reach context 'ctx'
  // CHECK-FIXES: {{^}}  Use(ctx);{{$}}
}

// A captured variable.
void Captured(const tether::Context& ctx) {
  auto work = [ctx] { Use(tether::TODO()); };
  // CHECK: :[[@LINE-1]]:27: warning: root context 'tether::TODO()' created in 'Captured::<lambda@[[@LINE-1]]>', which can reach context 'ctx'
  // CHECK-FIXES: {{^}}  auto work = [ctx] { Use(ctx); };{{$}}
  work();
}

// A member.
class Executor {
 public:
  void Run() { Use(tether::Background()); }
  // CHECK: :[[@LINE-1]]:20: warning: root context 'tether::Background()' created in 'Executor::Run', which can reach context 'build_ctx_'
  // CHECK-FIXES: {{^}}  void Run() { Use(build_ctx_); }{{$}}
 private:
  tether::Context build_ctx_;
};

// A context carried by a request-like object (a field or a getter).
struct Request {
  tether::Context ctx;
};
class HttpRequest {
 public:
  tether::Context Context() const { return ctx_; }
 private:
  tether::Context ctx_;
};
void Handle(const Request& req) { Use(tether::Background()); }
// CHECK: :[[@LINE-1]]:39: warning: root context 'tether::Background()' created in 'Handle', which can reach context 'req.ctx'
// CHECK-FIXES: {{^}}void Handle(const Request& req) { Use(req.ctx); }{{$}}
void Serve(HttpRequest* r) { Use(tether::Background()); }
// CHECK: :[[@LINE-1]]:34: warning: root context 'tether::Background()' created in 'Serve', which can reach context 'r->Context()'
// CHECK-FIXES: {{^}}void Serve(HttpRequest* r) { Use(r->Context()); }{{$}}

// A default-constructed context is a root too.
void DefaultConstructed(const tether::Context& ctx) { Use(tether::Context{}); }
// CHECK: :[[@LINE-1]]:59: warning: root context 'tether::Context{}' created in 'DefaultConstructed'

// Two reachable contexts: reported, but no fix-it (which one?).
void Two(const tether::Context& a, const tether::Context& b) { Use(tether::Background()); }
// CHECK: :[[@LINE-1]]:68: warning: root context 'tether::Background()' created in 'Two', which can reach context 'a' (and 1 more)
// CHECK-FIXES: {{^}}void Two(const tether::Context& a, const tether::Context& b) { Use(tether::Background()); }{{$}}

// A template is reported once, at its spelling location.
template <class T>
void Generic(const tether::Context& ctx, T) { Use(tether::Background()); }
// CHECK: :[[@LINE-1]]:51: warning: root context 'tether::Background()' created in 'Generic'
void Instantiate(const tether::Context& ctx) {
  Generic(ctx, 1);
  Generic(ctx, 1.0);
}

// A macro is reported once, where the root is written.
#define FRESH_ROOT tether::Background()
// CHECK: :[[@LINE-1]]:20: warning: root context 'tether::Background()' created in 'MacroA'
void MacroA(const tether::Context& ctx) { Use(FRESH_ROOT); }
void MacroB(const tether::Context& ctx) { Use(FRESH_ROOT); }

// A lambda returned from a function that has a context runs on its behalf:
// a root inside it is detached (contextcheck's issue 21), through nested
// returned lambdas too. No fix-it: the lambda must first capture the context.
std::function<void()> Later(const tether::Context& ctx, std::string key) {
  return [key] {
    Use(tether::Background());
    // CHECK: :[[@LINE-1]]:9: warning: root context 'tether::Background()' created in 'Later::<lambda@[[@LINE-2]]>', a lambda returned from 'Later', which has context 'ctx'; capture it and pass it on
    // CHECK: :[[@LINE-4]]:52: note: context 'ctx' is reachable here (parameter of 'Later')
    // CHECK-FIXES: {{^}}    Use(tether::Background());{{$}}
  };
}
std::function<std::function<void()>()> LaterStill(const tether::Context& ctx) {
  return []() -> std::function<void()> {
    return [] { Use(tether::TODO()); };
    // CHECK: :[[@LINE-1]]:21: warning: root context 'tether::TODO()' created in 'LaterStill::<lambda@[[@LINE-2]]>::<lambda@[[@LINE-1]]>', a lambda returned from 'LaterStill'
  };
}

// ---- Not findings -------------------------------------------------------

// A lambda that is called, not returned, cannot name the context: the
// caller of the thread entry point below is the same case.
void CalledHere(const tether::Context& ctx) {
  auto f = [] { Use(tether::Background()); };
  f();
}
// Returned from a function without a context: nothing to inherit.
std::function<void()> NoContextToGive() {
  return [] { Use(tether::Background()); };
}

// Justified detaches.
void Justified(const tether::Context& ctx) {
  // tether:detached(the cleanup must finish even after the build timed out)
  Use(tether::Background());
  Use(tether::Background());  // NOLINT(tether-detached-context): shutdown path, see DESIGN.md
  // The sanctioned, visible detach needs no root at all:
  Use(tether::WithoutCancel(ctx));
}

// Factories return a context: they are where roots come from.
tether::Context Detach(const tether::Context& ctx) { return tether::Background(); }

// A thread entry point that cannot name a context.
void Spawner(const tether::Context& ctx) {
  std::thread t([] { Use(tether::Background()); });
  t.join();
}

// No context anywhere: a root is the only option.
void NoContext() { Use(tether::Background()); }

// Static initialisers and main.
static tether::Context g_root = tether::Background();
int main() { Use(tether::Background()); }
