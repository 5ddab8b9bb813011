// Internal: the thread cache's queue of tasks waiting for a busy thread
// (thread_cache.cpp). A bounded ring of sequenced cells, after Dmitry
// Vyukov's bounded MPMC queue (as the channel's, channel_impl.hpp): a push or
// a pop claims a cell with one compare-exchange and takes no lock, so the
// spawners and the threads that drain it never sleep on each other. Each
// cell keeps when its task was queued, so that the oldest task's wait can be
// bounded (the cache's monitor).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace tether::detail {

class TaskQueue {
 public:
  static constexpr std::size_t kCapacity = 4096;  // a power of two

  TaskQueue() : cells_(new Cell[kCapacity]) {
    for (std::size_t i = 0; i < kCapacity; ++i) cells_[i].seq.store(i, std::memory_order_relaxed);
  }

  // Queues f (queued_ns: when, steady_clock ns); false when the ring is full
  // (f is left as it was).
  bool TryPush(std::function<void()>& f, std::int64_t queued_ns) {
    std::size_t pos = push_pos_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & (kCapacity - 1)];
      const std::size_t seq = cell.seq.load(std::memory_order_acquire);
      if (seq == pos) {
        if (push_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          cell.task = std::move(f);
          cell.queued_ns.store(queued_ns, std::memory_order_relaxed);
          cell.seq.store(pos + 1, std::memory_order_release);
          return true;
        }
      } else if (seq < pos) {
        return false;  // full: the cell still holds a task a lap behind
      } else {
        pos = push_pos_.load(std::memory_order_relaxed);
      }
    }
  }

  // Takes the oldest task into *f; false when there is none.
  bool TryPop(std::function<void()>* f) {
    std::size_t pos = pop_pos_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & (kCapacity - 1)];
      const std::size_t seq = cell.seq.load(std::memory_order_acquire);
      if (seq == pos + 1) {
        if (pop_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          *f = std::move(cell.task);
          cell.task = nullptr;
          cell.seq.store(pos + kCapacity, std::memory_order_release);
          return true;
        }
      } else if (seq < pos + 1) {
        return false;  // empty
      } else {
        pos = pop_pos_.load(std::memory_order_relaxed);
      }
    }
  }

  // When the oldest queued task was queued; false when none is.
  bool OldestQueuedNs(std::int64_t* ns) const {
    const std::size_t pos = pop_pos_.load(std::memory_order_acquire);
    const Cell& cell = cells_[pos & (kCapacity - 1)];
    if (cell.seq.load(std::memory_order_acquire) != pos + 1) return false;
    *ns = cell.queued_ns.load(std::memory_order_relaxed);
    return true;
  }

  bool Empty() const {
    const std::size_t pos = pop_pos_.load(std::memory_order_acquire);
    return cells_[pos & (kCapacity - 1)].seq.load(std::memory_order_acquire) != pos + 1;
  }

 private:
  struct alignas(64) Cell {
    std::atomic<std::size_t> seq{0};
    std::atomic<std::int64_t> queued_ns{0};
    std::function<void()> task;
  };
  std::unique_ptr<Cell[]> cells_;
  alignas(64) std::atomic<std::size_t> push_pos_{0};
  alignas(64) std::atomic<std::size_t> pop_pos_{0};
};

}  // namespace tether::detail
