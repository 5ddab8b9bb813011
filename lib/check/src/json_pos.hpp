// Where a key sits in JSON text, for "file:line:col:" errors about a value
// (models, baselines); the line and column come from io::LineColumnAt.
#pragma once

#include <string>
#include <string_view>

namespace tether::check {

// Where key appears in text (for errors about a value, not a syntax error).
inline size_t KeyOffset(std::string_view text, const std::string& key) {
  size_t at = text.find("\"" + key + "\"");
  return at == std::string_view::npos ? 0 : at;
}

}  // namespace tether::check
