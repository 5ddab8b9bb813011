// The tracer hooks: a recording Tracer checks that every hook fires once,
// with the right ids, parents, scopes, detached-from scopes and site lines.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tether/tether.hpp"
#include "tether/hooks.hpp"
#include "tether/trace/scope.h"

namespace tether {
namespace {

using hooks::ContextKind;

struct Event {
  std::string type;
  std::uint64_t a = 0, b = 0, c = 0, d = 0, e = 0;  // the hook's ids, in argument order
  ContextKind kind = ContextKind::kBackground;
  ErrorCode code = ErrorCode::kOk;
  std::string name;
  unsigned line = 0;
};

class RecordingTracer : public hooks::Tracer {
 public:
  void ContextCreated(std::uint64_t ctx, std::uint64_t parent, ContextKind kind,
                      std::uint64_t scope, const std::source_location& loc) override {
    Add({.type = "ContextCreated", .a = ctx, .b = parent, .c = scope, .kind = kind,
         .line = loc.line()});
  }
  void ContextDone(std::uint64_t ctx, ErrorCode why) override {
    Add({.type = "ContextDone", .a = ctx, .code = why});
  }
  void TaskSpawned(std::uint64_t task, std::uint64_t ctx, std::uint64_t group,
                   std::uint64_t scope, std::uint64_t detached_from, std::string_view name,
                   const std::source_location& loc) override {
    Add({.type = "TaskSpawned", .a = task, .b = ctx, .c = group, .d = scope, .e = detached_from,
         .name = std::string(name), .line = loc.line()});
  }
  void TaskStarted(std::uint64_t task) override { Add({.type = "TaskStarted", .a = task}); }
  void TaskEnded(std::uint64_t task, ErrorCode result) override {
    Add({.type = "TaskEnded", .a = task, .code = result});
  }
  void GroupCreated(std::uint64_t group, std::uint64_t ctx,
                    const std::source_location& loc) override {
    Add({.type = "GroupCreated", .a = group, .b = ctx, .line = loc.line()});
  }
  void GroupWaitBegin(std::uint64_t group, const std::source_location& loc) override {
    Add({.type = "GroupWaitBegin", .a = group, .line = loc.line()});
  }
  void GroupWaitEnd(std::uint64_t group, ErrorCode result) override {
    Add({.type = "GroupWaitEnd", .a = group, .code = result});
  }
  void GroupDestroyedUnwaited(std::uint64_t group, std::uint64_t running) override {
    Add({.type = "GroupDestroyedUnwaited", .a = group, .b = running});
  }
  void ScopeBegin(std::uint64_t scope, std::uint64_t ctx, std::string_view name,
                  const std::source_location& loc) override {
    Add({.type = "ScopeBegin", .a = scope, .b = ctx, .name = std::string(name),
         .line = loc.line()});
  }
  void ScopeEnd(std::uint64_t scope) override { Add({.type = "ScopeEnd", .a = scope}); }
  void ChannelClosed(std::uint64_t channel, const std::source_location& loc) override {
    Add({.type = "ChannelClosed", .a = channel, .line = loc.line()});
  }

  void Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    events_.clear();
  }
  // Events of one type (optionally about one id, the first argument).
  std::vector<Event> Of(const std::string& type, std::uint64_t id = 0) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Event> out;
    for (const auto& e : events_) {
      if (e.type == type && (id == 0 || e.a == id)) out.push_back(e);
    }
    return out;
  }
  // Index of the first event of type about id (-1: none), for ordering checks.
  int IndexOf(const std::string& type, std::uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t i = 0; i < events_.size(); ++i) {
      if (events_[i].type == type && events_[i].a == id) return static_cast<int>(i);
    }
    return -1;
  }
  // Blocks until an event of type about id arrives (detached threads report late).
  void AwaitEvent(const std::string& type, std::uint64_t id) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
      for (const auto& e : events_) {
        if (e.type == type && e.a == id) return true;
      }
      return false;
    });
  }

 private:
  void Add(Event e) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      events_.push_back(std::move(e));
    }
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Event> events_;
};

// One tracer for the whole test program, emptied before each test, and never
// destroyed: a detached thread that read hooks::Active() before a test ended
// may still report to it, even while the process exits.
RecordingTracer& SharedTracer() {
  static auto* tracer = new RecordingTracer();
  return *tracer;
}

class Hooks : public testing::Test {
 protected:
  void SetUp() override {
    tracer_.Reset();
    previous_ = hooks::Install(&tracer_);
  }
  void TearDown() override { hooks::Install(previous_); }
  RecordingTracer& tracer_ = SharedTracer();
  hooks::Tracer* previous_ = nullptr;
};

TEST(HooksOff, NoIdsWithoutATracer) {
  ASSERT_EQ(hooks::Active(), nullptr);
  auto [ctx, cancel] = WithCancel(Background());
  EXPECT_EQ(ctx.id(), 0u);
  auto [group, gctx] = TaskGroup::WithContext(ctx);
  EXPECT_EQ(group.id(), 0u);
  Scope scope(ctx, "s");
  EXPECT_NE(scope.id(), 0u);  // scope ids are always assigned
  EXPECT_EQ(scope.context().scope_id(), scope.id());
  EXPECT_TRUE(group.Wait().ok());
  cancel();
}

// libtether's tether_context_thread_v1, found by name as the preloaded
// libtether_threads.so finds it (the program's link exports it).
const tether_context_thread_v1* ThreadWorkApi() {
  return static_cast<const tether_context_thread_v1*>(
      dlsym(RTLD_DEFAULT, "tether_context_thread_v1"));
}

TEST(HooksOff, NoThreadWorkWithoutATracer) {
  ASSERT_EQ(hooks::Active(), nullptr);
  const tether_context_thread_v1* api = ThreadWorkApi();
  ASSERT_NE(api, nullptr);
  Scope scope(Background(), "s");
  EXPECT_EQ(api->current().scope, 0u);  // the scope is in no trace
}

TEST_F(Hooks, ContextCreatedAndDoneOncePerNode) {
  auto [root, cancel_root] = WithCancel(Background()); const unsigned line = __LINE__;
  ASSERT_NE(root.id(), 0u);
  Context value = WithValue(root, ContextKey<int>("k"), 1);
  auto [timed, cancel_timed] = WithTimeout(value, std::chrono::hours(1));
  Context detached = WithoutCancel(timed);

  auto created = tracer_.Of("ContextCreated", root.id());
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(created[0].b, 0u);  // parent: Background is id 0
  EXPECT_EQ(created[0].kind, ContextKind::kCancel);
  EXPECT_EQ(created[0].line, line);
  auto v = tracer_.Of("ContextCreated", value.id());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].b, root.id());
  EXPECT_EQ(v[0].kind, ContextKind::kValue);
  auto t = tracer_.Of("ContextCreated", timed.id());
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].b, value.id());
  EXPECT_EQ(t[0].kind, ContextKind::kDeadline);
  auto d = tracer_.Of("ContextCreated", detached.id());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].b, timed.id());
  EXPECT_EQ(d[0].kind, ContextKind::kWithoutCancel);

  cancel_root();
  cancel_root();
  cancel_timed();
  auto done_root = tracer_.Of("ContextDone", root.id());
  ASSERT_EQ(done_root.size(), 1u);
  EXPECT_EQ(done_root[0].code, ErrorCode::kCanceled);
  EXPECT_EQ(tracer_.Of("ContextDone", timed.id()).size(), 1u);
  EXPECT_EQ(tracer_.Of("ContextDone", value.id()).size(), 0u);  // not a cancellable node
  EXPECT_EQ(tracer_.Of("ContextDone", detached.id()).size(), 0u);
}

TEST_F(Hooks, DeadlineDoneReportsDeadlineExceeded) {
  auto [ctx, cancel] = WithTimeout(Background(), std::chrono::milliseconds(1));
  ctx.Done().Wait();
  tracer_.AwaitEvent("ContextDone", ctx.id());
  EXPECT_EQ(tracer_.Of("ContextDone", ctx.id())[0].code, ErrorCode::kDeadlineExceeded);
  cancel();
}

TEST_F(Hooks, ScopeBeginEndAndItsContext) {
  std::uint64_t id;
  std::uint64_t ctx_id;
  {
    Scope scope(Background(), "build 42"); const unsigned line = __LINE__;
    id = scope.id();
    ctx_id = scope.context().id();
    auto begin = tracer_.Of("ScopeBegin", id);
    ASSERT_EQ(begin.size(), 1u);
    EXPECT_EQ(begin[0].b, ctx_id);
    EXPECT_EQ(begin[0].name, "build 42");
    EXPECT_EQ(begin[0].line, line);
    auto created = tracer_.Of("ContextCreated", ctx_id);
    ASSERT_EQ(created.size(), 1u);
    EXPECT_EQ(created[0].kind, ContextKind::kScope);
    EXPECT_EQ(created[0].c, id);
    auto [child, cancel] = WithCancel(scope.context());
    EXPECT_EQ(tracer_.Of("ContextCreated", child.id())[0].c, id);  // scopes are inherited
    cancel();
    scope.End();
    scope.End();
  }
  EXPECT_EQ(tracer_.Of("ScopeEnd", id).size(), 1u);
}

TEST_F(Hooks, GroupTaskLifecycle) {
  Scope scope(Background(), "build");
  auto [group, gctx] = TaskGroup::WithContext(scope.context()); const unsigned gline = __LINE__;
  group.Go("compile", [] { return Error::Failed("exit 2"); }); const unsigned tline = __LINE__;
  Error err = group.Wait(); const unsigned wline = __LINE__;
  EXPECT_EQ(err.message(), "exit 2");

  ASSERT_NE(group.id(), 0u);
  auto created = tracer_.Of("GroupCreated", group.id());
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(created[0].b, gctx.id());
  EXPECT_EQ(created[0].line, gline);
  EXPECT_EQ(tracer_.Of("ContextCreated", gctx.id())[0].kind, ContextKind::kGroup);
  EXPECT_EQ(tracer_.Of("ContextCreated", gctx.id())[0].b, scope.context().id());

  auto spawned = tracer_.Of("TaskSpawned");
  ASSERT_EQ(spawned.size(), 1u);
  const Event& s = spawned[0];
  EXPECT_EQ(s.b, gctx.id());
  EXPECT_EQ(s.c, group.id());
  EXPECT_EQ(s.d, scope.id());
  EXPECT_EQ(s.e, 0u);  // its context carries the scope: not detached
  EXPECT_EQ(s.name, "compile");
  EXPECT_EQ(s.line, tline);
  std::uint64_t task = s.a;
  auto ended = tracer_.Of("TaskEnded", task);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].code, ErrorCode::kFailed);
  EXPECT_EQ(tracer_.Of("GroupWaitBegin", group.id())[0].line, wline);
  EXPECT_EQ(tracer_.Of("GroupWaitEnd", group.id())[0].code, ErrorCode::kFailed);
  EXPECT_LT(tracer_.IndexOf("TaskSpawned", task), tracer_.IndexOf("TaskStarted", task));
  EXPECT_LT(tracer_.IndexOf("TaskStarted", task), tracer_.IndexOf("TaskEnded", task));
  EXPECT_LT(tracer_.IndexOf("TaskEnded", task), tracer_.IndexOf("GroupWaitEnd", group.id()));
  EXPECT_TRUE(tracer_.Of("GroupDestroyedUnwaited").empty());
}

TEST_F(Hooks, RootSpawnedInsideAScopeIsDetachedFromIt) {
  Scope scope(Background(), "request");
  Signal done = Signal::Make();
  Go(Background(), "flusher", [done] { done.Fire(); }); const unsigned line = __LINE__;
  done.Wait();
  Go(scope.context(), "owned", [] {});
  auto spawned = tracer_.Of("TaskSpawned");
  ASSERT_EQ(spawned.size(), 2u);
  EXPECT_EQ(spawned[0].name, "flusher");
  EXPECT_EQ(spawned[0].c, 0u);  // no group: a detached task
  EXPECT_EQ(spawned[0].d, 0u);
  EXPECT_EQ(spawned[0].e, scope.id());
  EXPECT_EQ(spawned[0].line, line);
  EXPECT_EQ(spawned[1].d, scope.id());
  EXPECT_EQ(spawned[1].e, 0u);
  tracer_.AwaitEvent("TaskEnded", spawned[0].a);
  tracer_.AwaitEvent("TaskEnded", spawned[1].a);
}

TEST_F(Hooks, AfterFuncCallbackIsATaskOfItsContext) {
  // docs/context.md: the callback's thread is owned like a tether::Go task,
  // so the tracer sees it as one: spawned when it fires, started, ended.
  Scope scope(Background(), "request");
  auto [ctx, cancel] = WithCancel(scope.context());
  Signal ran = Signal::Make();
  AfterFunc(ctx, [ran] { ran.Fire(); }); const unsigned line = __LINE__;
  EXPECT_TRUE(tracer_.Of("TaskSpawned").empty());  // not before it fires
  cancel();
  ran.Wait();
  auto spawned = tracer_.Of("TaskSpawned");
  ASSERT_EQ(spawned.size(), 1u);
  EXPECT_EQ(spawned[0].name, "AfterFunc");
  EXPECT_EQ(spawned[0].b, ctx.id());
  EXPECT_EQ(spawned[0].c, 0u);  // no group: detached, like tether::Go
  EXPECT_EQ(spawned[0].d, scope.id());
  EXPECT_EQ(spawned[0].line, line);
  tracer_.AwaitEvent("TaskEnded", spawned[0].a);
  EXPECT_EQ(tracer_.Of("TaskStarted", spawned[0].a).size(), 1u);
}

// What libtether_threads.so reads when the program creates a thread
// (ThreadWorkApi): the thread's current scope and the task it
// runs, as the tracer knows them; none once the task has ended, nor without
// a tracer (HooksOff.NoThreadWorkWithoutATracer).
TEST_F(Hooks, ThreadWorkIsTheCurrentScopeAndTask) {
  const tether_context_thread_v1* api = ThreadWorkApi();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->current().scope, 0u);
  EXPECT_EQ(api->current().task, 0u);
  Scope scope(Background(), "request");
  EXPECT_EQ(api->current().scope, scope.id());
  EXPECT_EQ(api->current().task, 0u);  // the main thread runs no task

  auto [group, gctx] = TaskGroup::WithContext(scope.context());
  tether_thread_work in_task{}, in_next{};
  group.Go([&] {
    in_task = api->current();
    return Error();
  });
  ASSERT_TRUE(group.Wait().ok());
  // The next task on the cache (most likely the same thread): its own, no scope.
  Signal done = Signal::Make();
  Go(Background(), "next", [&, done] {
    in_next = api->current();
    done.Fire();
  });
  done.Wait();
  auto [ctx, cancel] = WithCancel(scope.context());
  tether_thread_work in_callback{};
  Signal ran = Signal::Make();
  AfterFunc(ctx, [&, ran] {
    in_callback = api->current();
    ran.Fire();
  });
  cancel();
  ran.Wait();

  auto spawned = tracer_.Of("TaskSpawned");
  ASSERT_EQ(spawned.size(), 3u);
  EXPECT_EQ(in_task.task, spawned[0].a);
  EXPECT_EQ(in_task.scope, scope.id());
  EXPECT_EQ(in_next.task, spawned[1].a);
  EXPECT_EQ(in_next.scope, 0u);
  EXPECT_EQ(in_callback.task, spawned[2].a);
  EXPECT_EQ(in_callback.scope, scope.id());
  tracer_.AwaitEvent("TaskEnded", spawned[1].a);
  tracer_.AwaitEvent("TaskEnded", spawned[2].a);
}

TEST_F(Hooks, AfterFuncOnARootInsideAScopeIsDetachedFromIt) {
  Scope scope(Background(), "request");
  auto [ctx, cancel] = WithCancel(Background());
  Signal ran = Signal::Make();
  AfterFunc(ctx, [ran] { ran.Fire(); });
  scope.End();
  cancel();
  ran.Wait();
  auto spawned = tracer_.Of("TaskSpawned");
  ASSERT_EQ(spawned.size(), 1u);
  EXPECT_EQ(spawned[0].d, 0u);
  EXPECT_EQ(spawned[0].e, scope.id());  // registered while the scope ran
  tracer_.AwaitEvent("TaskEnded", spawned[0].a);
}

TEST_F(Hooks, TaskThreadWorksForItsContextsScope) {
  // Code running in a task of scope S that spawns with a root is detached from S.
  Scope scope(Background(), "build");
  std::uint64_t scope_id = scope.id();
  auto [group, gctx] = TaskGroup::WithContext(scope.context());
  scope.End();  // the task thread's current scope comes from its context, not from here
  EXPECT_EQ(CurrentScopeId(), 0u);
  group.Go([] {
    auto [inner, ictx] = TaskGroup::WithContext(Background());
    inner.Go("escapee", [] {});
    return inner.Wait();
  });
  EXPECT_TRUE(group.Wait().ok());
  bool found = false;
  for (const auto& e : tracer_.Of("TaskSpawned")) {
    if (e.name != "escapee") continue;
    found = true;
    EXPECT_EQ(e.d, 0u);
    EXPECT_EQ(e.e, scope_id);
  }
  EXPECT_TRUE(found);
}

TEST_F(Hooks, GroupDestroyedUnwaitedReportsRunningTasks) {
  std::uint64_t id;
  testing::internal::CaptureStderr();
  {
    auto [group, gctx] = TaskGroup::WithContext(Background());
    id = group.id();
    group.Go([c = gctx] { c.Done().Wait(); });
  }
  testing::internal::GetCapturedStderr();
  auto unwaited = tracer_.Of("GroupDestroyedUnwaited", id);
  ASSERT_EQ(unwaited.size(), 1u);
  EXPECT_EQ(unwaited[0].b, 1u);
  EXPECT_TRUE(tracer_.Of("GroupWaitBegin", id).empty());
}

TEST_F(Hooks, DetachedTaskThatThrowsEndsFailedWithoutTerminating) {
  Go(Background(), "thrower", []() { throw std::runtime_error("boom"); });
  auto spawned = tracer_.Of("TaskSpawned");
  ASSERT_EQ(spawned.size(), 1u);
  tracer_.AwaitEvent("TaskEnded", spawned[0].a);
  EXPECT_EQ(tracer_.Of("TaskEnded", spawned[0].a)[0].code, ErrorCode::kFailed);
}

TEST_F(Hooks, ChannelClosedOnceWithItsLine) {
  Channel<int> ch(1);
  ch.Close(); const unsigned line = __LINE__;
  ch.Close();
  auto closed = tracer_.Of("ChannelClosed");
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_NE(closed[0].a, 0u);
  EXPECT_EQ(closed[0].line, line);
}

TEST_F(Hooks, AfterFuncCancelFromAnotherContextIsReported) {
  auto [a, cancel_a] = WithCancel(Background());
  auto [b, cancel_b] = WithCancel(Background());
  auto stop = AfterFunc(a, [c = cancel_b] { c(); });
  cancel_a();
  b.Done().Wait();
  tracer_.AwaitEvent("ContextDone", b.id());
  EXPECT_EQ(tracer_.Of("ContextDone", b.id()).size(), 1u);
  cancel_b();
}

// NextId hands each thread its own block of ids: unique across threads and
// never 0, whichever thread asks.
TEST(HookIds, NextIdIsUniqueAcrossThreadsAndNeverZero) {
  constexpr int kThreads = 8, kPerThread = 5000;  // several blocks per thread
  std::vector<std::vector<std::uint64_t>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&seen, i] {
      for (int k = 0; k < kPerThread; ++k) seen[i].push_back(hooks::NextId());
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::uint64_t> all;
  for (const auto& ids : seen) {
    for (std::uint64_t id : ids) {
      EXPECT_NE(id, 0u);
      all.insert(id);
    }
  }
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPerThread));
}

}  // namespace
}  // namespace tether
