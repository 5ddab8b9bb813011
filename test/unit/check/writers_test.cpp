#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tether/check/writers.hpp"

namespace tether::check {
namespace {

Finding MakeFinding() {
  Finding f;
  f.check = "tether-detached-context";
  f.file = "/repo/src/a.cpp";
  f.line = 3;
  f.col = 7;
  f.offset = 20;
  f.message = "root context 'tether::Background()' created in 'F'";
  f.line_text = "  Use(tether::Background());";
  f.fixes.push_back({"/repo/src/a.cpp", 20, 20, "ctx"});
  f.notes.push_back({"/repo/src/a.cpp", 1, 30, "context 'ctx' is reachable here (parameter)", "void F(Ctx ctx) {"});
  return f;
}

TEST(Writers, TextLooksLikeClang) {
  RunSummary run;
  run.findings.push_back(MakeFinding());
  std::string text = TextReport(run);
  EXPECT_NE(text.find("/repo/src/a.cpp:3:7: warning: root context 'tether::Background()' created in 'F' "
                      "[tether-detached-context]\n  Use(tether::Background());\n      ^\n      ctx\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("/repo/src/a.cpp:1:30: note: context 'ctx' is reachable here"), std::string::npos);
}

TEST(Writers, YamlQuotesAndListsReplacements) {
  RunSummary run;
  Finding f = MakeFinding();
  f.message = "it's quoted";
  run.findings.push_back(f);
  std::string yaml = ExportFixesYaml(run, "/repo/src/a.cpp", "/repo/build");
  EXPECT_NE(yaml.find("Message:         'it''s quoted'"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("ReplacementText: 'ctx'"), std::string::npos) << yaml;
  RunSummary empty;
  EXPECT_NE(ExportFixesYaml(empty, "", "").find("Diagnostics: []"), std::string::npos);
}

TEST(Writers, SarifIsRepoRelativeWithFingerprints) {
  RunSummary run;
  run.enabled_checks = {{"tether-detached-context", "summary", "description", "help", "high"}};
  run.findings.push_back(MakeFinding());
  std::string sarif = SarifReport(run, "/repo", "0.1.0");
  EXPECT_NE(sarif.find("\"uri\": \"src/a.cpp\""), std::string::npos) << sarif;
  EXPECT_NE(sarif.find("primaryLocationLineHash"), std::string::npos);
  EXPECT_NE(sarif.find("\"version\": \"2.1.0\""), std::string::npos);
}

TEST(Fixes, AppliedBackToFrontAndConflictsSkipped) {
  char path[] = "/tmp/tether_fix_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  { std::ofstream(path) << "Use(Background()); Use(TODO());\n"; }
  Finding a, b, c;
  a.fixes.push_back({path, 4, 12, "ctx"});
  b.fixes.push_back({path, 23, 6, "ctx"});
  c.fixes.push_back({path, 5, 3, "zzz"});  // overlaps a: skipped
  std::vector<std::string> errors;
  EXPECT_EQ(ApplyFixes({a, b, c}, &errors), 2u);
  EXPECT_EQ(errors.size(), 1u);
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  EXPECT_EQ(text.str(), "Use(ctx); Use(ctx);\n");
  std::remove(path);
}

}  // namespace
}  // namespace tether::check
