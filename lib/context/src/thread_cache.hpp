// Internal: the thread cache every task runs on (thread_cache.cpp). Run it
// through RunDetachedThread (context_node.hpp); these are for tests and
// benchmarks.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace tether::detail {

void RunDetachedThread(std::function<void()> f);

struct ThreadCacheStats {
  std::size_t idle = 0;       // threads waiting for a task now
  std::uint64_t started = 0;  // threads started since the process began
  std::uint64_t expired = 0;  // threads that exited after their idle timeout
  std::size_t running = 0;    // threads running a task (or handed one), not asleep in libtether
};
ThreadCacheStats GetThreadCacheStats();

// How long an idle thread waits for a task before it exits (default 5 s).
// Applies to threads that go idle from now on.
void SetThreadCacheIdleTimeout(std::chrono::milliseconds timeout);

// How long a task queued behind busy threads waits at most before it is
// given a thread of its own (default 100 µs). Tests set it long, to show what
// takes a queued task without the bound.
void SetThreadCacheMaxQueueWait(std::chrono::microseconds wait);

}  // namespace tether::detail
