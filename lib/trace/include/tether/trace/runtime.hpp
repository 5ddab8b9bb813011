// The tracer runtime: how a program built on libtether records its trace.
//
// Programs that link tether_runtime start tracing by themselves when
// TETHER_TRACE=<path> is set (the variable is then removed from the
// environment so that child processes do not write into the same file). An
// unwritable path prints one warning to stderr and the program runs
// untraced. These functions are for programs and tests that want to control
// tracing themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tether/error.hpp"

namespace tether::trace {

// Starts writing a trace file (what TETHER_TRACE does at startup). At most
// once per process; call it before the first task is spawned. The file gets
// its `exit` record when the process exits normally.
Error StartFileTrace(const std::string& path);

// Writes every buffered event to the trace file now (no-op without one).
void FlushTrace();

// Installs the tracer with in-process tracking of live tasks, which the test
// API (verify.hpp) needs. Idempotent; call before the tasks to check spawn.
// Fails only if a different hooks::Tracer is installed.
Error EnableLiveTracking();

struct RuntimeStats {
  bool file_trace = false;  // a trace file is being written
  bool live_tracking = false;
  std::uint64_t records_written = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t lost_events = 0;    // events that could not be written
  std::size_t ring_bytes = 0;       // the buffer of one thread
  std::size_t peak_rings = 0;       // most thread buffers in use at once
  std::size_t allocated_rings = 0;  // buffers allocated (reused across threads)
};
RuntimeStats GetRuntimeStats();

}  // namespace tether::trace
