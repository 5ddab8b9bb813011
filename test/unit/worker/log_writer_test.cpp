// Masking secrets and the log file's size limit.
#include "executor/log_writer.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "executor/live_output.hpp"

namespace tether::worker::executor {
namespace {

TEST(Masker, MasksEveryOccurrence) {
  Masker m({"hunter2", "tok"});
  EXPECT_EQ(m.Mask("pw=hunter2 and hunter2"), "pw=*** and ***");
  EXPECT_EQ(m.Mask("tokentok"), "***en***");
  EXPECT_EQ(m.Mask("nothing secret"), "nothing secret");
}

TEST(Masker, LongerSecretsFirst) {
  // "abc" is inside "abcdef": the whole longer secret is masked, not "***def".
  Masker m({"abc", "abcdef"});
  EXPECT_EQ(m.Mask("x abcdef y abc"), "x *** y ***");
}

TEST(Masker, IgnoresEmptyAndMasksMultiLineSecretsLineByLine) {
  Masker m({"", "-----BEGIN KEY-----\nAAAABBBB\nxy\n-----END KEY-----\n"});
  EXPECT_EQ(m.Mask("AAAABBBB"), "***");
  EXPECT_EQ(m.Mask("-----END KEY-----"), "***");
  EXPECT_EQ(m.Mask("xy stays: shorter than four characters"), "xy stays: shorter than four characters");
  EXPECT_TRUE(Masker({""}).empty());
}

class LogWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/tether-logwriter-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
    path_ = dir_ + "/step.log";
  }
  void TearDown() override {
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  std::string Read() {
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string dir_, path_;
};

TEST_F(LogWriterTest, SplitsChunksIntoMaskedLines) {
  Masker masker({"s3cret"});
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open({path_, "", &masker, 0, nullptr}, &w).ok());
  // A secret split across two reads is still masked: lines are masked whole.
  w->Write("one s3c");
  w->Write("ret\ntwo\nthree without newline");
  w->Close();
  EXPECT_EQ(Read(), "one ***\ntwo\nthree without newline\n");
  EXPECT_EQ(w->bytes(), Read().size());
}

// What is left of a log once every *** and filler byte is removed: any
// fragment of an unmasked secret shows here.
std::string Residue(const std::string& log, char filler) {
  std::string out;
  for (std::size_t i = 0; i < log.size(); ++i) {
    if (log.compare(i, 3, "***") == 0) {
      i += 2;
    } else if (log[i] != filler && log[i] != '\n') {
      out.push_back(log[i]);
    }
  }
  return out;
}

// The worker splits a line of kMaxLine bytes or more. A canary secret placed
// across that split, arriving in pipe-sized reads, must be masked whole, at
// every offset around the boundary (it leaked as "CANARY-" + "s3cr3t" before).
TEST_F(LogWriterTest, SecretAcrossTheLongLineSplitIsMasked) {
  const std::string canary = "CANARY-s3cr3t";
  Masker masker({canary});
  for (std::size_t start = LogWriter::kMaxLine - canary.size(); start <= LogWriter::kMaxLine; ++start) {
    std::string line(start, 'x');
    line += canary + std::string(100, 'x') + canary + "\n";
    std::unique_ptr<LogWriter> w;
    ASSERT_TRUE(LogWriter::Open({path_, "", &masker, 0, nullptr}, &w).ok());
    for (std::size_t i = 0; i < line.size(); i += 65536) w->Write(std::string_view(line).substr(i, 65536));
    w->Close();
    const std::string log = Read();
    EXPECT_EQ(Residue(log, 'x'), "") << "canary at " << start;
    EXPECT_EQ(log.find("s3cr"), std::string::npos) << "canary at " << start;
    EXPECT_GE(log.size(), line.size() - 2 * canary.size());  // nothing else was lost
  }
}

// A secret across two writes, where the first write ends a long line's piece.
TEST_F(LogWriterTest, SecretAcrossTwoWritesAtTheSplitIsMasked) {
  Masker masker({"CANARY-s3cr3t"});
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open({path_, "", &masker, 0, nullptr}, &w).ok());
  w->Write(std::string(LogWriter::kMaxLine - 3, 'x') + "CAN");
  w->Write("ARY-s3cr3t and after\n");
  w->Close();
  const std::string log = Read();
  EXPECT_EQ(Residue(log, 'x'), " and after");
  EXPECT_NE(log.find("x***"), std::string::npos);
}

TEST_F(LogWriterTest, MaxSizeKeepsWholeLinesAndLeavesAMarker) {
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open({path_, "", nullptr, 10, nullptr}, &w).ok());
  w->Write("1234\n5678\n9abc\nmore\n");
  w->Close();
  EXPECT_TRUE(w->truncated());
  EXPECT_EQ(w->bytes(), 10u);
  EXPECT_EQ(Read(),
            "1234\n5678\n[tether-worker] log truncated: --max-log-size of 10 bytes reached; "
            "the rest of this output was dropped\n");
}

// With --max-log-size, one line longer than a quarter of the limit is cut
// with a note, and the step's later lines are kept (a 5 MB line used to use
// up the whole log). The line arrives in pipe-sized reads.
TEST_F(LogWriterTest, OverLongLineIsCutAndLaterLinesKept) {
  const std::uint64_t limit = 4096;
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open({path_, "", nullptr, limit, nullptr}, &w).ok());
  const std::string huge(50000, 'x');
  w->Write("before\n");
  for (std::size_t i = 0; i < huge.size(); i += 4096) w->Write(std::string_view(huge).substr(i, 4096));
  w->Write("\nafter 1\nafter 2\n");
  w->Close();
  EXPECT_FALSE(w->truncated());
  EXPECT_EQ(Read(), "before\n" + std::string(1024, 'x') +
                        "\n[tether-worker] line cut: it is longer than 1024 bytes (a quarter of "
                        "--max-log-size, at most 1 MiB); the rest of the line was dropped\n"
                        "after 1\nafter 2\n");
}

// The same cut when the whole line comes in one write, and for a last line
// without a newline.
TEST_F(LogWriterTest, OverLongLineInOneWriteAndAtTheEndAreCut) {
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open({path_, "", nullptr, 400, nullptr}, &w).ok());
  w->Write(std::string(300, 'a') + "\nok\n" + std::string(200, 'b'));
  w->Close();
  const std::string log = Read();
  EXPECT_EQ(log.find(std::string(100, 'a') + "\n[tether-worker] line cut: it is longer than 100 bytes"), 0u)
      << log;
  EXPECT_NE(log.find("\nok\n" + std::string(100, 'b') + "\n[tether-worker] line cut"), std::string::npos)
      << log;
  EXPECT_EQ(log.find(std::string(101, 'a')), std::string::npos);
}

// A secret across the cut is masked whole, never kept in part.
TEST_F(LogWriterTest, SecretAcrossTheCutIsMasked) {
  const std::string canary = "CANARY-s3cr3t";
  Masker masker({canary});
  for (std::size_t start = 1024 - canary.size(); start <= 1024; ++start) {
    std::string line(start, 'x');
    line += canary + std::string(3000, 'x') + "\nnext\n";
    std::unique_ptr<LogWriter> w;
    ASSERT_TRUE(LogWriter::Open({path_, "", &masker, 4096, nullptr}, &w).ok());
    for (std::size_t i = 0; i < line.size(); i += 512) w->Write(std::string_view(line).substr(i, 512));
    w->Close();
    const std::string log = Read();
    EXPECT_EQ(log.find("CANARY"), std::string::npos) << "canary at " << start;
    EXPECT_EQ(log.find("s3cr"), std::string::npos) << "canary at " << start;
    EXPECT_NE(log.find("\nnext\n"), std::string::npos) << "canary at " << start;
  }
}

TEST_F(LogWriterTest, LiveCopyIsPrefixedAndMasked) {
  char buf[4096] = {};
  std::FILE* mem = fmemopen(buf, sizeof buf, "w");
  ASSERT_NE(mem, nullptr);
  LiveOutput live(mem, /*lines=*/true, /*progress=*/false);
  Masker masker({"pw"});
  std::unique_ptr<LogWriter> w;
  ASSERT_TRUE(LogWriter::Open({path_, "[b-1/s] ", &masker, 0, &live}, &w).ok());
  w->Write("a pw\nb\n");
  w->Note("[tether-worker] note");
  w->Close();
  std::fclose(mem);
  EXPECT_STREQ(buf, "[b-1/s] a ***\n[b-1/s] b\n[b-1/s] [tether-worker] note\n");
}

}  // namespace
}  // namespace tether::worker::executor
