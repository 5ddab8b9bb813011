// The ids of a child process's records. libtether_threads.so, preloaded into
// the children the traced program starts (fork + exec, posix_spawn), writes
// each child's records into a part of the trace of its own (a header with
// `ppid`); their ids must not collide with the program's or another
// child's. The program's thread ids start at 2^48; a child's are
// 2^48 + (pid << 24) + n, and n = 0 is the child process itself: the
// `process` task its parent records when it starts it, which the child
// knows without being told (its own pid), so the child's threads name it as
// their parent and are charged to the scope the parent started it in.
#pragma once

#include <cstdint>

namespace tether::trace::detail {

inline constexpr std::uint64_t kThreadIdBase = std::uint64_t{1} << 48;
inline constexpr int kChildIdShift = 24;  // 2^24 ids a child; pids are below 2^22

// The task id of child process pid (its first id).
constexpr std::uint64_t ProcessTaskId(std::int64_t pid) {
  return kThreadIdBase + (static_cast<std::uint64_t>(pid) << kChildIdShift);
}

// The child process whose record id is (0: the traced program's own, or a
// libtether id below 2^48).
constexpr std::int64_t ProcessOfId(std::uint64_t id) {
  return id < kThreadIdBase ? 0 : static_cast<std::int64_t>((id - kThreadIdBase) >> kChildIdShift);
}

}  // namespace tether::trace::detail
