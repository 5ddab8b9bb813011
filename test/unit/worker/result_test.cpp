// build.json: always written whole, whatever bytes the record holds.
#include "executor/result.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tether::worker::executor {
namespace {

// A step name that is not UTF-8 (Latin-1 "café", a lone continuation byte)
// made nlohmann's dump throw type_error 316: build.json.tmp stayed behind and
// no build.json was written. Now the bad bytes become U+FFFD.
TEST(WriteBuildJson, InvalidUtf8IsReplacedAndNoTemporaryStays) {
  char templ[] = "/tmp/tether-result-test-XXXXXX";
  ASSERT_NE(mkdtemp(templ), nullptr);
  const std::string dir = templ;
  BuildRecord build;
  build.id = "b-1";
  build.pipeline_file = "p\xff.yml";
  build.status = BuildStatus::kSuccess;
  build.notes = {"note \x80 here"};
  ContainerRecord step;
  step.name = "caf\xe9";
  step.kind = ContainerKind::kStep;
  step.reason = "bad \xc3";
  build.steps.push_back(step);
  ASSERT_TRUE(WriteBuildJson(build, dir + "/build.json").ok());
  std::vector<std::string> names;  // build.json alone: no temporary stays
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"build.json"});
  std::ifstream in(dir + "/build.json");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str());  // valid JSON, valid UTF-8
  EXPECT_EQ(j["steps"][0]["name"], "caf\xEF\xBF\xBD");
  EXPECT_EQ(j["pipeline"], "p\xEF\xBF\xBD.yml");
  EXPECT_EQ(j["notes"][0], "note \xEF\xBF\xBD here");
  std::filesystem::remove_all(dir);
}

// A directory that cannot be written: an error, and nothing left behind.
TEST(WriteBuildJson, FailureLeavesNothing) {
  BuildRecord build;
  build.id = "b-1";
  Error err = WriteBuildJson(build, "/nonexistent-dir-of-tether/build.json");
  EXPECT_EQ(err.code(), ErrorCode::kIo);
  EXPECT_EQ(err.message(),
            "cannot write /nonexistent-dir-of-tether/build.json: cannot create a temporary file in "
            "/nonexistent-dir-of-tether: No such file or directory");
  EXPECT_FALSE(std::filesystem::exists("/nonexistent-dir-of-tether"));
}

}  // namespace
}  // namespace tether::worker::executor
