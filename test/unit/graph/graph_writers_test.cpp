// The writers: escaping, grouping of large graphs, and the JSON, DOT, HTML
// and Perfetto output of the hand-filled trace.
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tether/graph/writers.hpp"
#include "trace_fixture.hpp"

namespace tether::graph {
namespace {

using nlohmann::json;

ScopeGraph Fixture() { return BuildFromTrace(testing::BuildTrace(), testing::BuildFindings()); }

TEST(Escaping, HtmlTurnsMarkupIntoText) {
  EXPECT_EQ(EscapeHtml("<script>alert('x')</script> & \"y\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;y&quot;");
}

TEST(Escaping, DotEscapesBackslashQuoteAndNewline) {
  EXPECT_EQ(EscapeDotString("C:\\tmp \"a\"\nb"), "C:\\\\tmp \\\"a\\\"\\nb");
}

TEST(Escaping, InvalidUtf8IsReplaced) {
  EXPECT_EQ(ValidUtf8("ok\xff!"), "ok\xEF\xBF\xBD!");
  EXPECT_EQ(ValidUtf8("\xC3\xA9t\xC3\xA9"), "\xC3\xA9t\xC3\xA9");
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
}

TEST(Escaping, SourceLinks) {
  EXPECT_EQ(SourceHref("/src/a b.cpp", 12), "file:///src/a%20b.cpp#L12");
  EXPECT_EQ(SourceHref("rel/x.cpp", 3), "rel/x.cpp#L3");
  EXPECT_EQ(SourceHref("", 3), "");
}

TEST(Display, SmallGraphsAreDrawnWhole) {
  ScopeGraph sg = Fixture();
  DisplayGraph d = MakeDisplayGraph(sg);
  EXPECT_FALSE(d.grouped);
  EXPECT_EQ(d.nodes.size(), boost::num_vertices(sg.graph));
  EXPECT_EQ(d.nodes[d.node_of_vertex[*sg.Find("task:9")]].dom_id, "n_task_9");
}

TEST(Display, LargeGraphsGroupTasksBySiteAndStatus) {
  trace::Trace t;
  t.contexts[1] = {1, 0, "cancel", 0, {"a.cpp", 1, "f"}, 0, std::nullopt, ""};
  std::vector<trace::Finding> findings;
  for (std::uint64_t id = 10; id < 10 + 600; ++id) {
    trace::TaskRecord r;
    r.id = id;
    r.ctx = 1;
    r.name = "worker " + std::to_string(id);
    r.site = {id % 2 ? "odd.cpp" : "even.cpp", 7, "f"};
    r.end_ns = 5;
    t.tasks[id] = r;
    if (id % 100 == 0) {
      trace::Finding f;
      f.kind = trace::FindingKind::kLeak;
      f.task = id;
      findings.push_back(f);
    }
  }
  ScopeGraph sg = BuildFromTrace(t, findings);
  DisplayGraph d = MakeDisplayGraph(sg);
  EXPECT_TRUE(d.grouped);
  // ctx, odd ok, even ok, even leaked (every id % 100 == 0 is even).
  ASSERT_EQ(d.nodes.size(), 4u);
  std::set<std::string> labels;
  for (const DisplayNode& n : d.nodes) labels.insert(n.label.substr(0, n.label.find('\n')));
  EXPECT_TRUE(labels.count("300 tasks like worker 11")) << *labels.begin();
  EXPECT_TRUE(labels.count("294 tasks like worker 10") || labels.count("294 tasks like worker 12"));
  EXPECT_TRUE(labels.count("6 tasks like worker 100"));
  // Duplicate edges merge with a count.
  ASSERT_EQ(d.edges.size(), 3u);
  for (const DisplayEdge& e : d.edges) EXPECT_GT(e.count, 1u);
  EXPECT_FALSE(MakeDisplayGraph(sg, 1000).grouped);
}

TEST(JsonWriter, KeepsEveryNodeEdgeFindingAndAnalysis) {
  ScopeGraph sg = Fixture();
  std::ostringstream out;
  WriteJson(sg, AnalyzeGraph(sg), out);
  json j = json::parse(out.str());
  EXPECT_EQ(j["tether_scope_graph"], 1);
  EXPECT_EQ(j["nodes"].size(), boost::num_vertices(sg.graph));
  EXPECT_EQ(j["edges"].size(), boost::num_edges(sg.graph));
  EXPECT_EQ(j["findings"].size(), 3u);
  EXPECT_EQ(j["analyses"]["ownership"][1]["first_root"], "ctx:7");
  EXPECT_EQ(j["analyses"]["unwaited_tasks"].size(), 3u);
}

TEST(JsonWriter, NeverThrowsOnInvalidUtf8) {
  trace::Trace t = testing::BuildTrace();
  t.tasks[6].name = "bad\xff";
  ScopeGraph sg = BuildFromTrace(t, {});
  std::ostringstream out;
  ASSERT_NO_THROW(WriteJson(sg, AnalyzeGraph(sg), out));
  EXPECT_NE(out.str().find("bad\xEF\xBF\xBD"), std::string::npos);
}

TEST(DotWriter, NamesAreEscapedAndZombiesRed) {
  trace::Trace t = testing::BuildTrace();
  t.tasks[9].name = "up\"load\\";
  ScopeGraph sg = BuildFromTrace(t, testing::BuildFindings());
  std::ostringstream out;
  WriteDot(sg, MakeDisplayGraph(sg), out);
  std::string dot = out.str();
  EXPECT_NE(dot.find("label=\"task up\\\"load\\\\\\nexec.cpp:9\\nZOMBIE\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("\"n_task_9\" [id=\"n_task_9\", shape=box, style=\"filled,rounded\", fillcolor=\"#ef4444\""),
            std::string::npos);
}

TEST(HtmlWriter, ScriptNamesStayText) {
  trace::Trace t = testing::BuildTrace();
  t.tasks[9].name = "<script>alert(1)</script>";
  ScopeGraph sg = BuildFromTrace(t, testing::BuildFindings());
  std::ostringstream out;
  WriteHtml(sg, AnalyzeGraph(sg), MakeDisplayGraph(sg), "<svg></svg>", out);
  std::string html = out.str();
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"finding zombie\" id=\"finding-0\" data-kind=\"zombie\" data-scope=\"scope:3\" "
                      "data-node=\"n_task_9\">"),
            std::string::npos);
  // Two executable <script> elements, both ours (the report's and the
  // timeline's code); every other one is a data block (type="text/plain").
  std::size_t scripts = 0;
  for (std::size_t at = 0; (at = html.find("<script", at)) != std::string::npos; at += 7) {
    if (html.compare(at, 8, "<script>") == 0) {
      ++scripts;
    } else {
      EXPECT_EQ(html.compare(at, 25, "<script type=\"text/plain\""), 0) << html.substr(at, 60);
    }
  }
  EXPECT_EQ(scripts, 2u);
  // Nothing is fetched: the only URL is the inline timeline's SVG namespace
  // name, which a browser never loads.
  std::string without_ns = html;
  for (std::size_t at; (at = without_ns.find("xmlns=\"http://www.w3.org/2000/svg\"")) != std::string::npos;) {
    without_ns.erase(at, 34);
  }
  EXPECT_EQ(without_ns.find("http://"), std::string::npos);
  EXPECT_EQ(without_ns.find("https://"), std::string::npos);
}

TEST(PerfettoWriter, TracksFlowsAndZombieSlices) {
  ScopeGraph sg = Fixture();
  std::ostringstream out;
  ASSERT_TRUE(WritePerfetto(sg, out).ok());
  json j = json::parse(out.str());
  std::map<std::string, json> slice_by_name;
  std::map<std::uint64_t, std::string> phases_by_flow;
  for (const json& ev : j["traceEvents"]) {
    if (ev["ph"] == "X") slice_by_name[ev["name"]] = ev;
    if (ev["ph"] == "s" || ev["ph"] == "t" || ev["ph"] == "f") {
      phases_by_flow[ev["id"].get<std::uint64_t>()] += ev["ph"].get<std::string>();
    }
  }
  ASSERT_TRUE(slice_by_name.count("ZOMBIE upload"));
  EXPECT_EQ(slice_by_name["ZOMBIE upload"]["tid"], 9);
  ASSERT_TRUE(slice_by_name.count("ZOMBIE stream-logs"));
  ASSERT_TRUE(slice_by_name.count("LEAKED heartbeat"));
  ASSERT_TRUE(slice_by_name.count("exec-steps"));
  ASSERT_TRUE(slice_by_name.count("scope build 42"));
  EXPECT_EQ(slice_by_name["scope build 42"]["tid"], 3);
  EXPECT_EQ(phases_by_flow[6], "stf");  // spawn -> task -> join (the group's Wait)
  EXPECT_EQ(phases_by_flow[9], "sf");   // never joined
}

TEST(PerfettoWriter, StaticGraphsHaveNoTimeline) {
  StaticGraph s;
  s.functions.push_back({"f", "F", "F", "f.cpp", 1, false, false, {}});
  std::ostringstream out;
  EXPECT_EQ(WritePerfetto(BuildFromStatic(s), out).code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace tether::graph
