// Building the scope graph from a hand-filled trace and a static graph, and
// the Boost.Graph analyses on it.
#include <algorithm>

#include <gtest/gtest.h>

#include "tether/graph/scope_graph.hpp"
#include "trace_fixture.hpp"

namespace tether::graph {
namespace {

bool HasEdge(const ScopeGraph& sg, const std::string& from, const std::string& to, EdgeKind kind) {
  auto f = sg.Find(from);
  auto t = sg.Find(to);
  if (!f || !t) return false;
  for (auto e : boost::make_iterator_range(boost::out_edges(*f, sg.graph))) {
    if (boost::target(e, sg.graph) == *t && sg.graph[e].kind == kind) return true;
  }
  return false;
}

std::vector<std::string> Keys(const ScopeGraph& sg, const std::vector<Vertex>& vs) {
  std::vector<std::string> keys;
  for (Vertex v : vs) keys.push_back(sg.graph[v].key);
  return keys;
}

class TraceGraphTest : public ::testing::Test {
 protected:
  ScopeGraph sg = BuildFromTrace(testing::BuildTrace(), testing::BuildFindings());
};

TEST_F(TraceGraphTest, OneVertexPerRecord) {
  EXPECT_EQ(sg.CountNodes(NodeKind::kScope), 1u);
  EXPECT_EQ(sg.CountNodes(NodeKind::kContext), 4u);
  EXPECT_EQ(sg.CountNodes(NodeKind::kGroup), 1u);
  EXPECT_EQ(sg.CountNodes(NodeKind::kTask), 4u);
  EXPECT_EQ(sg.graph[*sg.Find("task:6")].name, "exec-steps");
  EXPECT_EQ(sg.graph[*sg.Find("scope:3")].site.file, "exec.cpp");
}

TEST_F(TraceGraphTest, EdgesFollowTheTrace) {
  EXPECT_TRUE(HasEdge(sg, "ctx:2", "ctx:1", EdgeKind::kDerivedFrom));
  EXPECT_TRUE(HasEdge(sg, "ctx:4", "ctx:2", EdgeKind::kDerivedFrom));
  EXPECT_TRUE(HasEdge(sg, "task:6", "ctx:4", EdgeKind::kSpawnedBy));
  EXPECT_TRUE(HasEdge(sg, "task:6", "group:5", EdgeKind::kBelongsTo));
  EXPECT_TRUE(HasEdge(sg, "task:6", "group:5", EdgeKind::kWaitedBy));
  EXPECT_TRUE(HasEdge(sg, "group:5", "scope:3", EdgeKind::kBelongsTo));
  EXPECT_TRUE(HasEdge(sg, "ctx:2", "scope:3", EdgeKind::kBelongsTo));
  EXPECT_TRUE(HasEdge(sg, "task:9", "scope:3", EdgeKind::kBelongsTo));
  EXPECT_TRUE(HasEdge(sg, "task:8", "scope:3", EdgeKind::kBelongsTo));  // detached from it
  // exec-steps returned canceled after its context was cancelled.
  EXPECT_TRUE(HasEdge(sg, "task:6", "ctx:4", EdgeKind::kCancelledBy));
  EXPECT_FALSE(HasEdge(sg, "task:9", "group:5", EdgeKind::kWaitedBy));
}

TEST_F(TraceGraphTest, StatusesComeFromFindings) {
  EXPECT_EQ(sg.graph[*sg.Find("task:9")].status, Status::kZombie);
  EXPECT_EQ(sg.graph[*sg.Find("task:8")].status, Status::kZombie);
  EXPECT_EQ(sg.graph[*sg.Find("task:10")].status, Status::kLeaked);
  EXPECT_EQ(sg.graph[*sg.Find("task:6")].status, Status::kOk);
  EXPECT_EQ(sg.graph[*sg.Find("ctx:7")].status, Status::kDetached);  // the cut
  ASSERT_EQ(sg.findings.size(), 3u);
  EXPECT_EQ(sg.findings[0].kind, "zombie");
  EXPECT_NE(sg.findings[0].message.find("0.003 ms"), std::string::npos) << sg.findings[0].message;
  EXPECT_EQ(sg.findings[2].kind, "leak");
}

TEST_F(TraceGraphTest, ZombieTiedToItsScopeHasAPathToIt) {
  Analyses a = AnalyzeGraph(sg);
  ASSERT_EQ(a.ownership.size(), 3u);
  const OwnershipPath& upload = a.ownership[0];
  EXPECT_TRUE(upload.reaches_scope);
  EXPECT_EQ(Keys(sg, upload.path), (std::vector<std::string>{"task:9", "ctx:2", "scope:3"}));
  ASSERT_TRUE(upload.first_root);
  EXPECT_EQ(sg.graph[*upload.first_root].key, "ctx:1");
}

TEST_F(TraceGraphTest, DetachedZombieChainIsCutAtItsRoot) {
  Analyses a = AnalyzeGraph(sg);
  const OwnershipPath& stream = a.ownership[1];
  EXPECT_FALSE(stream.reaches_scope);
  EXPECT_EQ(Keys(sg, stream.path), (std::vector<std::string>{"task:8", "ctx:7"}));
  ASSERT_TRUE(stream.first_root);
  EXPECT_EQ(sg.graph[*stream.first_root].key, "ctx:7");
  EXPECT_TRUE(a.ownership[2].leak);
  EXPECT_FALSE(a.ownership[2].scope);
}

TEST_F(TraceGraphTest, SpawnTreeHangsGroupsAndTasksUnderScopes) {
  Analyses a = AnalyzeGraph(sg);
  EXPECT_EQ(Keys(sg, a.spawn_roots), (std::vector<std::string>{"scope:3", "task:10"}));
  auto children = Keys(sg, a.spawn_children[*sg.Find("scope:3")]);
  std::sort(children.begin(), children.end());
  EXPECT_EQ(children, (std::vector<std::string>{"group:5", "task:8", "task:9"}));
  EXPECT_EQ(Keys(sg, a.spawn_children[*sg.Find("group:5")]), (std::vector<std::string>{"task:6"}));
}

TEST_F(TraceGraphTest, TasksNoGroupWaitedFor) {
  Analyses a = AnalyzeGraph(sg);
  EXPECT_EQ(Keys(sg, a.unwaited_tasks), (std::vector<std::string>{"task:8", "task:9", "task:10"}));
}

TEST(TraceGraph, SpawningTaskIsTheSpawnTreeParentButNotAnOwner) {
  trace::Trace t = testing::BuildTrace();
  t.tasks[9].parent_task = 6;  // exec-steps spawned upload on the scope's context
  ScopeGraph sg = BuildFromTrace(t, testing::BuildFindings());
  EXPECT_TRUE(HasEdge(sg, "task:9", "task:6", EdgeKind::kSpawnedBy));
  Analyses a = AnalyzeGraph(sg);
  EXPECT_EQ(Keys(sg, a.spawn_children[*sg.Find("task:6")]), (std::vector<std::string>{"task:9"}));
  auto children = Keys(sg, a.spawn_children[*sg.Find("scope:3")]);
  std::sort(children.begin(), children.end());
  EXPECT_EQ(children, (std::vector<std::string>{"group:5", "task:8"}));
  // Ownership still follows the context, not the spawning thread.
  EXPECT_EQ(Keys(sg, a.ownership[0].path), (std::vector<std::string>{"task:9", "ctx:2", "scope:3"}));
}

TEST(TraceGraph, UnrecordedParentBecomesAPlaceholderRoot) {
  trace::Trace t;
  t.start_ns = 0;
  t.contexts[5] = {5, 99, "cancel", 0, {"a.cpp", 1, "f"}, 10, std::nullopt, ""};
  trace::TaskRecord task;
  task.id = 6;
  task.ctx = 5;
  task.name = "orphan";
  t.tasks[6] = task;
  trace::Finding leak;
  leak.kind = trace::FindingKind::kLeak;
  leak.task = 6;
  ScopeGraph sg = BuildFromTrace(t, {leak});
  auto parent = sg.Find("ctx:99");
  ASSERT_TRUE(parent);
  EXPECT_FALSE(sg.graph[*parent].recorded);
  Analyses a = AnalyzeGraph(sg);
  ASSERT_EQ(a.ownership.size(), 1u);
  EXPECT_EQ(Keys(sg, a.ownership[0].path), (std::vector<std::string>{"task:6", "ctx:5", "ctx:99"}));
}

TEST(TraceGraph, UnwaitedGroupIsLeaked) {
  trace::Trace t;
  trace::GroupRecord g;
  g.id = 2;
  g.destroyed_unwaited = true;
  g.running_at_destroy = 3;
  t.groups[2] = g;
  trace::Finding f;
  f.kind = trace::FindingKind::kUnwaitedGroup;
  f.group = 2;
  ScopeGraph sg = BuildFromTrace(t, {f});
  EXPECT_EQ(sg.graph[*sg.Find("group:2")].status, Status::kLeaked);
  ASSERT_EQ(sg.findings.size(), 1u);
  EXPECT_EQ(sg.findings[0].kind, "unwaited-group");
  EXPECT_EQ(sg.findings[0].node, sg.Find("group:2"));
}

StaticGraph SmallStatic() {
  StaticGraph s;
  s.functions.push_back({"f1", "ExecBuild", "w::ExecBuild", "build.cpp", 12, true, false, {}});
  s.functions.push_back({"f2", "StreamBuild", "w::StreamBuild", "stream.cpp", 30, true, false,
                         {{"stream.cpp", 40, "tether::Background()", false}}});
  s.functions.push_back({"f3", "Upload", "w::Upload", "upload.cpp", 5, false, false, {}});
  s.calls.push_back({"f1", "f2", "build.cpp", 20, true});
  s.calls.push_back({"f1", "f3", "build.cpp", 21, false});
  s.findings.push_back({"tether-detached-context", "stream.cpp", 40, 15, "fresh root", "f2"});
  s.findings.push_back({"context-not-forwarded", "build.cpp", 21, 3, "drops ctx", "w::ExecBuild"});
  s.findings.push_back({"lost-cancel", "x.cpp", 1, 1, "no function", "nowhere"});
  return s;
}

TEST(StaticGraphBuild, JustifiedAndByDesignRootsAreNotDetached) {
  StaticGraph s;
  StaticFunction worker{"w", "Run", "Run", "w.cpp", 1, true, false, {{"w.cpp", 2, "tether::Background", true}}};
  StaticFunction factory{"f", "Make", "Make", "f.cpp", 1, true, true, {{"f.cpp", 2, "tether::Background", false}}};
  s.functions = {worker, factory};
  s.findings.push_back({"tether-unwaited-group", "w.cpp", 3, 1, "m", "Run"});
  ScopeGraph sg = BuildFromStatic(s);
  EXPECT_EQ(sg.graph[*sg.Find("root:0")].status, Status::kOk);
  EXPECT_EQ(sg.graph[*sg.Find("root:1")].status, Status::kOk);
  EXPECT_EQ(sg.graph[*sg.Find("fn:0")].status, Status::kLeaked);  // prefixed check name understood
}

TEST(StaticGraphBuild, FunctionsRootsCallsAndFindings) {
  ScopeGraph sg = BuildFromStatic(SmallStatic());
  EXPECT_EQ(sg.source, SourceKind::kStatic);
  EXPECT_EQ(sg.CountNodes(NodeKind::kFunction), 3u);
  EXPECT_EQ(sg.CountNodes(NodeKind::kContext), 1u);
  Vertex root = *sg.Find("root:0");
  EXPECT_EQ(sg.graph[root].status, Status::kDetached);  // a fresh root where a context was at hand
  EXPECT_TRUE(HasEdge(sg, "root:0", "fn:1", EdgeKind::kBelongsTo));
  int passing = 0, dropping = 0;
  for (auto e : boost::make_iterator_range(boost::edges(sg.graph))) {
    if (sg.graph[e].kind != EdgeKind::kCalls) continue;
    (sg.graph[e].passes_context ? passing : dropping)++;
  }
  EXPECT_EQ(passing, 1);
  EXPECT_EQ(dropping, 1);
  ASSERT_EQ(sg.findings.size(), 3u);
  EXPECT_EQ(sg.findings[0].node, sg.Find("fn:1"));  // by id
  EXPECT_EQ(sg.findings[1].node, sg.Find("fn:0"));  // by qualified name
  EXPECT_FALSE(sg.findings[2].node);                // unknown function: still listed
  EXPECT_EQ(sg.graph[*sg.Find("fn:0")].status, Status::kDetached);
  Analyses a = AnalyzeGraph(sg);
  EXPECT_TRUE(a.ownership.empty());
  EXPECT_TRUE(a.unwaited_tasks.empty());
}

}  // namespace
}  // namespace tether::graph
