#include <gtest/gtest.h>

#include "tether/check/model.hpp"

namespace tether::check {
namespace {

TEST(Model, BuiltinsLoadAndMerge) {
  ApiModel m;
  std::string error;
  ASSERT_TRUE(LoadModel("builtin:libtether", &m, &error)) << error;
  ASSERT_TRUE(LoadModel("builtin:std-stop-token", &m, &error)) << error;
  EXPECT_TRUE(ApiModel::Contains(m.context_types, "tether::Context"));
  EXPECT_TRUE(ApiModel::Contains(m.context_types, "std::stop_token"));
  ASSERT_NE(m.FindGroup("tether::TaskGroup"), nullptr);
  EXPECT_TRUE(m.FindGroup("std::thread")->spawn_on_construct);
  EXPECT_EQ(m.names.size(), 2u);
}

TEST(Model, SyntaxErrorNamesLineAndColumn) {
  ApiModel m;
  std::string error;
  EXPECT_FALSE(ParseModel("{\n  \"context_types\": [\"a\",]\n}\n", "m.json", &m, &error));
  EXPECT_EQ(error.rfind("m.json:2:", 0), 0u) << error;
  EXPECT_NE(error.find("invalid JSON"), std::string::npos) << error;
}

TEST(Model, WrongTypesAndUnknownKeysAreErrors) {
  ApiModel m;
  std::string error;
  EXPECT_FALSE(ParseModel("{\"context_types\": \"tether::Context\"}", "m.json", &m, &error));
  EXPECT_EQ(error, "m.json:1:2: error: 'context_types' must be an array of strings");
  EXPECT_FALSE(ParseModel("{\"context_types\": [\"c\"],\n \"spawns\": []}", "m.json", &m, &error));
  EXPECT_EQ(error, "m.json:2:2: error: unknown key 'spawns'");
  EXPECT_FALSE(ParseModel("{\"root_factories\": []}", "m.json", &m, &error));
  EXPECT_NE(error.find("'context_types' must name at least one type"), std::string::npos);
  EXPECT_FALSE(ParseModel("{\"context_types\": [\"c\"], \"task_groups\": [{\"type\": \"G\"}]}", "m.json", &m,
                          &error));
  EXPECT_NE(error.find("needs at least one 'join' method"), std::string::npos);
}

// A value nlohmann would throw on (a number too large for a double, a key
// of the wrong type) is a located error, never an exception.
TEST(Model, ParserExceptionsBecomeLocatedErrors) {
  ApiModel m;
  std::string error;
  EXPECT_FALSE(ParseModel("{\"context_types\": [\"c\"],\n \"name\": 1e400}", "m.json", &m, &error));
  EXPECT_EQ(error, "m.json:2:10: error: invalid JSON: number overflow parsing '1e400'");
  EXPECT_FALSE(ParseModel("{\"context_types\": [\"c\"], \"name\": 5}", "m.json", &m, &error));
  EXPECT_EQ(error, "m.json:1:26: error: 'name' must be a string");
  EXPECT_FALSE(ParseModel(R"({"context_types": ["c"], "task_groups": [{"type": "G", "join": ["Wait"],
                             "spawn_on_construct": "yes"}]})",
                          "m.json", &m, &error));
  EXPECT_EQ(error, "m.json:2:30: error: 'spawn_on_construct' must be true or false");
  std::string deep = "{\"context_types\": [\"c\"], \"name\": " + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  EXPECT_FALSE(ParseModel(deep, "m.json", &m, &error));
  EXPECT_EQ(error, "m.json:1:289: error: invalid JSON: nested more than 256 levels deep");
}

// Merging keeps the first occurrence of each name, in order, across lists of
// 80,000 names (quadratic merging took seconds here; this asserts the result
// only: bench/results/robustness.md has the timing).
TEST(Model, MergeOfEightyThousandNamesKeepsEachOnceInOrder) {
  constexpr int kNames = 80000;
  ApiModel big;
  for (int i = 0; i < kNames; ++i) big.context_types.push_back("ns::Ctx" + std::to_string(i));
  for (int i = 0; i < kNames; ++i) big.context_types.push_back("ns::Ctx" + std::to_string(i / 2));
  for (int i = 0; i < kNames; ++i) big.task_groups.push_back({"G" + std::to_string(i % 1000), {}, {"Wait"}, {}, false});
  ApiModel merged;
  merged.context_types = {"ns::Ctx5", "first"};
  merged.Merge(big);
  ASSERT_EQ(merged.context_types.size(), static_cast<std::size_t>(kNames) + 1);
  EXPECT_EQ(merged.context_types[0], "ns::Ctx5");
  EXPECT_EQ(merged.context_types[1], "first");
  EXPECT_EQ(merged.context_types[2], "ns::Ctx0");
  EXPECT_EQ(merged.context_types[6], "ns::Ctx4");
  EXPECT_EQ(merged.context_types[7], "ns::Ctx6");
  EXPECT_EQ(merged.context_types.back(), "ns::Ctx" + std::to_string(kNames - 1));
  EXPECT_EQ(merged.task_groups.size(), 1000u);
  merged.Merge(merged);  // merging a model into itself adds nothing
  EXPECT_EQ(merged.context_types.size(), static_cast<std::size_t>(kNames) + 1);
  EXPECT_EQ(merged.task_groups.size(), 1000u);
}

}  // namespace
}  // namespace tether::check
