// Appending JSON text by hand: the trace writer formats records without a DOM
// (a DOM per event would cost more than recording it).
//
// Formatting is the flusher's work per event, so each field is assembled in a
// stack buffer (std::to_chars for numbers) and appended to the line once:
// measured with callgrind, std::to_string and four appends per field made a
// task's end record cost ~20x recording it (bench/results/trace-events.md).
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <string>
#include <string_view>

namespace tether::trace::detail {

// Appends s as a JSON string literal. Invalid UTF-8 bytes become U+FFFD, so
// the line always parses (names and paths are not guaranteed UTF-8).
void AppendJsonString(std::string& out, std::string_view s);

namespace json_text_internal {
// Keys longer than this (none of the trace's) take the unbuffered path.
constexpr std::size_t kMaxKey = 40;

// Writes ,"key": at p (key.size() <= kMaxKey); returns the end.
inline char* PutKey(char* p, std::string_view key) {
  *p++ = ',';
  *p++ = '"';
  std::memcpy(p, key.data(), key.size());
  p += key.size();
  *p++ = '"';
  *p++ = ':';
  return p;
}

template <class Int>
inline void AppendNumberField(std::string& out, std::string_view key, Int v) {
  char buf[kMaxKey + 4 + 24];
  if (key.size() > kMaxKey) {
    out.append(",\"").append(key).append("\":");
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, static_cast<std::size_t>(end - buf));
    return;
  }
  char* p = PutKey(buf, key);
  auto [end, ec] = std::to_chars(p, buf + sizeof buf, v);
  out.append(buf, static_cast<std::size_t>(end - buf));
}
}  // namespace json_text_internal

inline void AppendField(std::string& out, const char* key, std::uint64_t v) {
  json_text_internal::AppendNumberField(out, key, v);
}
inline void AppendFieldSigned(std::string& out, const char* key, std::int64_t v) {
  json_text_internal::AppendNumberField(out, key, v);
}
// A value known to need no escape (an enum's name: "ok", "cancel"): the
// field in one append.
inline void AppendPlainField(std::string& out, std::string_view key, std::string_view v) {
  char buf[json_text_internal::kMaxKey + 4 + 24];
  if (key.size() > json_text_internal::kMaxKey || v.size() > 22) {
    out.append(",\"").append(key).append("\":\"").append(v) += '"';
    return;
  }
  char* p = json_text_internal::PutKey(buf, key);
  *p++ = '"';
  std::memcpy(p, v.data(), v.size());
  p += v.size();
  *p++ = '"';
  out.append(buf, static_cast<std::size_t>(p - buf));
}
inline void AppendField(std::string& out, const char* key, std::string_view v) {
  out.append(",\"").append(key).append("\":");
  AppendJsonString(out, v);
}

// A record's site: ,"file":…,"line":…,"func":…
inline void AppendSite(std::string& out, const std::source_location& loc) {
  AppendField(out, "file", std::string_view(loc.file_name()));
  AppendField(out, "line", static_cast<std::uint64_t>(loc.line()));
  AppendField(out, "func", std::string_view(loc.function_name()));
}

// A spawn record's last fields: ,"name":…, then the site.
inline void AppendSpawnTail(std::string& out, std::string_view name,
                            const std::source_location& loc) {
  AppendField(out, "name", name);
  AppendSite(out, loc);
}

}  // namespace tether::trace::detail
