// FileSink: writes the trace file (docs/trace-format.md) from per-thread
// EventRings.
//
// Recording (Put) touches only the calling thread's ring: no lock, no
// syscall. A ring is attached to a thread on its first event (the registry
// lock is taken then, and when the thread exits and gives the ring back for
// reuse). Rings are written out as JSON lines by a background flusher every
// 100 ms, and at once when a ring is half full (its owner wakes the flusher),
// by their owner only when full (the flusher is behind), and by the exit
// handler. At thread exit a
// ring's few remaining records are moved, raw, into the shared exit ring
// (no formatting, no write(2) on the exiting thread, which a joiner waits
// for), which the flusher writes out; so the records of threads that ended
// within the last flush interval are lost to a SIGKILL (those threads then
// read as still running), as any thread's records of that interval are. Events that cannot be
// written (a failed write) are counted and reported in a `lost` record, never dropped silently.
//
// One FileSink per process, started once and never destroyed: threads still
// running during exit may record into it safely (after the exit record those
// events are counted, not written).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <source_location>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tether/error.hpp"
#include "tether/trace_writer/event_ring.hpp"
#include "tether/trace_writer/spawn_sites.hpp"
#include "tether/trace_writer/trace_clock.hpp"

namespace tether::trace::detail {

// What a FileSink has written and lost (tether::trace::RuntimeStats reports it).
struct SinkStats {
  std::uint64_t records_written = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t lost_events = 0;  // events that could not be written
  std::size_t ring_bytes = 0;     // the buffer of one thread
  std::size_t peak_rings = 0;     // most thread buffers in use at once
  std::size_t allocated_rings = 0;
};

class FileSink {
 public:
  // Opens path (truncating it), writes the header line and starts the
  // flusher. An unwritable path is an Error naming it. parent_pid: the
  // header's `ppid`, for the part of a child process the traced program
  // started (0: the traced program itself, no `ppid`).
  static Error Open(const std::string& path, FileSink** out, long parent_pid = 0);

  // Records one event from the calling thread: the hot path, inline. An
  // event with a name (spawn, scope_begin) goes through PutNamed.
  void Put(EventType type, std::uint32_t aux, std::uint64_t a, std::uint64_t b, std::uint64_t c,
           std::uint64_t d, std::uint64_t e, const std::source_location& loc) {
    EventRing* ring = t_ring;
    if (__builtin_expect(ring == nullptr || !ring->HasRoom(1), 0)) {
      ring = MakeRoom(1);
      if (ring == nullptr) return;
    }
    new (ring->SlotAddress(0)) Slot{type, 0, 0, aux, NowTicks(), a, b, c, d, e, loc};
    ring->Commit(1);
  }
  // The same with a name; a spawn also carries its parent task (stored ahead
  // of the name, in the record's payload slots).
  void PutNamed(EventType type, std::uint32_t aux, std::uint64_t a, std::uint64_t b,
                std::uint64_t c, std::uint64_t d, std::uint64_t e, const std::source_location& loc,
                std::string_view name, std::uint64_t parent = 0);

  // A task spawn: the hot path of TaskSpawned. A (name, site) pair seen
  // before on this thread is one slot carrying the pair's id in the site
  // table (spawn_sites.hpp); when the pair cannot be interned (the table is
  // full, the name long) the name is copied into the record as PutNamed
  // does. Both are written out as the same `spawn` line
  // (docs/trace-format.md is unchanged).
  __attribute__((always_inline)) void PutSpawn(std::uint64_t task, std::uint64_t ctx,
                                               std::uint64_t group, std::uint64_t scope,
                                               std::uint64_t detached_from, std::string_view name,
                                               const std::source_location& loc,
                                               std::uint64_t parent) {
    std::uint32_t site;
    EventRing* ring = t_ring;
    if (__builtin_expect(
            !sites_.FindCached(name, loc, &site) || ring == nullptr || !ring->HasRoom(1), 0)) {
      PutSpawnSlow(task, ctx, group, scope, detached_from, name, loc, parent);
      return;
    }
    auto* slot = new (ring->SlotAddress(0)) Slot{
        EventType::kSpawnSite, 0, 0, site, NowTicks(), task, ctx, group, scope, detached_from, {}};
    std::memcpy(static_cast<void*>(&slot->loc), &parent, sizeof(parent));
    ring->Commit(1);
  }

  // Records the calling thread's return addresses as `stack` records for id,
  // skipping the innermost `skip` frames (the caller's own), so the tool can
  // symbolize a site that no std::source_location gives (threads, scopes
  // made through std::make_unique).
  void PutStack(std::uint64_t id, int skip);
  // The same for return addresses the caller captured (up to 16 are kept);
  // of: kStackOfSite, kStackOfDetach (where the thread id was detached) or
  // kStackOfRunning (where it was running when its scope ended, or at exit).
  void PutPcs(std::uint64_t id, const std::uint64_t* pcs, int count,
              std::uint32_t of = kStackOfSite);
  // Records every loaded object not recorded yet (`module`), for symbolizing
  // stacks: on each PutStack/PutPcs, so that an object dlopen()ed after the
  // start (a plugin that starts threads) is known too. Costs one loader
  // callback when nothing was loaded since the last call.
  void PutNewModules();

  // Writes out every ring now (any thread).
  void FlushAll();
  // Writes out the exit ring and the calling thread's ring now: a record
  // that must survive a SIGKILL right after it (a scope's end) does not wait
  // for the flusher, nor do the ends of threads that exited before it.
  void FlushThisThread();
  // Final flush and the exit record; later events are only counted.
  void Finish(int status);
  SinkStats Stats() const;

 private:
  // The calling thread's ring (null until its first event). Trivially
  // constructible and destructible: readable during thread and process exit.
  static inline thread_local EventRing* t_ring = nullptr;

  // PutSpawn when the pair is not in the thread's cache or the ring has no
  // room: interns the pair (or records the name inline), then the record.
  __attribute__((noinline)) void PutSpawnSlow(std::uint64_t task, std::uint64_t ctx,
                                              std::uint64_t group, std::uint64_t scope,
                                              std::uint64_t detached_from, std::string_view name,
                                              const std::source_location& loc,
                                              std::uint64_t parent);

  explicit FileSink(int fd);
  // Attaches a ring to the thread if it has none, drains it if it lacks room
  // for n slots; null when the event cannot be recorded (counted as lost).
  EventRing* MakeRoom(std::size_t n);
  EventRing* Attach();
  void Detach(EventRing* ring);
  // Moves an exiting thread's pending records into exit_ring_; false when
  // there are too many to be worth moving (the caller writes them itself).
  bool HandOffAtExit(EventRing& ring);  // caller holds ring.consume_mu
  // Asks the flusher to write every ring out now (once until it has).
  void WakeFlusher();
  void DrainAndWrite(EventRing& ring);  // caller holds ring.consume_mu
  bool WriteText(const std::string& text, std::size_t records, bool close_after = false);
  void FlusherLoop();
  static void OnExit(int status, void* self);

  const int fd_;
  const long pid_;
  TraceClock clock_;

  mutable std::mutex registry_mu_;
  std::vector<std::unique_ptr<EventRing>> rings_;  // guarded by registry_mu_; never shrinks
  std::vector<EventRing*> free_rings_;             // guarded by registry_mu_
  std::size_t rings_in_use_ = 0;                   // guarded by registry_mu_
  std::size_t peak_rings_ = 0;                     // guarded by registry_mu_
  // The exit ring (one of rings_, never handed to a thread): exiting threads
  // are its producers, one at a time under exit_mu_; drained like the others.
  EventRing* exit_ring_ = nullptr;
  std::mutex exit_mu_;
  std::atomic<bool> flusher_woken_{false};  // a ring asked for a flush (WakeFlusher)

  // Writers of a regular file share file_mu_: the file is opened O_APPEND, so
  // each write(2) is one atomic append and threads need not wait for each
  // other's (a writer blocked there woke up on the CPU of a thread recording
  // events: bench/results/trace-events.md). Another kind of file (a pipe, a
  // terminal) and the close take it alone.
  const bool shared_writes_;
  mutable std::shared_mutex file_mu_;
  bool closed_ = false;                    // written under file_mu_ alone
  std::atomic<std::uint64_t> written_{0};  // records written
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<std::uint64_t> lost_{0};           // records that could not be written
  std::atomic<std::uint64_t> lost_reported_{0};  // claimed by the writer of a "lost" line

  SpawnSites sites_;
  std::mutex modules_mu_;
  unsigned long long modules_adds_ = 0;  // dl_phdr_info::dlpi_adds at the last PutNewModules
  std::vector<std::pair<std::string, std::uint64_t>>
      modules_;  // (path, bias) recorded; guarded  // the interned (name, site) pairs of kSpawnSite
                 // records

  std::mutex flusher_mu_;
  std::condition_variable flusher_cv_;
  bool stop_flusher_ = false;  // guarded by flusher_mu_
  std::thread flusher_;        // joined by Finish
};

}  // namespace tether::trace::detail
