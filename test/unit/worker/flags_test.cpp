// Durations as Go writes them, sizes with units, and `run`'s options.
#include "cmd/flags.hpp"

#include <gtest/gtest.h>

namespace tether::worker::cmd {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

Error Parse(std::vector<std::string> args, RunOptions* out) {
  args.insert(args.begin(), "run");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseRunOptions(static_cast<int>(argv.size()), argv.data(), out);
}

// A duration option (--kill-grace) reading `text`.
Error ParseGrace(const std::string& text, Duration* d) {
  RunOptions o;
  Error err = Parse({"--kill-grace", text, "a.yml"}, &o);
  *d = o.kill_grace;
  return err;
}

Duration MustParse(const char* text) {
  Duration d{};
  Error err = ParseGrace(text, &d);
  EXPECT_TRUE(err.ok()) << text << ": " << err.ToString();
  return d;
}

// The notation itself is libtether's (test/unit/context/duration_test.cpp);
// the worker adds that no option takes a negative duration.
TEST(DurationOption, TheWorkersOptionsTakeGoDurations) {
  EXPECT_EQ(MustParse("1h30m"), minutes(90));
  EXPECT_EQ(MustParse("500ms"), milliseconds(500));
  EXPECT_EQ(MustParse("+5m"), minutes(5));
}

TEST(DurationOption, RejectsWithAReason) {
  struct Case {
    const char* text;
    const char* why;
  } cases[] = {
      {"", "not ''"},
      {"5", "missing unit"},
      {"5x", "unknown unit \"x\""},
      {"m", "such as 500ms or 2m, not 'm'"},
      {"-1s", "needs a duration of at least 0s, not '-1s'"},
      {"1h-5m", "unknown unit \"h-\""},
      {"3d", "unknown unit \"d\""},
      {"1..5s", "missing unit"},
  };
  for (const Case& c : cases) {
    Duration d{};
    Error err = ParseGrace(c.text, &d);
    EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument) << c.text;
    EXPECT_EQ(err.message().rfind("--kill-grace needs a duration", 0), 0u)
        << c.text << ": " << err.message();
    EXPECT_NE(err.message().find(c.why), std::string::npos) << c.text << ": " << err.message();
  }
}

TEST(ParseSize, BinaryDecimalAndPlainBytes) {
  std::uint64_t n = 0;
  ASSERT_TRUE(ParseSize("10MiB", &n).ok());
  EXPECT_EQ(n, 10u << 20);
  ASSERT_TRUE(ParseSize("512KiB", &n).ok());
  EXPECT_EQ(n, 512u << 10);
  ASSERT_TRUE(ParseSize("100B", &n).ok());
  EXPECT_EQ(n, 100u);
  ASSERT_TRUE(ParseSize("4096", &n).ok());
  EXPECT_EQ(n, 4096u);
  ASSERT_TRUE(ParseSize("1GB", &n).ok());
  EXPECT_EQ(n, 1000000000u);
  ASSERT_TRUE(ParseSize("1.5KiB", &n).ok());
  EXPECT_EQ(n, 1536u);
  ASSERT_TRUE(ParseSize("0", &n).ok());
  EXPECT_EQ(n, 0u);
}

TEST(ParseSize, RejectsWithAReason) {
  std::uint64_t n = 0;
  for (const char* text : {"", "MiB", "-1MiB", "10XB", "10 MiB", "1.5B", "10mib"}) {
    Error err = ParseSize(text, &n);
    EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument) << text;
    EXPECT_NE(err.message().find("invalid size"), std::string::npos) << err.message();
  }
}

// Decimal, exactly: binary floating point made 0.52 * 10^6 = 519999.99... and
// refused it as "not a whole number of bytes".
TEST(ParseSize, FractionsAreDecimalAndExact) {
  std::uint64_t n = 0;
  ASSERT_TRUE(ParseSize("0.52MB", &n).ok());
  EXPECT_EQ(n, 520000u);
  ASSERT_TRUE(ParseSize("1.1GB", &n).ok());
  EXPECT_EQ(n, 1100000000u);
  ASSERT_TRUE(ParseSize("0.001KB", &n).ok());
  EXPECT_EQ(n, 1u);
  ASSERT_TRUE(ParseSize("2.50000000000000000000000000KB", &n).ok());  // zeros past 19 digits
  EXPECT_EQ(n, 2500u);
  ASSERT_TRUE(ParseSize("0.25KiB", &n).ok());
  EXPECT_EQ(n, 256u);
  ASSERT_TRUE(ParseSize("18446744073709551615", &n).ok());  // 2^64 - 1
  EXPECT_EQ(n, 18446744073709551615u);
  // Binary units need up to 40 fraction digits to name a whole number of bytes
  // (2^-40 has 40): every exact spelling reads back (found by test/fuzz/size).
  ASSERT_TRUE(ParseSize("0.0000000931322574615478515625GiB", &n).ok());
  EXPECT_EQ(n, 100u);
  ASSERT_TRUE(ParseSize("17592186044415.99999904632568359375MiB", &n).ok());
  EXPECT_EQ(n, 18446744073709551615u);
  ASSERT_TRUE(ParseSize("0.0000000000009094947017729282379150390625TiB", &n).ok());  // 2^-40 TiB
  EXPECT_EQ(n, 1u);
  for (const char* text : {"0.1B", "0.0001KB", "1.00000000000000000000001KB"}) {
    Error err = ParseSize(text, &n);
    EXPECT_NE(err.message().find("not a whole number of bytes"), std::string::npos) << text;
  }
  for (const char* text :
       {"18446744073709551616", "16777216TiB", "99999999999999999999999999999TB"}) {
    Error err = ParseSize(text, &n);
    EXPECT_NE(err.message().find("too large (the maximum is 18446744073709551615 bytes)"),
              std::string::npos)
        << text << ": " << err.message();
  }
}

// Each duration option becomes a deadline, now + d: past kMaxTimeout that
// overflowed (--build-timeout 2500000h gave a deadline in build.json before
// the build started).
TEST(DurationOption, RefusesWhatCannotBeADeadline) {
  Duration d{};
  ASSERT_TRUE(ParseGrace("876000h", &d).ok());
  EXPECT_EQ(d, hours(876000));
  RunOptions o;
  Error err = Parse({"--build-timeout", "2500000h", "a.yml"}, &o);
  EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(err.message().find(
                "--build-timeout needs a duration of at most 876000h (100 years), not '2500000h'"),
            std::string::npos)
      << err.message();
}

TEST(ParseRunOptions, BothFlagForms) {
  RunOptions o;
  ASSERT_TRUE(
      Parse({"--results", "r", "--build-limit=3", "--build-timeout", "90s", "--kill-grace=0",
             "--log-streaming-timeout", "1m", "--shutdown-grace=5s", "--max-log-size", "1MiB",
             "--quiet", "--workspace-root", "/w", "a.yml", "--", "--b.yml"},
            &o)
          .ok());
  EXPECT_EQ(o.results_dir, "r");
  EXPECT_EQ(o.build_limit, 3);
  EXPECT_EQ(o.build_timeout, seconds(90));
  EXPECT_EQ(o.kill_grace, Duration::zero());
  EXPECT_EQ(o.log_streaming_timeout, minutes(1));
  EXPECT_EQ(o.shutdown_grace, seconds(5));
  EXPECT_EQ(o.max_log_size, 1u << 20);
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(o.workspace_root, "/w");
  EXPECT_EQ(o.files, (std::vector<std::string>{"a.yml", "--b.yml"}));
}

TEST(ParseRunOptions, ErrorsNameTheOption) {
  struct Case {
    std::vector<std::string> args;
    const char* message;
  } cases[] = {
      {{"--build-timeout", "0s", "a.yml"}, "--build-timeout needs a duration above 0s, not '0s'"},
      {{"--build-limit", "two", "a.yml"},
       "--build-limit needs a whole number from 1 to 1024, not 'two'"},
      {{"--kill-grace"}, "--kill-grace needs a duration such as 500ms or 2m"},
      {{"--nope", "a.yml"}, "unknown option '--nope'"},
      {{}, "no pipeline files given"},
  };
  for (const Case& c : cases) {
    RunOptions o;
    Error err = Parse(c.args, &o);
    EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(err.message().rfind(c.message, 0), 0u) << err.message();
  }
}

}  // namespace
}  // namespace tether::worker::cmd
