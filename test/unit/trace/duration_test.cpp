// Durations as Go writes and reads them.
#include <gtest/gtest.h>

#include "tether/trace/report.hpp"

namespace tether::trace {
namespace {

TEST(FormatDuration, WritesLikeGo) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(999), "999ns");
  EXPECT_EQ(FormatDuration(1'500), "2\xC2\xB5s");  // rounded to the microsecond
  EXPECT_EQ(FormatDuration(1'500'000), "2ms");  // rounded to the millisecond
  EXPECT_EQ(FormatDuration(1'500'000'000), "1.5s");
  EXPECT_EQ(FormatDuration(500'000'000), "500ms");
  EXPECT_EQ(FormatDuration(1'404'321'000), "1.404s");  // rounded to the millisecond
  EXPECT_EQ(FormatDuration(2'000'000'000), "2s");
  EXPECT_EQ(FormatDuration(90'000'000'000), "1m30s");
  EXPECT_EQ(FormatDuration(3'600'000'000'000), "1h0m0s");
  EXPECT_EQ(FormatDuration(-2'000'000'000), "-2s");
}

TEST(ParseDuration, ReadsLikeGo) {
  std::int64_t ns = -1;
  ASSERT_TRUE(ParseDuration("500ms", &ns).ok());
  EXPECT_EQ(ns, 500'000'000);
  ASSERT_TRUE(ParseDuration("1.5s", &ns).ok());
  EXPECT_EQ(ns, 1'500'000'000);
  ASSERT_TRUE(ParseDuration("1m30s", &ns).ok());
  EXPECT_EQ(ns, 90'000'000'000);
  ASSERT_TRUE(ParseDuration("100us", &ns).ok());
  EXPECT_EQ(ns, 100'000);
  ASSERT_TRUE(ParseDuration("0", &ns).ok());
  EXPECT_EQ(ns, 0);
}

TEST(ParseDuration, RejectsWhatGoRejects) {
  std::int64_t ns;
  EXPECT_EQ(ParseDuration("5", &ns).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(ParseDuration("", &ns).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(ParseDuration("2 s", &ns).code(), ErrorCode::kInvalidArgument);
  Error err = ParseDuration("3days", &ns);
  EXPECT_NE(err.message().find("unknown unit 'days'"), std::string::npos) << err.message();
}

}  // namespace
}  // namespace tether::trace
