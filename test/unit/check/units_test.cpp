// The units of one file (tether/check/units.hpp): which commands are checked,
// and how the results of a file's commands are merged.
#include <gtest/gtest.h>

#include "tether/check/units.hpp"

namespace tether::check {
namespace {

UnitCommand Cmd(std::string file, std::vector<std::string> args, std::string dir = "/b") {
  return {std::move(file), std::move(dir), std::move(args)};
}

Finding At(std::string check, unsigned line, std::string message) {
  Finding f;
  f.check = std::move(check);
  f.file = "/src/a.cpp";
  f.line = line;
  f.col = 3;
  f.message = std::move(message);
  return f;
}

TEST(DistinctUnits, SameCommandTwiceIsOneUnit) {
  // CMake's static and shared library: different flags, both kept; the same
  // command again (its -o already stripped by the adjusters) is dropped.
  std::vector<UnitCommand> units = {
      Cmd("/src/a.cpp", {"c++", "-c", "/src/a.cpp"}),
      Cmd("/src/a.cpp", {"c++", "-fPIC", "-c", "/src/a.cpp"}),
      Cmd("/src/a.cpp", {"c++", "-c", "/src/a.cpp"}),
      Cmd("/src/b.cpp", {"c++", "-c", "/src/a.cpp"}),            // another file: its own unit
      Cmd("/src/a.cpp", {"c++", "-c", "/src/a.cpp"}, "/other"),  // another directory
  };
  EXPECT_EQ(DistinctUnits(units), (std::vector<std::size_t>{0, 1, 3, 4}));
  EXPECT_TRUE(DistinctUnits({}).empty());
}

TEST(DistinctUnits, ArgumentOrderMatters) {
  // Argument order can change a parse (-I order, -D then -U): never merged.
  std::vector<UnitCommand> units = {Cmd("/a.cpp", {"c++", "-DX", "-UX"}),
                                    Cmd("/a.cpp", {"c++", "-UX", "-DX"})};
  EXPECT_EQ(DistinctUnits(units).size(), 2u);
}

TEST(MergeFileUnits, FindingsOnceEach) {
  UnitResult stat, shared;
  stat.analysed = shared.analysed = true;
  stat.findings = {At("tether-unwaited-group", 8, "thread 't'")};
  shared.findings = {At("tether-unwaited-group", 8, "thread 't'"),
                     At("tether-unwaited-group", 16, "thread 't'"),
                     At("tether-unwaited-group", 8, "another message")};
  UnitResult u = MergeFileUnits({stat, shared});
  ASSERT_EQ(u.findings.size(), 3u);
  EXPECT_EQ(u.findings[0].line, 8u);
  EXPECT_EQ(u.findings[1].line, 16u);
  EXPECT_EQ(u.findings[2].message, "another message");
  EXPECT_TRUE(u.analysed);
  EXPECT_FALSE(u.failed);
}

TEST(MergeFileUnits, FactsAndCandidatesOnce) {
  UnitResult a, b;
  a.analysed = b.analysed = true;
  a.facts.functions["f"].name = "first";
  b.facts.functions["f"].name = "second";
  b.facts.functions["g"].name = "only-b";
  ForwardCandidate c;
  c.finding = At("tether-context-not-forwarded", 4, "call to 'Upload'");
  c.callee_id = "c:@F@Upload";
  a.facts.candidates = {c};
  b.facts.candidates = {c};
  c.callee_id = "c:@F@Other";
  b.facts.candidates.push_back(c);
  BlockCandidate blk;
  blk.finding = At("tether-task-ignores-context", 5, "task");
  blk.callee_id = "c:@F@Read";
  a.facts.block_candidates = {blk};
  b.facts.block_candidates = {blk};
  UnitResult u = MergeFileUnits({a, b});
  EXPECT_EQ(u.facts.functions.at("f").name, "first");  // the first unit's, as Facts::Merge
  EXPECT_EQ(u.facts.functions.at("g").name, "only-b");
  ASSERT_EQ(u.facts.candidates.size(), 2u);
  EXPECT_EQ(u.facts.candidates[1].callee_id, "c:@F@Other");
  EXPECT_EQ(u.facts.block_candidates.size(), 1u);
}

TEST(MergeFileUnits, CountsFlagsAndMessages) {
  UnitResult a, b;
  a.analysed = b.analysed = true;
  a.suppressed = 2;  // the same justified site seen by both commands is one
  b.suppressed = 3;
  b.model_types = true;
  a.notes = {"inferred"};
  b.notes = {"inferred", "other"};
  a.deps = {{"/src/a.cpp", "h"}};
  UnitResult u = MergeFileUnits({a, b});
  EXPECT_EQ(u.suppressed, 3u);
  EXPECT_TRUE(u.model_types);
  EXPECT_EQ(u.notes, (std::vector<std::string>{"inferred", "other"}));
  EXPECT_TRUE(u.deps.empty());  // the cache keeps them per unit
}

TEST(MergeFileUnits, OneFailedCommandFailsTheFile) {
  UnitResult ok, gone;
  ok.analysed = true;
  ok.findings = {At("tether-unwaited-group", 8, "thread 't'")};
  gone.failed = true;
  gone.errors = {"error: the compile command's directory '/gone' does not exist"};
  UnitResult u = MergeFileUnits({ok, gone});
  EXPECT_TRUE(u.failed);
  EXPECT_TRUE(u.partial);  // the other command's findings are still reported
  EXPECT_EQ(u.findings.size(), 1u);
  EXPECT_EQ(u.errors.size(), 1u);

  UnitResult both = MergeFileUnits({gone, gone});
  EXPECT_TRUE(both.failed);
  EXPECT_FALSE(both.partial);         // nothing was analysed
  EXPECT_EQ(both.errors.size(), 1u);  // the same error once
}

TEST(MergeFileUnits, OneUnitIsUnchanged) {
  UnitResult a;
  a.failed = a.partial = a.analysed = true;
  a.findings = {At("x", 1, "m"), At("x", 1, "m")};  // SortAndDedupe's business, not the merge's
  UnitResult u = MergeFileUnits({a});
  EXPECT_EQ(u.findings.size(), 2u);
  EXPECT_TRUE(u.partial);
  EXPECT_TRUE(MergeFileUnits({}).findings.empty());
}

}  // namespace
}  // namespace tether::check
