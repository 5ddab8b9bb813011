// Internal: Linux futex primitives for the hot paths of a context node.
//
// A cancellable context needs one small lock (its child list, its error, its
// waiters) and a one-shot "done" event that threads can sleep on. A pthread
// mutex plus condition variable cost 88 bytes a node and, measured with
// callgrind, about a fifth of the instructions of WithCancel + cancel
// (bench/results/context.md), mostly in code for cases a node never has
// (robust, recursive, priority-inheritance mutexes; condition-variable
// destruction handshakes). These are the classic futex forms instead
// (Drepper, "Futexes Are Tricky", mutex 2), four bytes each.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>

namespace tether::detail {

using FutexWord = std::atomic<std::uint32_t>;
static_assert(sizeof(FutexWord) == sizeof(std::uint32_t) && FutexWord::is_always_lock_free,
              "the kernel reads a futex word as a plain 32-bit integer");

inline std::uint32_t* FutexAddress(FutexWord* word) {
  return reinterpret_cast<std::uint32_t*>(word);
}

// Wakes up to n threads sleeping on word. Harmless when word's memory has
// been freed meanwhile: a private futex wake only hashes the address.
inline void FutexWake(FutexWord* word, int n) {
  syscall(SYS_futex, FutexAddress(word), FUTEX_WAKE_PRIVATE, n, nullptr, nullptr, 0);
}

// Sleeps while *word == expected. May return spuriously: callers loop.
inline void FutexWait(FutexWord* word, std::uint32_t expected) {
  syscall(SYS_futex, FutexAddress(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

// The same, until an absolute steady_clock time (CLOCK_MONOTONIC, which is
// what FUTEX_WAIT_BITSET measures an absolute timeout against).
inline void FutexWaitUntil(FutexWord* word, std::uint32_t expected,
                           std::chrono::steady_clock::time_point deadline) {
  auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  if (ns < 0) ns = 0;
  timespec at{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  syscall(SYS_futex, FutexAddress(word), FUTEX_WAIT_BITSET_PRIVATE, expected, &at, nullptr,
          FUTEX_BITSET_MATCH_ANY);
}

// A non-recursive mutex (BasicLockable: use it with std::lock_guard). Free
// and uncontended, lock and unlock are one atomic instruction each; a
// contended lock sleeps in the kernel, it never spins.
class FutexLock {
 public:
  void lock() {
    std::uint32_t seen = kFree;
    if (state_.compare_exchange_strong(seen, kHeld, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
      return;
    }
    LockContended(seen);
  }
  void unlock() {
    if (state_.exchange(kFree, std::memory_order_release) == kContended) FutexWake(&state_, 1);
  }

 private:
  static constexpr std::uint32_t kFree = 0, kHeld = 1, kContended = 2;
  void LockContended(std::uint32_t seen) {
    // Whoever takes the lock from here marks it contended, so its unlock
    // wakes the next sleeper (at worst one wake-up too many).
    if (seen != kContended) seen = state_.exchange(kContended, std::memory_order_acquire);
    while (seen != kFree) {
      FutexWait(&state_, kContended);
      seen = state_.exchange(kContended, std::memory_order_acquire);
    }
  }
  FutexWord state_{kFree};
};

}  // namespace tether::detail
