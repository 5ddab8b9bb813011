// The trace file's text records: one JSON object a line, `{"ev":"spawn",
// ...,"t":NS}`, as docs/trace-format.md describes them. Formatting only: the
// sink (file_sink.cpp) decides when records are drained and written.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tether/trace_writer/event_ring.hpp"
#include "tether/trace_writer/spawn_sites.hpp"
#include "tether/trace_writer/trace_clock.hpp"

namespace tether::trace::detail {

// `{"ev":"EV"`: a record's opening.
void BeginRecord(std::string& out, std::string_view ev);
// `,"t":T}` and the newline: a record's end.
void EndRecord(std::string& out, std::int64_t t);
// One ring slot as its record, appended to out. name: the slot's interned
// name (spawns, scopes); site: the interned pair of a kSpawnSite record
// (null for the others).
void FormatRecord(std::string& out, const Slot& s, std::string_view name,
                  const TickConversion& conv, const SpawnSites::Site* site);

}  // namespace tether::trace::detail
