// Input detection and the static-graph loader: every error names path:line:col.
#include <gtest/gtest.h>

#include "tether/graph/input.hpp"

namespace tether::graph {
namespace {

const char* kGood = R"JSON({
  "tether_static_graph": 1,
  "functions": [
    {"id": "a", "name": "A", "qualified_name": "n::A", "file": "a.cpp", "line": 1,
     "receives_context": true, "creates_roots": [{"file": "a.cpp", "line": 2, "call": "tether::TODO()"}]},
    {"id": 7, "name": "B", "qualified_name": "n::B", "file": "b.cpp", "line": 3, "receives_context": false}
  ],
  "calls": [{"from": "a", "to": 7, "file": "a.cpp", "line": 4, "passes_context": false}],
  "findings": [{"check": "detached-context", "file": "a.cpp", "line": 2, "col": 9, "message": "m", "function": "a"}]
})JSON";

Error Load(const std::string& text, StaticGraph* g) { return LoadStaticGraph("g.json", text, g); }

TEST(StaticGraphLoad, ReadsEveryField) {
  StaticGraph g;
  ASSERT_TRUE(Load(kGood, &g).ok());
  ASSERT_EQ(g.functions.size(), 2u);
  EXPECT_EQ(g.functions[0].qualified_name, "n::A");
  EXPECT_TRUE(g.functions[0].receives_context);
  ASSERT_EQ(g.functions[0].creates_roots.size(), 1u);
  EXPECT_EQ(g.functions[0].creates_roots[0].call, "tether::TODO()");
  EXPECT_EQ(g.functions[1].id, "7");  // integer ids are kept as text
  ASSERT_EQ(g.calls.size(), 1u);
  EXPECT_EQ(g.calls[0].to, "7");
  EXPECT_FALSE(g.calls[0].passes_context);
  ASSERT_EQ(g.findings.size(), 1u);
  EXPECT_EQ(g.findings[0].col, 9);
}

TEST(StaticGraphLoad, TruncatedInputNamesTheEnd) {
  std::string text = kGood;
  text.resize(text.find("\"calls\""));
  StaticGraph g;
  Error err = Load(text, &g);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.message().rfind("g.json:8:3: error: malformed JSON: ", 0), 0u) << err.message();
}

TEST(StaticGraphLoad, MistypedFieldNamesItsPosition) {
  std::string text = kGood;
  text.replace(text.find("\"line\": 3"), 9, "\"line\": \"3\"");
  StaticGraph g;
  Error err = Load(text, &g);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.message(), "g.json:6:79: error: functions[1].line: expected an integer");
}

TEST(StaticGraphLoad, MissingFieldNamesTheObject) {
  std::string text = kGood;
  text.replace(text.find("\"check\": \"detached-context\", "), 29, "");
  StaticGraph g;
  Error err = Load(text, &g);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.message(), "g.json:9:16: error: findings[0]: missing required field \"check\"");
}

TEST(StaticGraphLoad, UnknownCallee) {
  std::string text = kGood;
  text.replace(text.find("\"to\": 7"), 7, "\"to\": 8");
  StaticGraph g;
  Error err = Load(text, &g);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.message(), "g.json:8:33: error: calls[0].to: unknown function id \"8\"");
}

TEST(StaticGraphLoad, UnsupportedVersion) {
  StaticGraph g;
  Error err = Load(R"({"tether_static_graph": 2, "functions": []})", &g);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.message(), "g.json:1:25: error: tether_static_graph: unsupported static graph version 2 "
                           "(this tether reads version 1)");
}

TEST(DetectInputTest, TellsTracesFromStaticGraphs) {
  InputKind kind;
  ASSERT_TRUE(DetectInput("t", "{\"ev\":\"header\",\"version\":1}\n{\"ev\":\"exit\"}\n", &kind).ok());
  EXPECT_EQ(kind, InputKind::kTrace);
  ASSERT_TRUE(DetectInput("s", kGood, &kind).ok());
  EXPECT_EQ(kind, InputKind::kStaticGraph);
  ASSERT_TRUE(DetectInput("s", "{\"tether_static_graph\":1,\"functions\":[]}", &kind).ok());
  EXPECT_EQ(kind, InputKind::kStaticGraph);
}

TEST(DetectInputTest, RejectsOtherInputWithAPosition) {
  InputKind kind;
  Error err = DetectInput("x.txt", "\n\n  hello", &kind);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.message(), "x.txt:3:3: error: expected a JSON object (a trace's header line or a static graph)");
  err = DetectInput("e.json", "  \n", &kind);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.message(), "e.json:2:1: error: empty input: expected a trace or a static graph");
  err = DetectInput("o.json", "{\"a\":1}\n", &kind);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.message().find("o.json:1:1: error: neither a trace"), std::string::npos) << err.message();
}

}  // namespace
}  // namespace tether::graph
