// StatementLastLine: the lines one statement spans, for joining a checker
// finding (the statement's first line) to a runtime site (a later line).
#include "statement_span.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tether::graph::detail {
namespace {

TEST(StatementSpan, ACallOverSeveralLinesEndsAtItsSemicolon) {
  const std::string src =
      "int main() {\n"           // 1
      "  std::thread poller(\n"  // 2
      "      [] {\n"             // 3
      "        Poll();\n"        // 4
      "      });\n"              // 5
      "  poller.join();\n"       // 6
      "}\n";
  EXPECT_EQ(StatementLastLine(src, 2), 5);
  EXPECT_EQ(StatementLastLine(src, 6), 6);
}

TEST(StatementSpan, BracesOfABraceInitAndOfALambdaBodyDoNotEndIt) {
  const std::string src =
      "std::jthread worker{[&](std::stop_token st) {\n"  // 1
      "  while (!st.stop_requested()) Step();\n"         // 2
      "}};\n"                                            // 3
      "Next();\n";                                       // 4
  EXPECT_EQ(StatementLastLine(src, 1), 3);
}

TEST(StatementSpan, SemicolonsAndBracketsInLiteralsAndCommentsAreSkipped) {
  const std::string src =
      "Log(\"a; (b\",  // ); ignored\n"  // 1
      "    ';', 1'000, /* ; */\n"       // 2
      "    R\"x(;)\")x\");\n"           // 3
      "Other();\n";                     // 4
  EXPECT_EQ(StatementLastLine(src, 1), 3);
}

TEST(StatementSpan, ABlockEndsAtItsClosingBrace) {
  const std::string src =
      "if (ready) {\n"  // 1
      "  Go();\n"       // 2
      "}\n"             // 3
      "Next();\n";      // 4
  EXPECT_EQ(StatementLastLine(src, 1), 3);
}

TEST(StatementSpan, ALineInsideAnEnclosingCallEndsWhereThatCallCloses) {
  // The checker may point at an argument of a larger call.
  const std::string src =
      "Run(Make(\n"  // 1
      "    a,\n"     // 2
      "    b));\n";  // 3
  EXPECT_EQ(StatementLastLine(src, 2), 3);
}

TEST(StatementSpan, BoundedAndSafeOnEdges) {
  std::string many = "f(\n";
  for (int i = 0; i < 100; ++i) many += "x,\n";
  many += ");\n";
  EXPECT_EQ(StatementLastLine(many, 1), 1 + kMaxStatementLines);
  EXPECT_EQ(StatementLastLine("a();", 5), 5);  // no such line
  EXPECT_EQ(StatementLastLine("", 1), 1);
  EXPECT_EQ(StatementLastLine("g(\"unterminated\n);\n", 1), 2);
}

}  // namespace
}  // namespace tether::graph::detail
