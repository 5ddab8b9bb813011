#include <gtest/gtest.h>

#include "tether/check/suppress.hpp"

namespace tether::check {
namespace {

TEST(Justification, DetachedMarkerWithReason) {
  auto markers = ScanJustifications("int x;\n  f();  // tether:detached(process lifetime (see DESIGN))\n");
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(markers[0].line, 2u);
  EXPECT_EQ(markers[0].marker, "tether:detached");
  EXPECT_EQ(markers[0].reason, "process lifetime (see DESIGN)");
}

TEST(Justification, EmptyReasonsAreKept) {
  auto markers = ScanJustifications("f(); // tether:detached(  )\ng(); // NOLINT(tether-lost-cancel)\n");
  ASSERT_EQ(markers.size(), 2u);
  EXPECT_EQ(markers[0].reason, "");
  EXPECT_EQ(markers[1].marker, "NOLINT");
  EXPECT_EQ(markers[1].checks, "tether-lost-cancel");
  EXPECT_EQ(markers[1].reason, "");
}

TEST(Justification, NolintReasonAfterColon) {
  auto markers = ScanJustifications("g(); // NOLINT(tether-*): shutdown path\n");
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(markers[0].reason, "shutdown path");
}

TEST(Justification, MarkersOutsideCommentsAreIgnored) {
  EXPECT_TRUE(ScanJustifications("const char* s = \"tether:detached(x)\";\n").empty());
}

TEST(Justification, AppliesOnTheLineAndTheCommentBlockAbove) {
  std::string text =
      "// tether:detached(one build must not cancel another)\n"
      "// (a second comment line)\n"
      "Exec(Background());\n"
      "Other(Background());\n";
  auto lines = SplitLines(text);
  auto markers = ScanJustifications(text);
  EXPECT_TRUE(FindJustification(lines, markers, 3, "tether-detached-context").has_value());
  EXPECT_FALSE(FindJustification(lines, markers, 4, "tether-detached-context").has_value());
}

TEST(Justification, NolintNamesItsChecks) {
  std::string text =
      "a(); // NOLINT(tether-lost-cancel): why\n"
      "// NOLINTNEXTLINE(tether-detached-*): why\n"
      "b();\n";
  auto lines = SplitLines(text);
  auto markers = ScanJustifications(text);
  EXPECT_TRUE(FindJustification(lines, markers, 1, "tether-lost-cancel").has_value());
  EXPECT_FALSE(FindJustification(lines, markers, 1, "tether-detached-task").has_value());
  EXPECT_TRUE(FindJustification(lines, markers, 3, "tether-detached-task").has_value());
  EXPECT_FALSE(FindJustification(lines, markers, 3, "tether-lost-cancel").has_value());
}

// What tether-justification polices, and what a reasonless marker leaves to
// it (TuContext::MakeFinding): the one rule both read.
TEST(Justification, NamesTetherCheck) {
  auto markers = ScanJustifications(
      "a(); // tether:detached()\n"
      "b(); // NOLINT(tether-lost-cancel)\n"
      "c(); // NOLINT(bugprone-*,tether-*)\n"
      "d(); // NOLINT\n"
      "e(); // NOLINT(bugprone-use-after-move)\n");
  ASSERT_EQ(markers.size(), 5u);
  EXPECT_TRUE(NamesTetherCheck(markers[0]));
  EXPECT_TRUE(NamesTetherCheck(markers[1]));
  EXPECT_TRUE(NamesTetherCheck(markers[2]));
  EXPECT_FALSE(NamesTetherCheck(markers[3]));
  EXPECT_FALSE(NamesTetherCheck(markers[4]));
}

TEST(CheckGlobs, LikeClangTidy) {
  EXPECT_TRUE(CheckEnabled("tether-*", "tether-lost-cancel"));
  EXPECT_FALSE(CheckEnabled("-*,tether-lost-cancel", "tether-detached-task"));
  EXPECT_TRUE(CheckEnabled("-*,tether-lost-cancel", "tether-lost-cancel"));
  EXPECT_FALSE(CheckEnabled("tether-*,-tether-detached-*", "tether-detached-task"));
  EXPECT_TRUE(CheckEnabled("tether-*,-tether-detached-*", "tether-unwaited-group"));
  EXPECT_FALSE(CheckEnabled("", "tether-unwaited-group"));
}

}  // namespace
}  // namespace tether::check

namespace tether::check {
namespace {

TEST(Justification, ReasonMayContinueOnTheNextCommentLine) {
  std::string text =
      "// tether:detached(the stop notice must reach the log after the step's\n"
      "// context ended; the log channel is closed only after every step)\n"
      "Send(WithoutCancel(ctx));\n";
  auto markers = ScanJustifications(text);
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(markers[0].reason, "the stop notice must reach the log after the step's");
  auto lines = SplitLines(text);
  EXPECT_TRUE(FindJustification(lines, markers, 3, "tether-detached-context").has_value());
}

}  // namespace
}  // namespace tether::check
