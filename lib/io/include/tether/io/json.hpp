// Parsing JSON the way every Tether reader does (header-only; needs
// nlohmann/json, which tether_io itself does not link: include it only where
// nlohmann is already a dependency).
//
// ParseJson never throws a nlohmann exception: it refuses input nested deeper
// than kMaxJsonDepth before parsing (nlohmann's own dump() and copies recurse,
// so a 100,000-deep document would overflow the stack later), and turns every
// parser exception (a syntax error, out_of_range on `1e400`, ...) into a byte
// offset and a message. Show it as "FILE:LINE:COL: error: MESSAGE" with
// PositionAt(text, offset).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tether/io/read_file.hpp"

namespace tether::io {

// A problem at a byte offset of the text that was parsed.
struct JsonProblem {
  std::size_t offset = 0;
  std::string message;
};

// nlohmann's what() without its "[json.exception.parse_error.101] " prefix
// and, for parse errors, without "parse error at line 1, column 7: ".
inline std::string JsonExceptionMessage(const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (!what.empty() && what[0] == '[') {
    std::size_t close = what.find("] ");
    if (close != std::string::npos) what.erase(0, close + 2);
  }
  if (what.rfind("parse error", 0) == 0) {
    std::size_t column = what.find("column ");
    std::size_t colon = column == std::string::npos ? what.find(": ") : what.find(": ", column);
    if (colon != std::string::npos) what.erase(0, colon + 2);
  }
  return what;
}

// Where in `text` the exception that parsing `text` threw points, and what it
// says. A parse error carries its byte position; a number too large for a
// double (out_of_range 406) is found by its literal; anything else points at
// `fallback_offset`.
inline JsonProblem DescribeJsonException(const nlohmann::json::exception& e, std::string_view text,
                                         std::size_t fallback_offset = 0) {
  JsonProblem p{fallback_offset, JsonExceptionMessage(e)};
  if (const auto* pe = dynamic_cast<const nlohmann::json::parse_error*>(&e)) {
    // byte is 1-based and points at the last character read.
    p.offset = pe->byte > 0 ? pe->byte - 1 : 0;
  } else if (e.id == 406) {
    // "number overflow parsing '1e400'"
    std::size_t open = p.message.find('\'');
    std::size_t close = p.message.rfind('\'');
    if (open != std::string::npos && close > open + 1) {
      std::size_t at = text.find(p.message.substr(open + 1, close - open - 1));
      if (at != std::string_view::npos) p.offset = at;
    }
  }
  if (p.offset > text.size()) p.offset = text.size();
  return p;
}

// Parses `text` into *out (json or ordered_json). Returns the problem when the
// text nests deeper than max_depth or does not parse.
template <typename Json = nlohmann::json>
std::optional<JsonProblem> ParseJson(std::string_view text, Json* out,
                                     std::size_t max_depth = kMaxJsonDepth) {
  if (std::optional<std::size_t> deep = FindJsonTooDeep(text, max_depth)) {
    return JsonProblem{*deep, "nested more than " + std::to_string(max_depth) + " levels deep"};
  }
  try {
    *out = Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    *out = Json();
    return DescribeJsonException(e, text);
  }
  return std::nullopt;
}

}  // namespace tether::io
