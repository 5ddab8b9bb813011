// Analyze on hand-written traces: zombies and grace, detached marking (by
// detached_from and by parent task), leaks, unwaited groups, the chain cut.
#include <gtest/gtest.h>

#include "tether/trace/model.hpp"
#include "trace_files.hpp"

namespace tether::trace {
namespace {

using testing::Header;
using testing::Lines;
using testing::TempFile;

std::string Spawn(int task, int ctx, int scope, int detached_from, int parent, const char* name,
                  int t) {
  return "{\"ev\":\"spawn\",\"task\":" + std::to_string(task) + ",\"ctx\":" + std::to_string(ctx) +
         ",\"group\":0,\"scope\":" + std::to_string(scope) +
         ",\"detached_from\":" + std::to_string(detached_from) +
         ",\"parent\":" + std::to_string(parent) + ",\"name\":\"" + name +
         "\",\"file\":\"a.cpp\",\"line\":" + std::to_string(100 + task) +
         ",\"func\":\"f\",\"t\":" + std::to_string(t) + "}";
}
std::string End(int task, int t) {
  return "{\"ev\":\"end\",\"task\":" + std::to_string(task) + ",\"result\":\"ok\",\"t\":" +
         std::to_string(t) + "}";
}
std::string Ctx(int id, int parent, const char* kind, int scope) {
  return "{\"ev\":\"ctx\",\"id\":" + std::to_string(id) + ",\"parent\":" + std::to_string(parent) +
         ",\"kind\":\"" + kind + "\",\"scope\":" + std::to_string(scope) +
         ",\"file\":\"a.cpp\",\"line\":" + std::to_string(id) + ",\"func\":\"f\",\"t\":1001}";
}
const char* kScopeBegin =
    R"({"ev":"scope_begin","id":1,"ctx":2,"name":"build 1","file":"a.cpp","line":2,"func":"f","t":1010})";
const char* kScopeEnd = R"({"ev":"scope_end","id":1,"t":2000})";
const char* kExit = R"({"ev":"exit","status":0,"t":9000})";

Trace Load(const std::vector<std::string>& lines) {
  TempFile f("t.jsonl");
  f.Write(Lines(lines));
  Trace t;
  Error err = LoadTrace(f.path(), &t);
  EXPECT_TRUE(err.ok()) << err.ToString();
  return t;
}

TEST(Analyze, TaskEndingAfterItsScopeIsAZombieUnlessWithinGrace) {
  Trace t = Load({Header(), Ctx(2, 0, "scope", 1), Ctx(5, 2, "cancel", 1), kScopeBegin,
                  Spawn(10, 5, 1, 0, 0, "early", 1100), End(10, 1900),
                  Spawn(11, 5, 1, 0, 0, "late", 1100), End(11, 2500), kScopeEnd, kExit});
  std::vector<Finding> f = Analyze(t, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::kZombie);
  EXPECT_EQ(f[0].task, 11u);
  EXPECT_EQ(f[0].scope, 1u);
  EXPECT_EQ(f[0].outlived_ns, 500);
  EXPECT_TRUE(f[0].ended);
  EXPECT_FALSE(f[0].detached);
  EXPECT_EQ(f[0].context_chain, (std::vector<std::uint64_t>{5, 2}));
  EXPECT_FALSE(f[0].cut_at.has_value());

  EXPECT_TRUE(Analyze(t, {.grace_ns = 500}).empty());
  EXPECT_EQ(Analyze(t, {.grace_ns = 499}).size(), 1u);
}

// The thread that ends its own scope (scope_end's tid is the thread it ran
// on) was running at the end by necessity: no zombie once it ends, a zombie
// when it runs on. A task on another thread, or one that started on the
// closing thread only after the end, is judged as before.
TEST(Analyze, TheTaskThatEndedItsScopeIsItsCloserNotItsZombie) {
  auto start = [](int task, int tid, int t) {
    return "{\"ev\":\"start\",\"task\":" + std::to_string(task) +
           ",\"tid\":" + std::to_string(tid) + ",\"t\":" + std::to_string(t) + "}";
  };
  const char* ended_on_77 = R"({"ev":"scope_end","id":1,"tid":77,"t":2000})";
  Trace t = Load({Header(), Ctx(2, 0, "scope", 1), kScopeBegin,
                  Spawn(10, 2, 1, 0, 0, "closer", 1100), start(10, 77, 1200), End(10, 2300),
                  Spawn(11, 2, 1, 0, 0, "elsewhere", 1100), start(11, 78, 1200), End(11, 2300),
                  Spawn(12, 2, 1, 0, 0, "closer runs on", 1100), start(12, 77, 1150),
                  ended_on_77, kExit});
  EXPECT_EQ(t.scopes.at(1).ended_on_thread, 77u);
  std::vector<Finding> f = Analyze(t, {});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].task, 11u);
  EXPECT_EQ(f[1].task, 12u);
  EXPECT_EQ(f[1].kind, FindingKind::kZombie);
  EXPECT_FALSE(f[1].ended);
}

TEST(Analyze, ZombieThatNeverEndedOutlivesUntilTheTraceEnds) {
  Trace t = Load({Header(), Ctx(2, 0, "scope", 1), kScopeBegin, Spawn(10, 2, 1, 0, 0, "x", 1100),
                  kScopeEnd, kExit});
  std::vector<Finding> f = Analyze(t, {.grace_ns = 1'000'000'000});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::kZombie);
  EXPECT_FALSE(f[0].ended);
  EXPECT_EQ(f[0].outlived_ns, 7000);
}

TEST(Analyze, RootContextInsideAScopeIsDetachedAndTheChainIsCut) {
  // ctx 7 derives from Background (parent 0); the spawner worked for scope 1.
  Trace t = Load({Header(), Ctx(2, 0, "scope", 1), Ctx(7, 0, "deadline", 0), Ctx(8, 7, "group", 0),
                  kScopeBegin, Spawn(10, 8, 0, 1, 0, "stream", 1100), End(10, 3000), kScopeEnd,
                  kExit});
  std::vector<Finding> f = Analyze(t, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].scope, 1u);
  EXPECT_TRUE(f[0].detached);
  EXPECT_EQ(f[0].context_chain, (std::vector<std::uint64_t>{8, 7}));
  EXPECT_EQ(f[0].cut_at, 7u);  // the top of the chain, a child of Background()
}

TEST(Analyze, WithoutCancelIsTheCutWhenItIsOnTheChain) {
  Trace t = Load({Header(), Ctx(2, 0, "scope", 1), Ctx(6, 0, "cancel", 0),
                  Ctx(7, 6, "without_cancel", 0), Ctx(8, 7, "cancel", 0), kScopeBegin,
                  Spawn(10, 8, 0, 1, 0, "x", 1100), kScopeEnd, kExit});
  std::vector<Finding> f = Analyze(t, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].cut_at, 7u);
}

TEST(Analyze, TaskSpawnedByADetachedTaskIsChargedToTheSameScope) {
  Trace t = Load({Header(), Ctx(2, 0, "scope", 1), kScopeBegin,
                  Spawn(10, 0, 0, 1, 0, "parent", 1100), Spawn(11, 0, 0, 0, 10, "child", 1200),
                  End(10, 1300), kScopeEnd, End(11, 2600), kExit});
  std::vector<Finding> f = Analyze(t, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].task, 11u);
  EXPECT_EQ(f[0].scope, 1u);
  EXPECT_TRUE(f[0].detached);
  EXPECT_EQ(f[0].outlived_ns, 600);
}

TEST(Analyze, RunningAtExitWithoutAnEndedScopeIsALeak) {
  Trace t = Load({Header(), Spawn(10, 0, 0, 0, 0, "orphan", 1100),
                  Spawn(11, 0, 0, 0, 0, "finished", 1100), End(11, 1200), kExit});
  std::vector<Finding> f = Analyze(t, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::kLeak);
  EXPECT_EQ(f[0].task, 10u);
  EXPECT_EQ(f[0].scope, 0u);
}

TEST(Analyze, GroupDestroyedWithoutWaitIsReported) {
  Trace t = Load({Header(), Ctx(2, 0, "scope", 1), Ctx(8, 2, "group", 1),
                  R"({"ev":"group","id":9,"ctx":8,"file":"a.cpp","line":50,"func":"f","t":1100})",
                  R"({"ev":"group","id":12,"ctx":8,"file":"a.cpp","line":60,"func":"f","t":1100})",
                  R"({"ev":"wait_begin","group":12,"file":"a.cpp","line":61,"func":"f","t":1150})",
                  R"({"ev":"group_unwaited","group":9,"running":2,"t":1200})", kExit});
  std::vector<Finding> f = Analyze(t, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::kUnwaitedGroup);
  EXPECT_EQ(f[0].group, 9u);
  EXPECT_EQ(f[0].scope, 1u);
  EXPECT_EQ(t.groups.at(9).running_at_destroy, 2u);
}

TEST(Analyze, ParallelScopesAreChargedSeparately) {
  Trace t = Load({Header(), Ctx(2, 0, "scope", 1), Ctx(3, 0, "scope", 4), kScopeBegin,
                  R"({"ev":"scope_begin","id":4,"ctx":3,"name":"build 2","file":"a.cpp","line":3,"func":"f","t":1010})",
                  Spawn(10, 2, 1, 0, 0, "a", 1100), Spawn(11, 3, 4, 0, 0, "b", 1100),
                  kScopeEnd, End(10, 1500), End(11, 2500),
                  R"({"ev":"scope_end","id":4,"t":3000})", kExit});
  // Task 10 ended before build 1 ended; task 11 before build 2 ended.
  EXPECT_TRUE(Analyze(t, {}).empty());
}

}  // namespace
}  // namespace tether::trace
