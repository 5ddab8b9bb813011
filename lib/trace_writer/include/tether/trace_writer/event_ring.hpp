// EventRing: one thread's trace events, waiting to be written out.
//
// A single-producer ring of 64-byte slots. The producer is the thread that
// owns the ring (it records its own events without any lock); a consumer
// (the owner when the ring is full, the background flusher, the exit
// handler) drains it while holding consume_mu. head_ is written only by the
// producer, tail_ only by a consumer; each publishes with release and reads
// the other's with acquire, so slot contents are handed over cleanly.
//
// Cache lines: an event writes its slot and head_'s line, nothing else (as
// the bare append of trace_event_bench writes its record and its index).
// head_ shares its line only with the producer's cached copy of tail_; the
// consumer's lock and tail_ have lines of their own, so a drain does not
// take the line the producer writes on every event (consume_mu used to sit
// beside the producer's position).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>

namespace tether::trace::detail {

enum class EventType : std::uint8_t {
  kCtx = 1,
  kCtxDone,
  kSpawn,
  kStart,
  kEnd,
  kGroup,
  kWaitBegin,
  kWaitEnd,
  kGroupUnwaited,
  kScopeBegin,
  kScopeEnd,
  kChanClose,
  // A spawn whose name and site were interned (FileSink::PutSpawn): one
  // slot; aux is the site id, and the 8 bytes of loc carry the parent task
  // (a spawn site's loc is in the site table). Written out exactly like kSpawn.
  kSpawnSite,
  // Threads (lib/threads, libtether_threads.so): a pthread joined or
  // detached (a = its task id); the return addresses at a spawn (a = the
  // task, b..e = up to four addresses, 0 = none; several records extend the
  // list); a loaded object (a = its load bias, b/c = its address range; the
  // name is its path); std::terminate was called.
  kThreadJoin,
  kThreadDetach,
  kStack,
  kModule,
  kTerminate,
  // A pthread_join has begun (a = the joined thread's task id): a thread
  // still running at the end with one is being waited for, not forgotten.
  kThreadJoinBegin,
  // pthread_setname_np named a traced thread (a = its task id; the name).
  kThreadName,
  // Where a scope.h scope was begun, as its caller gave it
  // (tether_scope_begin_at: a = the scope's id, b = the line; the name is
  // the file): a GoogleTest scope's TEST line, not the listener's.
  kScopeSite,
};

// Slot::aux of a kSpawn record made for a pthread (libtether_threads.so).
constexpr std::uint32_t kSpawnKindThread = 1;
// ... made for a child process the program started (fork, posix_spawn): its
// task id is ProcessTaskId(pid) (process_ids.hpp).
constexpr std::uint32_t kSpawnKindProcess = 2;
// Slot::aux of a kStack record: whose return addresses they are. The site's
// (a thread's creation, a scope's begin), where a thread was detached, or
// where a thread was running when its scope ended or the program exited.
constexpr std::uint32_t kStackOfSite = 0;
constexpr std::uint32_t kStackOfDetach = 1;
constexpr std::uint32_t kStackOfRunning = 2;

// One record's fixed part. A record with a name (spawn, scope_begin) is
// followed by name_slots raw slots holding name_len bytes of the name.
struct Slot {
  EventType type;
  std::uint8_t name_slots;
  std::uint16_t name_len;
  std::uint32_t aux;  // kind / error code
  std::uint64_t ticks;
  std::uint64_t a, b, c, d, e;
  std::source_location loc;  // a pointer to static data: safe to keep
};
static_assert(sizeof(Slot) <= 64, "a trace slot is one cache line");
static_assert(sizeof(std::source_location) == sizeof(std::uint64_t) &&
                  std::is_trivially_copyable_v<std::source_location>,
              "kSpawnSite stores the parent task in the bytes of Slot::loc");

constexpr std::size_t kSlotBytes = 64;
// Longer names are cut (the cut is visible: they end in "...").
constexpr std::size_t kMaxNameSlots = 16;

class EventRing {
 public:
  static constexpr std::size_t kSlots = 1024;  // 64 KiB per thread

  // early_mark: how many pending slots HasRoom allows before the producer
  // must PassEarlyMark (a thread's ring: half, so that its owner asks the
  // flusher to write it out before it is full and has to do so itself);
  // kSlots: no early mark (the exit ring).
  explicit EventRing(std::size_t early_mark = kSlots)
      : early_mark_(early_mark), limit_(early_mark) {}

  // Producer side (the owning thread only). Returns false when the ring has
  // no room for n slots below its limit (the early mark until the producer
  // passes it, then the whole ring) even after re-reading the consumer's
  // position.
  bool HasRoom(std::size_t n) {
    if (Head() + n - tail_cached_ <= limit_) return true;
    return Refresh(n);
  }
  // Lifts the limit from the early mark to the whole ring; false when it
  // was lifted already (the producer asked for a flush and it has not come).
  bool PassEarlyMark() {
    if (limit_ == kSlots) return false;
    limit_ = kSlots;
    return true;
  }
  // Where the i-th slot of the next record goes (construct a Slot there with
  // placement new: the storage is raw bytes).
  void* SlotAddress(std::size_t i) { return &storage_[(Head() + i) & kMask]; }
  void PutNameChunk(std::size_t i, const char* bytes, std::size_t len) {
    std::memcpy(&storage_[(Head() + i) & kMask], bytes, len);
  }
  void Commit(std::size_t n) { head_.store(Head() + n, std::memory_order_release); }

  // Consumer side (hold consume_mu). Calls fn(const Slot&, std::string_view
  // name) for each committed record; returns how many records it visited.
  template <class F>
  std::size_t Drain(F&& fn) {
    std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    const std::uint64_t head = head_.load(std::memory_order_acquire);
    std::size_t records = 0;
    std::string name;
    while (tail < head) {
      Slot slot;
      std::memcpy(static_cast<void*>(&slot), &storage_[tail & kMask], sizeof(Slot));
      name.clear();
      std::size_t remaining = slot.name_len;
      for (std::size_t k = 1; k <= slot.name_slots; ++k) {
        std::size_t take = remaining < kSlotBytes ? remaining : kSlotBytes;
        name.append(reinterpret_cast<const char*>(&storage_[(tail + k) & kMask]), take);
        remaining -= take;
      }
      fn(slot, std::string_view(name));
      tail += 1 + slot.name_slots;
      ++records;
    }
    tail_.store(tail, std::memory_order_release);
    return records;
  }
  // Moves this ring's committed records, raw and in order, to the producer
  // side of dst (the caller holds this ring's consume_mu and is dst's only
  // producer at that moment). False, moving nothing, when dst lacks room.
  bool MoveTo(EventRing& dst) {
    const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    const std::uint64_t head = head_.load(std::memory_order_acquire);
    const std::size_t n = static_cast<std::size_t>(head - tail);
    if (!dst.HasRoom(n)) return false;
    for (std::size_t k = 0; k < n; ++k) {
      std::memcpy(dst.SlotAddress(k), &storage_[(tail + k) & kMask], kSlotBytes);
    }
    dst.Commit(n);
    tail_.store(head, std::memory_order_release);
    return true;
  }
  std::size_t Pending() const {
    return static_cast<std::size_t>(head_.load(std::memory_order_acquire) -
                                    tail_.load(std::memory_order_acquire));
  }
  bool Empty() const {
    return tail_.load(std::memory_order_acquire) == head_.load(std::memory_order_acquire);
  }

  alignas(64) std::mutex consume_mu;

 private:
  static constexpr std::size_t kMask = kSlots - 1;
  struct alignas(64) Raw {
    unsigned char bytes[kSlotBytes];
  };
  // The producer's own position: only the producer writes head_, so its
  // relaxed read is its latest value.
  std::uint64_t Head() const { return head_.load(std::memory_order_relaxed); }
  // HasRoom's slow path: re-reads the consumer's position; once a drain has
  // brought the ring back under the early mark, the mark applies again.
  bool Refresh(std::size_t n) {
    tail_cached_ = tail_.load(std::memory_order_acquire);
    const std::uint64_t used = Head() + n - tail_cached_;
    if (used <= early_mark_) limit_ = early_mark_;
    return used <= limit_;
  }

  alignas(64) std::atomic<std::uint64_t> head_{0};
  // Producer-private (handed to a new owner only through the registry lock).
  std::uint64_t tail_cached_ = 0;
  const std::size_t early_mark_;
  std::size_t limit_;
  alignas(64) std::atomic<std::uint64_t> tail_{0};
  Raw storage_[kSlots];
};

}  // namespace tether::trace::detail
