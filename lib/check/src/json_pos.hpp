// Positions in JSON text for "file:line:col:" errors (models, baselines).
#pragma once

#include <string>
#include <string_view>

namespace tether::check {

// Byte offset -> "line:col" (1-based) in text.
inline std::string LineCol(std::string_view text, size_t offset) {
  unsigned line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

// Where key appears in text (for errors about a value, not a syntax error).
inline size_t KeyOffset(std::string_view text, const std::string& key) {
  size_t at = text.find("\"" + key + "\"");
  return at == std::string_view::npos ? 0 : at;
}

}  // namespace tether::check
