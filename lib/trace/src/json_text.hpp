// Appending JSON text by hand: the trace writer formats records without a DOM
// (a DOM per event would cost more than recording it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tether::trace::detail {

// Appends s as a JSON string literal. Invalid UTF-8 bytes become U+FFFD, so
// the line always parses (names and paths are not guaranteed UTF-8).
void AppendJsonString(std::string& out, std::string_view s);

inline void AppendField(std::string& out, const char* key, std::uint64_t v) {
  out += ",\"";
  out += key;
  out += "\":";
  out += std::to_string(v);
}
inline void AppendFieldSigned(std::string& out, const char* key, std::int64_t v) {
  out += ",\"";
  out += key;
  out += "\":";
  out += std::to_string(v);
}
inline void AppendField(std::string& out, const char* key, std::string_view v) {
  out += ",\"";
  out += key;
  out += "\":";
  AppendJsonString(out, v);
}

}  // namespace tether::trace::detail
