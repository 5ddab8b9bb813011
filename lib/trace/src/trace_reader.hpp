// Internal: the trace file reader shared by LoadTrace (load.cpp) and the
// one-pass LoadAndAnalyze (stream_analyze.cpp), and the analysis entry that
// takes the trace's end from the caller.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tether/trace/model.hpp"

namespace tether::trace::detail {

// A record just applied: its event, the task (spawn, start, end) or scope
// (scope_end) it names, and its time.
struct RecordSeen {
  std::string_view ev;
  std::uint64_t id = 0;
  std::int64_t t = 0;
};

// Called after each record has been applied to the Trace being read.
class RecordHook {
 public:
  virtual ~RecordHook() = default;
  virtual void AfterRecord(const RecordSeen& record) = 0;
};

// Reads path a chunk at a time and applies every record to *out (LoadTrace's
// rules: errors name path:line:col, a file cut short loads as truncated).
Error ReadTrace(const std::string& path, Trace* out, RecordHook* hook);

// Tests only: whether ReadTrace may take spawn/start/end lines through the
// fast path (fast_record.hpp) instead of the JSON parser (default: yes).
void SetFastPathForTesting(bool enabled);

// Analyze with the end of the trace given (the latest time the whole trace
// knew of, which a trace holding only some of its tasks cannot compute).
std::vector<Finding> AnalyzeUntil(const Trace& trace, const AnalysisOptions& options,
                                  std::int64_t trace_end);

}  // namespace tether::trace::detail
