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
  EXPECT_EQ(error, "m.json:1:2: 'context_types' must be an array of strings");
  EXPECT_FALSE(ParseModel("{\"context_types\": [\"c\"],\n \"spawns\": []}", "m.json", &m, &error));
  EXPECT_EQ(error, "m.json:2:2: unknown key 'spawns'");
  EXPECT_FALSE(ParseModel("{\"root_factories\": []}", "m.json", &m, &error));
  EXPECT_NE(error.find("'context_types' must name at least one type"), std::string::npos);
  EXPECT_FALSE(ParseModel("{\"context_types\": [\"c\"], \"task_groups\": [{\"type\": \"G\"}]}", "m.json", &m,
                          &error));
  EXPECT_NE(error.find("needs at least one 'join' method"), std::string::npos);
}

}  // namespace
}  // namespace tether::check
