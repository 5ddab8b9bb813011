#include "tether/trace_writer/file_sink.hpp"

#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <iterator>

#include "tether/hooks.hpp"
#include "tether/scope_exit.hpp"
#include "tether/trace/scope.h"
#include "tether/trace_writer/json_text.hpp"
#include "tether/trace_writer/loaded_range.hpp"
#include "tether/trace_writer/record_format.hpp"

namespace tether::trace::detail {
namespace {

// Set once this thread's RingReaper has run: a thread that records again
// after that (a static destructor on the main thread) keeps its new ring
// until the exit handler drains it.
thread_local bool t_reaped = false;

// Gives the thread's ring back when the thread exits (after writing it out).
struct RingReaper {
  FileSink* sink = nullptr;
  void (*detach)(FileSink*) = nullptr;
  ~RingReaper() {
    if (sink != nullptr) detach(sink);
    t_reaped = true;
  }
};
thread_local RingReaper t_reaper;

std::string ProgramCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  std::replace(raw.begin(), raw.end(), '\0', ' ');
  return raw;
}

}  // namespace

namespace {
bool IsRegularFile(int fd) {
  struct stat st {};
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}
}  // namespace

FileSink::FileSink(int fd)
    : fd_(fd), pid_(static_cast<long>(getpid())), shared_writes_(IsRegularFile(fd)) {
  rings_.push_back(std::make_unique<EventRing>());
  exit_ring_ = rings_.back().get();
}

Error FileSink::Open(const std::string& path, FileSink** out, long parent_pid) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Error(ErrorCode::kIo, "cannot write trace file '" + path + "': " + std::strerror(errno));
  }
  // Never destroyed: threads may still record while the process exits.
  auto* sink = new FileSink(fd);
  std::string header;
  BeginRecord(header, "header");
  AppendField(header, "version", std::uint64_t{1});
  AppendField(header, "pid", static_cast<std::uint64_t>(sink->pid_));
  if (parent_pid > 0) AppendField(header, "ppid", static_cast<std::uint64_t>(parent_pid));
  AppendField(header, "program", ProgramCommandLine());
  EndRecord(header, MonotonicNs());
  if (!sink->WriteText(header, 0)) {
    int err = errno;
    close(fd);
    return Error(ErrorCode::kIo, "cannot write trace file '" + path + "': " + std::strerror(err));
  }
  // The flusher starts before main when TETHER_TRACE is set, before the
  // program could block the signals it wants to read from a signalfd (the
  // worker blocks SIGINT/SIGTERM in main, for every thread it creates). A
  // thread with those signals unblocked would take a process-directed
  // SIGTERM with its default action (the program dies instead of draining),
  // so the tracer's thread blocks every signal: it is created with a full
  // mask, which it inherits from this thread for that moment.
  sigset_t all_signals, previous;
  sigfillset(&all_signals);
  pthread_sigmask(SIG_SETMASK, &all_signals, &previous);
  // The flusher is the tracer's own thread, never the program's finding (it
  // was reported as a leak of a killed program traced with --threads on).
  {
    tether_thread_pool_creating(1);
    ScopeExit recorded_again{[] { tether_thread_pool_creating(0); }};
    sink->flusher_ = std::thread([sink] { sink->FlusherLoop(); });
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  on_exit(&FileSink::OnExit, sink);
  *out = sink;
  return Error();
}

void FileSink::PutSpawnSlow(std::uint64_t task, std::uint64_t ctx, std::uint64_t group,
                            std::uint64_t scope, std::uint64_t detached_from, std::string_view name,
                            const std::source_location& loc, std::uint64_t parent) {
  const std::uint32_t site = sites_.Intern(name, loc);
  if (site == SpawnSites::kNone) {
    PutNamed(EventType::kSpawn, 0, task, ctx, group, scope, detached_from, loc, name, parent);
    return;
  }
  EventRing* ring = MakeRoom(1);
  if (ring == nullptr) return;
  auto* slot = new (ring->SlotAddress(0)) Slot{
      EventType::kSpawnSite, 0, 0, site, NowTicks(), task, ctx, group, scope, detached_from, {}};
  std::memcpy(static_cast<void*>(&slot->loc), &parent, sizeof(parent));
  ring->Commit(1);
}

EventRing* FileSink::MakeRoom(std::size_t n) {
  EventRing* ring = t_ring;
  if (ring == nullptr) ring = Attach();
  if (ring->HasRoom(n)) return ring;
  // Half full: the flusher writes it out, off this thread's path (a thread
  // that creates threads would otherwise format its records between its
  // pthread_create calls: bench/results/trace-threads.md).
  if (ring->PassEarlyMark()) {
    WakeFlusher();
    if (ring->HasRoom(n)) return ring;
  }
  // Full (the flusher is behind): this thread writes it out itself.
  {
    std::lock_guard<std::mutex> lock(ring->consume_mu);
    DrainAndWrite(*ring);
  }
  if (ring->HasRoom(n)) return ring;
  lost_.fetch_add(1, std::memory_order_relaxed);  // cannot happen: the ring was just emptied
  return nullptr;
}

void FileSink::PutNamed(EventType type, std::uint32_t aux, std::uint64_t a, std::uint64_t b,
                        std::uint64_t c, std::uint64_t d, std::uint64_t e,
                        const std::source_location& loc, std::string_view name,
                        std::uint64_t parent) {
  // Payload: [parent (spawn only)][name bytes], cut to kMaxNameSlots slots.
  const std::size_t prefix = type == EventType::kSpawn ? sizeof(parent) : 0;
  const std::size_t max_name = kMaxNameSlots * kSlotBytes - prefix;
  if (__builtin_expect(name.size() > max_name, 0)) {
    std::string cut(name.substr(0, max_name - 3));
    cut += "...";
    PutNamed(type, aux, a, b, c, d, e, loc, cut, parent);
    return;
  }
  const std::size_t payload = prefix + name.size();
  const std::size_t payload_slots = (payload + kSlotBytes - 1) / kSlotBytes;
  const std::size_t n = 1 + payload_slots;
  EventRing* ring = t_ring;
  if (ring == nullptr || !ring->HasRoom(n)) {
    ring = MakeRoom(n);
    if (ring == nullptr) return;
  }
  new (ring->SlotAddress(0)) Slot{type,
                                  static_cast<std::uint8_t>(payload_slots),
                                  static_cast<std::uint16_t>(payload),
                                  aux,
                                  NowTicks(),
                                  a,
                                  b,
                                  c,
                                  d,
                                  e,
                                  loc};
  if (payload_slots > 0) {
    // Assemble the payload's first slot (it may hold the parent id and the
    // start of the name); the rest of the name is copied slot by slot.
    char first[kSlotBytes];
    std::memcpy(first, &parent, prefix);
    std::size_t in_first = std::min(kSlotBytes - prefix, name.size());
    std::memcpy(first + prefix, name.data(), in_first);
    ring->PutNameChunk(1, first, prefix + in_first);
    for (std::size_t k = 1, off = in_first; off < name.size(); ++k, off += kSlotBytes) {
      ring->PutNameChunk(1 + k, name.data() + off, std::min(kSlotBytes, name.size() - off));
    }
  }
  ring->Commit(n);
}

EventRing* FileSink::Attach() {
  EventRing* ring;
  {
    std::lock_guard<std::mutex> lock(registry_mu_);
    if (!free_rings_.empty()) {
      ring = free_rings_.back();
      free_rings_.pop_back();
    } else {
      rings_.push_back(std::make_unique<EventRing>(EventRing::kSlots / 2));
      ring = rings_.back().get();
    }
    peak_rings_ = std::max(peak_rings_, ++rings_in_use_);
  }
  t_ring = ring;
  if (!t_reaped) {
    t_reaper.sink = this;
    t_reaper.detach = [](FileSink* s) {
      if (t_ring != nullptr) s->Detach(t_ring);
      t_ring = nullptr;
    };
  }
  return ring;
}

void FileSink::Detach(EventRing* ring) {
  {
    std::lock_guard<std::mutex> lock(ring->consume_mu);
    if (!HandOffAtExit(*ring)) DrainAndWrite(*ring);
  }
  std::lock_guard<std::mutex> lock(registry_mu_);
  free_rings_.push_back(ring);
  --rings_in_use_;
}

bool FileSink::HandOffAtExit(EventRing& ring) {
  // A thread that ends with many records pending writes them itself: moving
  // them would only fill the exit ring.
  constexpr std::size_t kMaxMovedSlots = 64;
  const std::size_t pending = ring.Pending();
  if (pending == 0) return true;
  if (pending > kMaxMovedSlots) return false;
  std::lock_guard<std::mutex> lock(exit_mu_);
  if (!ring.MoveTo(*exit_ring_)) {
    // Full (the flusher is behind): this thread writes it out, then moves.
    std::lock_guard<std::mutex> exit_lock(exit_ring_->consume_mu);
    DrainAndWrite(*exit_ring_);
    if (!ring.MoveTo(*exit_ring_)) return false;
  }
  // Half full: wake the flusher now rather than at its next tick, so that
  // exiting threads seldom find the ring full.
  if (exit_ring_->Pending() > EventRing::kSlots / 2) WakeFlusher();
  return true;
}

void FileSink::WakeFlusher() {
  if (flusher_woken_.exchange(true, std::memory_order_relaxed)) return;  // asked already
  // A forked child has no flusher, and flusher_mu_ may have been copied
  // locked: it must not wait for it (its owner writes its rings when full).
  if (static_cast<long>(getpid()) != pid_) return;
  // Notified under flusher_mu_, which the flusher holds from its check of
  // flusher_woken_ until it waits: the wake cannot fall between the two.
  std::lock_guard<std::mutex> lock(flusher_mu_);
  flusher_cv_.notify_one();
}

void FileSink::DrainAndWrite(EventRing& ring) {
  if (ring.Empty()) return;
  // The conversion is taken once the ring's records are known (Drain has
  // read the producer's position when it first calls back): it then covers
  // every tick converted with it by interpolation, never by extrapolation.
  TickConversion conv;
  bool have_conv = false;
  std::string text;
  // A task's record is ~60 bytes: one allocation per drain, no regrowth.
  text.reserve(ring.Pending() * 96 + 256);
  std::size_t records = ring.Drain([&](const Slot& slot, std::string_view name) {
    if (!have_conv) {
      conv = clock_.Current();
      have_conv = true;
    }
    const SpawnSites::Site* site =
        slot.type == EventType::kSpawnSite ? &sites_.Get(slot.aux) : nullptr;
    FormatRecord(text, slot, name, conv, site);
  });
  WriteText(text, records);
}

bool FileSink::WriteText(const std::string& text, std::size_t records, bool close_after) {
  // A forked child (running libtether code before exec) must not write
  // into its parent's file through the inherited descriptor.
  if (static_cast<long>(getpid()) != pid_) return false;
  std::shared_lock<std::shared_mutex> shared(file_mu_, std::defer_lock);
  std::unique_lock<std::shared_mutex> alone(file_mu_, std::defer_lock);
  if (shared_writes_ && !close_after)
    shared.lock();
  else
    alone.lock();
  struct CloseAfter {
    FileSink* sink;
    bool enabled;
    ~CloseAfter() {
      if (!enabled || sink->closed_) return;
      sink->closed_ = true;
      close(sink->fd_);
    }
  } close_guard{this, close_after};
  if (closed_) {
    lost_.fetch_add(records, std::memory_order_relaxed);
    return false;
  }
  // Each string goes out in one write(2) unless the kernel takes less (a
  // full disk): then the rest follows, and with shared writers another
  // thread's lines may come between (the trace is cut there either way).
  auto write_all = [&](const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
      ssize_t w = write(fd_, s.data() + done, s.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      done += static_cast<std::size_t>(w);
    }
    bytes_.fetch_add(s.size(), std::memory_order_relaxed);
    return true;
  };
  // Records lost since the last report: one writer claims them and writes
  // the "lost" line (given back if that write fails).
  const std::uint64_t lost = lost_.load(std::memory_order_relaxed);
  std::uint64_t reported = lost_reported_.load(std::memory_order_relaxed);
  if (lost > reported &&
      lost_reported_.compare_exchange_strong(reported, lost, std::memory_order_relaxed)) {
    std::string lost_line;
    BeginRecord(lost_line, "lost");
    AppendField(lost_line, "count", lost - reported);
    EndRecord(lost_line, MonotonicNs());
    if (!write_all(lost_line)) lost_reported_.fetch_sub(lost - reported, std::memory_order_relaxed);
  }
  if (!write_all(text)) {
    lost_.fetch_add(records, std::memory_order_relaxed);
    return false;
  }
  written_.fetch_add(records, std::memory_order_relaxed);
  return true;
}

void FileSink::FlushAll() {
  // A forked child's rings are copies of its parent's: not written twice.
  if (static_cast<long>(getpid()) != pid_) return;
  std::vector<EventRing*> rings;
  {
    std::lock_guard<std::mutex> lock(registry_mu_);
    rings.reserve(rings_.size());
    for (auto& r : rings_) rings.push_back(r.get());
  }
  for (EventRing* ring : rings) {
    std::lock_guard<std::mutex> lock(ring->consume_mu);
    DrainAndWrite(*ring);
  }
}

void FileSink::PutStack(std::uint64_t id, int skip) {
  PutNewModules();
  constexpr int kMaxFrames = 12;
  void* frames[kMaxFrames];
  const int n = backtrace(frames, kMaxFrames);
  std::uint64_t pcs[kMaxFrames + 4] = {};
  int count = 0;
  for (int i = skip + 1; i < n; ++i) pcs[count++] = reinterpret_cast<std::uintptr_t>(frames[i]);
  PutPcs(id, pcs, count);
}

void FileSink::PutPcs(std::uint64_t id, const std::uint64_t* pcs, int count, std::uint32_t of) {
  PutNewModules();
  std::uint64_t padded[16] = {};
  count = std::min(count, 16);
  std::copy(pcs, pcs + count, padded);
  for (int i = 0; i < count; i += 4) {
    Put(EventType::kStack, of, id, padded[i], padded[i + 1], padded[i + 2], padded[i + 3],
        std::source_location{});
  }
}

void FileSink::PutNewModules() {
  std::lock_guard<std::mutex> lock(modules_mu_);
  struct Walk {
    FileSink* sink;
    bool first = true;
  } walk{this};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* data) {
        auto* walk = static_cast<Walk*>(data);
        FileSink* sink = walk->sink;
        // dlpi_adds counts every object the loader has ever loaded: the
        // same as last time (read on the first object), nothing is new.
        if (walk->first && size >= offsetof(dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds) {
          if (info->dlpi_adds == sink->modules_adds_) return 1;
          sink->modules_adds_ = info->dlpi_adds;
        }
        walk->first = false;
        const auto [lo, hi] = RangeOf(*info);
        std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        if (path.empty()) {  // the main program
          char exe[4096];
          ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
          if (n <= 0) return 0;
          path.assign(exe, static_cast<std::size_t>(n));
        }
        if (hi == 0 || path.rfind("linux-vdso", 0) == 0) return 0;
        std::pair<std::string, std::uint64_t> key{path, info->dlpi_addr};
        if (std::find(sink->modules_.begin(), sink->modules_.end(), key) != sink->modules_.end())
          return 0;
        sink->modules_.push_back(std::move(key));
        sink->PutNamed(EventType::kModule, 0, info->dlpi_addr, lo, hi, 0, 0, std::source_location{},
                       path);
        return 0;
      },
      &walk);
}

void FileSink::FlushThisThread() {
  // The records of threads that ended before this point go first, converted
  // with the same clock reading: a scope's end must not reach the file ahead
  // of the end of a task that was joined before it (and converted after it,
  // with a rate refined in between, appear to end later).
  {
    std::lock_guard<std::mutex> lock(exit_ring_->consume_mu);
    DrainAndWrite(*exit_ring_);
  }
  EventRing* ring = t_ring;
  if (ring == nullptr) return;
  std::lock_guard<std::mutex> lock(ring->consume_mu);
  DrainAndWrite(*ring);
}

void FileSink::FlusherLoop() {
  std::unique_lock<std::mutex> lock(flusher_mu_);
  while (!stop_flusher_) {
    flusher_cv_.wait_for(lock, std::chrono::milliseconds(100), [this] {
      return stop_flusher_ || flusher_woken_.load(std::memory_order_relaxed);
    });
    // Cleared before the flush: a ring that passes its mark during the
    // flush asks again, and the loop goes round at once.
    flusher_woken_.store(false, std::memory_order_relaxed);
    lock.unlock();
    FlushAll();
    lock.lock();
  }
}

void FileSink::Finish(int status) {
  // A forked child that exits must not write into its parent's trace.
  if (static_cast<long>(getpid()) != pid_) return;
  {
    std::lock_guard<std::mutex> lock(flusher_mu_);
    if (stop_flusher_) return;  // already finished
    stop_flusher_ = true;
  }
  flusher_cv_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  FlushAll();
  std::string exit_line;
  BeginRecord(exit_line, "exit");
  AppendFieldSigned(exit_line, "status", status);
  EndRecord(exit_line, MonotonicNs());
  // The exit record is the last line: late events (threads still running)
  // are counted as lost from here on, never written after it.
  WriteText(exit_line, 0, /*close_after=*/true);
}

void FileSink::OnExit(int status, void* self) { static_cast<FileSink*>(self)->Finish(status); }

SinkStats FileSink::Stats() const {
  SinkStats s;
  s.ring_bytes = sizeof(EventRing);
  {
    std::lock_guard<std::mutex> lock(registry_mu_);
    s.peak_rings = peak_rings_;
    s.allocated_rings = rings_.size();
  }
  s.records_written = written_.load(std::memory_order_relaxed);
  s.bytes_written = bytes_.load(std::memory_order_relaxed);
  s.lost_events = lost_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace tether::trace::detail
