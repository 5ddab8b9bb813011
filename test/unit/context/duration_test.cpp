// Go's duration notation, read and written (tether/duration.hpp).
#include "tether/duration.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace tether {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

Duration MustParse(const char* text) {
  Duration d{};
  Error err = ParseDuration(text, &d);
  EXPECT_TRUE(err.ok()) << text << ": " << err.ToString();
  return d;
}

TEST(ParseDuration, ReadsWhatGoReads) {
  EXPECT_EQ(MustParse("30m"), minutes(30));
  EXPECT_EQ(MustParse("1h30m0s"), minutes(90));
  EXPECT_EQ(MustParse("1.5h"), minutes(90));
  EXPECT_EQ(MustParse(".5s"), milliseconds(500));
  EXPECT_EQ(MustParse("100us"), microseconds(100));
  EXPECT_EQ(MustParse("100\xC2\xB5s"), microseconds(100));
  EXPECT_EQ(MustParse("7ns"), nanoseconds(7));
  EXPECT_EQ(MustParse("0"), Duration::zero());
  EXPECT_EQ(MustParse("-0"), Duration::zero());
  EXPECT_EQ(MustParse("+5m"), minutes(5));
  EXPECT_EQ(MustParse("-1.5s"), -milliseconds(1500));
}

TEST(ParseDuration, RejectsWithTheTextAndTheProblem) {
  struct Case {
    const char* text;
    const char* why;
  } cases[] = {
      {"", "invalid duration \"\": empty"},
      {"-", "invalid duration \"-\": empty"},
      {"5", "invalid duration \"5\": missing unit"},
      {"3days", "unknown unit \"days\""},
      {"2 s", "unknown unit \" s\""},
      {"m", "write it as Go does"},
      {"1..5s", "missing unit"},
      {"9999999999h", "too large"},
  };
  for (const Case& c : cases) {
    Duration d = seconds(42);
    Error err = ParseDuration(c.text, &d);
    EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument) << c.text;
    EXPECT_NE(err.message().find(c.why), std::string::npos) << c.text << ": " << err.message();
    EXPECT_EQ(d, seconds(42)) << c.text << ": a failed parse must not write its output";
  }
}

TEST(FormatDuration, WritesWhatGoWrites) {
  EXPECT_EQ(FormatDuration(Duration::zero()), "0s");
  EXPECT_EQ(FormatDuration(nanoseconds(999)), "999ns");
  EXPECT_EQ(FormatDuration(nanoseconds(1500)), "1.5\xC2\xB5s");
  EXPECT_EQ(FormatDuration(milliseconds(300)), "300ms");
  EXPECT_EQ(FormatDuration(milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatDuration(seconds(2)), "2s");
  EXPECT_EQ(FormatDuration(minutes(1)), "1m0s");
  EXPECT_EQ(FormatDuration(minutes(90)), "1h30m0s");
  EXPECT_EQ(FormatDuration(hours(1)), "1h0m0s");
  EXPECT_EQ(FormatDuration(-seconds(2)), "-2s");
}

TEST(Duration, FormatThenParseIsTheIdentity) {
  for (Duration d : {Duration(nanoseconds(1)), Duration(microseconds(1234)),
                     Duration(milliseconds(90061)), Duration(hours(26) + nanoseconds(5))}) {
    Duration back{};
    ASSERT_TRUE(ParseDuration(FormatDuration(d), &back).ok()) << FormatDuration(d);
    EXPECT_EQ(back, d) << FormatDuration(d);
  }
}

// Exact integer arithmetic: the extremes of the range read back to the
// nanosecond, one past them is "too large" (never wrapped), and formatting
// the most negative value does not overflow.
TEST(Duration, TheWholeRangeIsExact) {
  Duration d{};
  EXPECT_EQ(FormatDuration(Duration::max()), "2562047h47m16.854775807s");
  EXPECT_EQ(FormatDuration(Duration::min()), "-2562047h47m16.854775808s");
  ASSERT_TRUE(ParseDuration("2562047h47m16.854775807s", &d).ok());
  EXPECT_EQ(d, Duration::max());
  ASSERT_TRUE(ParseDuration("-2562047h47m16.854775808s", &d).ok());
  EXPECT_EQ(d, Duration::min());
  for (const char* text : {"2562047h47m16.854775808s", "2562048h", "-2562047h47m16.854775809s",
                           "9223372036854775808ns", "99999999999999999999999999999h",
                           "2562047h2562047h"}) {
    Error err = ParseDuration(text, &d);
    EXPECT_NE(err.message().find("too large (the maximum is 2562047h47m16.854775807s)"),
              std::string::npos)
        << text << ": " << err.message();
  }
  ASSERT_TRUE(ParseDuration("0.1s", &d).ok());
  EXPECT_EQ(d, milliseconds(100));
  ASSERT_TRUE(ParseDuration("1.000000001s", &d).ok());
  EXPECT_EQ(d, nanoseconds(1000000001));
  ASSERT_TRUE(ParseDuration("0.3h", &d).ok());
  EXPECT_EQ(d, minutes(18));
  ASSERT_TRUE(ParseDuration("1.9ns", &d).ok());  // below a nanosecond: truncated, as Go does
  EXPECT_EQ(d, nanoseconds(1));
  for (Duration v : {Duration::max(), Duration::min(), Duration(nanoseconds(-1)),
                     Duration(nanoseconds(999999999999)), Duration(hours(876000))}) {
    ASSERT_TRUE(ParseDuration(FormatDuration(v), &d).ok()) << FormatDuration(v);
    EXPECT_EQ(d, v) << FormatDuration(v);
  }
}

}  // namespace
}  // namespace tether
