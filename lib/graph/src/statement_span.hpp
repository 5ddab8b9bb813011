// The lines one C++ statement spans, read from its source: the checker
// reports a call written over several lines at its first line, and the
// compiler gives the call instruction (the tracer's site, a return address)
// a later one, often the last. `tether report --static` joins the two when
// the runtime line lies in the statement the checker's line begins.
#pragma once

#include <string>
#include <string_view>

namespace tether::graph::detail {

// The last line of the statement that begins on first_line (1-based) of
// source: the line of the first ';' outside brackets, or of the '}' that
// closes a block opened outside brackets, or of a bracket that closes one
// opened before first_line. Strings, character literals and comments are
// skipped. At most kMaxStatementLines lines; first_line when the line is not
// in source.
constexpr int kMaxStatementLines = 40;
int StatementLastLine(std::string_view source, int first_line);

}  // namespace tether::graph::detail
