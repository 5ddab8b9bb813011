// Tether::gtest_main: GoogleTest's main with the per-test thread listener
// (tether/trace/gtest_threads.hpp) installed; link it instead of GTest::gtest_main.
#include <gtest/gtest.h>

#include "tether/trace/gtest_threads.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(
      new tether::trace::testing::ThreadScopeListener);
  return RUN_ALL_TESTS();
}
