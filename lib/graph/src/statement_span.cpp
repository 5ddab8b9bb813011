#include "statement_span.hpp"

#include <cctype>

namespace tether::graph::detail {
namespace {

// The offset just past a literal that opens at `at` with quote (a string or
// a character literal; a backslash escapes the next character).
std::size_t SkipQuoted(std::string_view s, std::size_t at, char quote) {
  for (std::size_t i = at + 1; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == quote) {
      return i + 1;
    } else if (s[i] == '\n') {
      return i;  // an unterminated literal ends with its line
    }
  }
  return s.size();
}

// A raw string R"delim( ... )delim" whose 'R' is at `at`.
std::size_t SkipRaw(std::string_view s, std::size_t at) {
  const std::size_t open = s.find('(', at + 2);
  if (open == std::string_view::npos) return s.size();
  const std::string close = ")" + std::string(s.substr(at + 2, open - at - 2)) + "\"";
  const std::size_t end = s.find(close, open);
  return end == std::string_view::npos ? s.size() : end + close.size();
}

}  // namespace

int StatementLastLine(std::string_view s, int first_line) {
  std::size_t at = 0;
  for (int line = 1; line < first_line; ++line) {
    at = s.find('\n', at);
    if (at == std::string_view::npos) return first_line;
    ++at;
  }
  int line = first_line;
  int depth = 0;
  int block_depth = -1;  // the depth of a '{' opened outside brackets
  for (std::size_t i = at; i < s.size();) {
    const char c = s[i];
    const bool word_before =
        i > 0 && (std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_');
    if (c == '\n') {
      if (++line - first_line >= kMaxStatementLines) return line;
      ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      i = s.find('\n', i);
      if (i == std::string_view::npos) return line;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      const std::size_t stop = end == std::string_view::npos ? s.size() : end + 2;
      for (std::size_t k = i; k < stop; ++k) line += s[k] == '\n' ? 1 : 0;
      i = stop;
    } else if (c == 'R' && i + 1 < s.size() && s[i + 1] == '"' && !word_before) {
      const std::size_t stop = SkipRaw(s, i);
      for (std::size_t k = i; k < stop; ++k) line += s[k] == '\n' ? 1 : 0;
      i = stop;
    } else if (c == '"' || (c == '\'' && !word_before)) {  // 1'000 is a number
      i = SkipQuoted(s, i, c);
    } else if (c == '(' || c == '[' || c == '{') {
      if (c == '{' && depth == 0 && block_depth < 0) block_depth = depth;
      ++depth;
      ++i;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
      if (depth < 0 || (c == '}' && depth == block_depth)) return line;
      ++i;
    } else if (c == ';' && depth == 0) {
      return line;
    } else {
      ++i;
    }
  }
  return line;
}

}  // namespace tether::graph::detail
