// Durations in the tracer's reports: Go's notation, rounded for reading.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tether::trace
