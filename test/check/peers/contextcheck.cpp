// REQUIRES: checker
// kkHAIKE/contextcheck's own test suite (testdata/src/a/a.go) rendered in
// C++ on libtether: each case contextcheck flags is expected here at its
// line, each case it keeps silent stays silent. README.md maps the cases.
// RUN: not %tether check --quiet --checks=-*,tether-detached-context,tether-context-not-forwarded %s -- %libtether_flags 2>&1 \
// RUN:   | FileCheck %s -implicit-check-not="warning:"
#include <functional>
#include <string>
#include <vector>

#include <tether/context.hpp>
#include <tether/task.hpp>

// net/http, as far as the cases need it: the request carries a context.
namespace http {
struct ResponseWriter {
  void Write(const std::string& body);
};
class Request {
 public:
  tether::Context Context() const;
};
void HandleFunc(const std::string& pattern, std::function<void(ResponseWriter&, Request*)> handler);
}  // namespace http

struct TestInterface {
  virtual std::string Test() = 0;
  virtual ~TestInterface() = default;
};
TestInterface* NewXX();
struct MyInt {
  int v;
  int F() const { return v; }
};
template <class F>
struct Defer {
  explicit Defer(F fn) : f(fn) {}
  ~Defer() { f(); }
  F f;
};
const tether::ContextKey<std::string> kKey("aaa");

void F2(const tether::Context& ctx) {}
void F3() { F2(tether::TODO()); }
void F6() { F3(); }

void F1(tether::Context ctx) {
  Defer deferred{[ctx] { F2(ctx); }};  // defer f2(ctx)
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  group.Go([c = gctx] { F2(c); return tether::Error(); });  // go f2(ctx)
  F2(ctx);

  ctx = tether::WithValue(ctx, kKey, "aaaaaa");
  F2(ctx);

  NewXX()->Test();

  F3();
  // CHECK: :[[@LINE-1]]:3: warning: call to 'F3' drops the context: 'F3' takes no context but creates a root context itself; give it a context parameter and pass 'ctx' [tether-context-not-forwarded]
  F6();
  // CHECK: :[[@LINE-1]]:3: warning: call to 'F6' drops the context: 'F6' takes no context but reaches a function that creates a root context
  // CHECK: note: {{.*}} via F6 -> F3

  Defer later{[&] { F2(ctx); }};
  [](const tether::Context& c) { F2(c); }(ctx);

  F2(tether::Background());
  // CHECK: :[[@LINE-1]]:6: warning: root context 'tether::Background()' created in 'F1', which can reach context 'ctx'; {{.*}} [tether-detached-context]

  int (MyInt::*thunk)() const = &MyInt::F;
  (MyInt{0}.*thunk)();
  auto bound = [m = MyInt{0}] { return m.F(); };
  bound();
  group.Wait();
}

// contextcheck reports f4 at the next line's use of the reassigned ctx;
// tether reports the root where it is made.
void F4(tether::Context ctx) {
  F2(ctx);
  ctx = tether::Background();
  // CHECK: :[[@LINE-1]]:9: warning: root context 'tether::Background()' created in 'F4', which can reach context 'ctx'
  F2(ctx);
}

void F5(tether::Context ctx) {
  [&] { F2(ctx); }();

  ctx = tether::Background();
  // CHECK: :[[@LINE-1]]:9: warning: root context 'tether::Background()' created in 'F5', which can reach context 'ctx'
  F2(ctx);
}

tether::ContextAndCancel GetNewCtx(const tether::Context& ctx) { return tether::WithCancel(ctx); }

void F7(const tether::Context& ctx) {
  auto [child, cancel] = GetNewCtx(ctx);
  Defer deferred{cancel};
  F2(child);  // OK
}

// ----------------- http -----------------

void F8(const tether::Context& ctx, http::ResponseWriter& w, http::Request* r) {}

void F9(http::ResponseWriter& w, http::Request* r) {
  tether::Context ctx = r->Context();
  F8(ctx, w, r);
  F8(tether::Background(), w, r);
  // CHECK: :[[@LINE-1]]:6: warning: root context 'tether::Background()' created in 'F9', which can reach context 'r->Context()'
}

void F10(bool in, http::ResponseWriter& w, http::Request* r) {
  F8(r->Context(), w, r);
  F8(tether::Background(), w, r);
  // CHECK: :[[@LINE-1]]:6: warning: root context 'tether::Background()' created in 'F10', which can reach context 'r->Context()'
}

// contextcheck's `// nolint: contextcheck` has no reason; tether requires one.
void F14(http::ResponseWriter& w, http::Request* r, const char* err) {
  // tether:detached(rendering of contextcheck's nolint case: the peer keeps it silent)
  F8(tether::Background(), w, r);
}

// contextcheck's @contextcheck(req_has_ctx): here the request type says it.
void F15(http::ResponseWriter& w, http::Request* r, const char* err) { F8(r->Context(), w, r); }

void F11() {
  http::HandleFunc("/", [](http::ResponseWriter& w, http::Request* r) {
    F8(r->Context(), w, r);
    F8(tether::Background(), w, r);
    // CHECK: :[[@LINE-1]]:8: warning: root context 'tether::Background()' created in 'F11::<lambda@[[@LINE-3]]>', which can reach context 'r->Context()'

    F9(w, r);

    F10(true, w, r);
    F14(w, r, nullptr);
    F15(w, r, nullptr);
  });
}

// ----------------- generics -----------------

template <class T>
struct MySlice {
  std::vector<T> items;
  T F12(const tether::Context& ctx) {
    F3();
    // CHECK: :[[@LINE-1]]:5: warning: call to 'F3' drops the context: 'F3' takes no context but creates a root context itself
    T sum{};
    for (T value : items) sum += value;
    return sum;
  }
};

template <class T>
T F13(const tether::Context& ctx, T a, T b) {
  F3();
  // CHECK: :[[@LINE-1]]:3: warning: call to 'F3' drops the context: 'F3' takes no context but creates a root context itself
  if (a > b) return a;
  return b;
}

// ----------------- issue 21 -----------------

std::function<void()> F16(const tether::Context& ctx, std::string k) {
  return [k] {
    F16(tether::Background(), k);
    // CHECK: :[[@LINE-1]]:9: warning: root context 'tether::Background()' created in 'F16::<lambda@[[@LINE-2]]>', a lambda returned from 'F16', which has context 'ctx'
  };
}

std::function<std::function<void()>()> F17(const tether::Context& ctx, std::string k) {
  return [k]() -> std::function<void()> {
    return [k] {
      F16(tether::Background(), k);
      // CHECK: :[[@LINE-1]]:11: warning: root context 'tether::Background()' created in 'F17::<lambda@[[@LINE-3]]>::<lambda@[[@LINE-2]]>', a lambda returned from 'F17', which has context 'ctx'
    };
  };
}

// ----------------- range over a sequence -----------------

void FIterSeq() {
  std::vector<std::string> seq{"a"};
  for ([[maybe_unused]] const std::string& item : seq) {
    auto [child, cancel] = tether::WithCancel(tether::Background());
    Defer deferred{cancel};
  }
}
