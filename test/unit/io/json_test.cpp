// ParseJson: every nlohmann exception becomes an offset and a message, and
// deep nesting is refused before parsing.
#include "tether/io/json.hpp"

#include <string>

#include <gtest/gtest.h>

namespace tether::io {
namespace {

TEST(ParseJsonTest, ParsesValidJson) {
  nlohmann::json j;
  EXPECT_EQ(ParseJson(R"({"a": [1, 2]})", &j), std::nullopt);
  EXPECT_EQ(j["a"][1], 2);
  nlohmann::ordered_json o;
  EXPECT_EQ(ParseJson(R"({"b": 1, "a": 2})", &o), std::nullopt);
  EXPECT_EQ(o.begin().key(), "b");
}

TEST(ParseJsonTest, SyntaxErrorPointsAtTheByte) {
  nlohmann::json j;
  std::string text = "{\n  \"a\": [1,]\n}";
  std::optional<JsonProblem> p = ParseJson(text, &j);
  ASSERT_TRUE(p);
  TextPosition at = PositionAt(text, p->offset);
  EXPECT_EQ(at.line, 2u);
  EXPECT_EQ(at.column, 11u);  // the ']'
  EXPECT_EQ(p->message.rfind("syntax error while parsing value", 0), 0u) << p->message;
}

TEST(ParseJsonTest, NumberOverflowIsFoundByItsLiteral) {
  nlohmann::json j;
  std::string text = "{\"a\": 1,\n \"b\": -1e400}";
  std::optional<JsonProblem> p = ParseJson(text, &j);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->message, "number overflow parsing '-1e400'");
  EXPECT_EQ(text.substr(p->offset, 6), "-1e400");
}

TEST(ParseJsonTest, DeepNestingIsRefusedBeforeParsing) {
  nlohmann::json j;
  std::string text = std::string(100000, '[') + std::string(100000, ']');
  std::optional<JsonProblem> p = ParseJson(text, &j);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->offset, kMaxJsonDepth);
  EXPECT_EQ(p->message, "nested more than 256 levels deep");
  EXPECT_EQ(ParseJson("[[[1]]]", &j, 2)->offset, 2u);
  EXPECT_EQ(ParseJson("[[[1]]]", &j, 3), std::nullopt);
}

TEST(ParseJsonTest, InvalidUtf8AndNulAreSyntaxErrors) {
  nlohmann::json j;
  std::optional<JsonProblem> bad_utf8 = ParseJson("[\"a\xff\"]", &j);
  ASSERT_TRUE(bad_utf8);
  EXPECT_NE(bad_utf8->message.find("ill-formed UTF-8 byte"), std::string::npos) << bad_utf8->message;
  std::optional<JsonProblem> nul = ParseJson(std::string("[\"a\0\"]", 6), &j);
  ASSERT_TRUE(nul);
  EXPECT_NE(nul->message.find("control character U+0000"), std::string::npos) << nul->message;
  EXPECT_EQ(nul->offset, 3u);
}

}  // namespace
}  // namespace tether::io
