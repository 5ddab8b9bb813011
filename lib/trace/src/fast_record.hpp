// Internal: the trace reader's fast path for the records a trace is mostly
// made of (spawn, start, end), as the writer prints them: one flat object, no
// whitespace, integers and plain ASCII strings. A line it does not take whole
// (an escape, a float, a duplicate key, a missing field, anything else) goes
// to the JSON parser, so every error and every odd-but-valid line is handled
// exactly as before; on the lines it takes, the result is the same as
// parsing them with nlohmann::json and applying them (load.cpp's Apply).
#pragma once

#include <cstdint>
#include <string_view>

#include "tether/trace/model.hpp"

namespace tether::trace::detail {

enum class FastKind { kNone, kSpawn, kStart, kEnd };

// What the fast path read; the record's time is t.
struct FastRecord {
  FastKind kind = FastKind::kNone;
  std::uint64_t task = 0;
  std::int64_t t = 0;
};

// Applies line to *trace when it is a spawn, start or end record the fast
// path takes whole; returns kNone (and changes nothing) otherwise.
FastRecord ApplyFast(std::string_view line, Trace* trace);

}  // namespace tether::trace::detail
