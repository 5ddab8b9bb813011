// LineFilter: clang-tidy's --line-filter JSON and unified diffs (--diff).
#include "tether/check/line_filter.hpp"

#include <gtest/gtest.h>

namespace tether::check {
namespace {

TEST(LineFilter, GitDiffNewSideOnly) {
  LineFilter f;
  std::string error;
  ASSERT_TRUE(LineFilter::FromUnifiedDiff("diff --git a/src/a.cpp b/src/a.cpp\n"
                                          "--- a/src/a.cpp\n"
                                          "+++ b/src/a.cpp\n"
                                          "@@ -3,0 +4,2 @@\n"
                                          "+x\n+y\n"
                                          "@@ -10 +12 @@\n"
                                          "-old\n+new\n"
                                          "@@ -20,2 +21,0 @@\n"
                                          "-gone\n-gone\n",
                                          "d", &f, &error))
      << error;
  EXPECT_TRUE(f.Passes("/r/src/a.cpp", 4));
  EXPECT_TRUE(f.Passes("/r/src/a.cpp", 5));
  EXPECT_FALSE(f.Passes("/r/src/a.cpp", 6));
  EXPECT_TRUE(f.Passes("/r/src/a.cpp", 12));
  EXPECT_FALSE(f.Passes("/r/src/a.cpp", 21));  // a pure deletion adds no line
  EXPECT_FALSE(f.Passes("/r/other/b.cpp", 4));
}

TEST(LineFilter, DiffUTimestampsDeletedFilesAndCrlf) {
  LineFilter f;
  std::string error;
  ASSERT_TRUE(LineFilter::FromUnifiedDiff("--- a.cpp\t2026-12-05 10:00:00\r\n"
                                          "+++ a.cpp\t2026-12-05 11:00:00\r\n"
                                          "@@ -1,2 +1,3 @@\r\n"
                                          "--- b/gone.cpp\n"
                                          "+++ /dev/null\n"
                                          "@@ -1,5 +0,0 @@\n",
                                          "d", &f, &error))
      << error;
  EXPECT_TRUE(f.Passes("/x/a.cpp", 3));
  EXPECT_FALSE(f.Passes("/x/data.cpp", 3)) << "a name matches at a path boundary";
  EXPECT_EQ(f.files(), 1u) << "a deleted file has no lines to report on";
}

TEST(LineFilter, EmptyDiffPassesNothingAndNonDiffIsAnError) {
  LineFilter f;
  std::string error;
  ASSERT_TRUE(LineFilter::FromUnifiedDiff("", "d", &f, &error));
  EXPECT_FALSE(f.Passes("/x/a.cpp", 1));
  EXPECT_FALSE(LineFilter::FromUnifiedDiff("int main() {}\n", "main.cpp", &f, &error));
  EXPECT_EQ(error, "main.cpp: error: not a unified diff (no \"+++ FILE\" line); make one with git diff -U0");
  EXPECT_FALSE(LineFilter::FromUnifiedDiff("+++ b/a.cpp\n@@ -1 +1,x @@\n", "p.diff", &f, &error));
  EXPECT_EQ(error, "p.diff:2: error: not a unified diff hunk header (expected \"@@ -A,B +C,D @@\")");
}

TEST(LineFilter, ClangTidyJson) {
  LineFilter f;
  std::string error;
  ASSERT_TRUE(LineFilter::FromJson(R"([{"name":"a.cpp","lines":[[1,3],[7,7]]},{"name":"inc/b.h"}])",
                                   "--line-filter", &f, &error))
      << error;
  EXPECT_TRUE(f.Passes("/p/a.cpp", 2));
  EXPECT_TRUE(f.Passes("/p/a.cpp", 7));
  EXPECT_FALSE(f.Passes("/p/a.cpp", 5));
  EXPECT_TRUE(f.Passes("/p/inc/b.h", 999)) << "no lines: the whole file";
  EXPECT_FALSE(LineFilter::FromJson("{}", "--line-filter", &f, &error));
  EXPECT_FALSE(LineFilter::FromJson("[{\"name\":\"a\",\"lines\":[[3,1]]}]", "--line-filter", &f, &error));
  EXPECT_NE(error.find("a range of a is not [FIRST, LAST] with FIRST <= LAST"), std::string::npos) << error;
  EXPECT_FALSE(LineFilter::FromJson("[", "--line-filter", &f, &error));
  EXPECT_EQ(error, "--line-filter: error: not valid JSON");
}

}  // namespace
}  // namespace tether::check
