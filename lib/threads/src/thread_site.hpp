// A thread's site as a person reads it, in the traced process itself: for
// GoogleTest's per-test verdict (tether/trace/gtest_threads.hpp), which fails
// a test at its end, before `tether trace` can symbolize anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tether::threads {

// Writes the site of the return addresses pcs (innermost first, as captured
// at pthread_create) to out (NUL-terminated, cut to cap) and returns its
// length: "file:line in function" of the first frame in the program's own
// code (outside libc, libstdc++, libgcc and this library, and outside system
// headers: the std::thread constructor is compiled into the program, but its
// lines are in <thread>), symbolized by addr2line (binutils). Without
// addr2line or debug info: "module+0xoffset". 0 when no frame is the program's.
std::size_t DescribeSite(const std::uint64_t* pcs, int count, char* out, std::size_t cap);

// Whether an --ignore pattern (`tether trace --ignore`, passed as
// TETHER_IGNORE_SITES) names one of the program's frames among pcs: the same
// rule as the report's (tether/trace_writer/site_rules.hpp's FrameNamed), on
// frames addr2line symbolizes, so that the per-test verdict drops what the
// report drops. false without patterns, addr2line or debug info.
bool SiteIgnored(const std::uint64_t* pcs, int count, const std::vector<std::string>& patterns);

// The same for where a thread was running (running_stacks.hpp), as the
// report's --ignore-top (the innermost of the program's frames) and
// --ignore-running (any of them) take it (TETHER_IGNORE_TOP,
// TETHER_IGNORE_RUNNING).
bool RunningIgnored(const std::uint64_t* pcs, int count, const std::vector<std::string>& top,
                    const std::vector<std::string>& any);

}  // namespace tether::threads
