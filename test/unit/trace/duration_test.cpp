// Durations in the tracer's reports: Go's notation, rounded for reading.
#include <gtest/gtest.h>

#include <cstdint>

#include "tether/trace/report.hpp"

namespace tether::trace {
namespace {

TEST(FormatReportDuration, RoundsThenWritesLikeGo) {
  EXPECT_EQ(FormatReportDuration(0), "0s");
  EXPECT_EQ(FormatReportDuration(999), "999ns");
  EXPECT_EQ(FormatReportDuration(1'500), "2\xC2\xB5s");  // rounded to the microsecond
  EXPECT_EQ(FormatReportDuration(1'500'000), "2ms");     // rounded to the millisecond
  EXPECT_EQ(FormatReportDuration(1'500'000'000), "1.5s");
  EXPECT_EQ(FormatReportDuration(500'000'000), "500ms");
  EXPECT_EQ(FormatReportDuration(1'404'321'000), "1.404s");
  EXPECT_EQ(FormatReportDuration(90'000'000'000), "1m30s");
  EXPECT_EQ(FormatReportDuration(3'600'000'000'000), "1h0m0s");
  EXPECT_EQ(FormatReportDuration(-2'000'000'000), "-2s");
}

// The extremes: -(-2^63) does not fit an int64 and rounding up near either
// end must not wrap (UBSan reported the negation before the fix).
TEST(FormatReportDuration, ExtremesSaturateInsteadOfWrapping) {
  EXPECT_EQ(FormatReportDuration(INT64_MAX), "2562047h47m16.854s");
  EXPECT_EQ(FormatReportDuration(INT64_MIN), "-2562047h47m16.854s");
  EXPECT_EQ(FormatReportDuration(INT64_MIN + 1), "-2562047h47m16.854s");
  EXPECT_EQ(FormatReportDuration(-1), "-1ns");
}

}  // namespace
}  // namespace tether::trace
