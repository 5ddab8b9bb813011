// Cost of recording one trace event, against the limit: a bare per-thread
// ring-buffer append of a 64-byte record with a TSC timestamp, written here
// with nothing else (no virtual call, no names, no consumer).
//
// Both sides record batches of kBatch events and are drained outside the
// timed region (PauseTiming), so the figure is the cost on the recording
// thread when the background flusher keeps up. BM_TracerSustained does not
// pause: it also pays for formatting the JSON lines and writing them.
//
// Like for like: both sides write one 64-byte record per event and read the
// TSC once for it (the tracer's NowTicks is __rdtsc on x86-64); the tracer
// adds what it really does on top (the Active() and file() loads, a virtual
// call, the room check, a release store of its position). Each side empties
// only its own ring between batches, as a busy thread does (a full ring is
// drained by its owner): the tracer used to call FlushTrace, which from every
// thread drained every thread's ring, so at 2 and 8 threads each thread read
// the others' slots while they were writing the next ones, and the writers
// paid for taking those lines back (CPU per batch 7.07 -> 10.0 us at 2
// threads, lead 09:44), a cost of the benchmark, not of an event.
#include <benchmark/benchmark.h>
#include <x86intrin.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "tether/hooks.hpp"
#include "runtime_tracer.hpp"
#include "tether/trace/runtime.hpp"

namespace {

constexpr int kBatch = 512;

// The baseline: a thread-local ring of 64-byte records.
struct alignas(64) BareRecord {
  std::uint64_t ticks;
  std::uint64_t a, b, c, d, e;
  std::uint32_t type, aux;
  const void* site;
};
struct BareRing {
  static constexpr std::size_t kSlots = 1024;
  std::size_t head = 0;
  BareRecord slots[kSlots];
};
thread_local BareRing t_bare;

// Writes out the calling thread's ring only (the bare side's reset).
void FlushOwnRing() {
  if (auto* f = tether::trace::detail::RuntimeTracer::Get().file()) f->FlushThisThread();
}

__attribute__((noinline)) void BareAppend(std::uint64_t task) {
  BareRing& r = t_bare;
  BareRecord& rec = r.slots[r.head++ & (BareRing::kSlots - 1)];
  rec.ticks = __rdtsc();
  rec.a = task;
  rec.b = rec.c = rec.d = rec.e = 0;
  rec.type = 5;
  rec.aux = 0;
  rec.site = nullptr;
}

void BM_BareRingAppend(benchmark::State& state) {
  std::uint64_t task = 1;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) BareAppend(task++);
    state.PauseTiming();
    benchmark::DoNotOptimize(t_bare.head);
    t_bare.head = 0;
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_BareRingAppend)->Threads(1)->Threads(2)->Threads(8)->UseRealTime();

std::int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The tracer: the hook call libtether makes at every task end. The untimed
// flush (formatting the batch as JSON lines and writing them, what the
// background flusher does for a busy program) is reported apart, as the
// thread CPU time it took per event: flush_cpu_ns_per_event.
// Flushes the calling thread's ring between batches (untimed), adding the
// thread CPU time it took to *flush_ns.
void UntimedFlush(benchmark::State& state, std::int64_t* flush_ns) {
  state.PauseTiming();
  const std::int64_t before = ThreadCpuNs();
  FlushOwnRing();
  *flush_ns += ThreadCpuNs() - before;
  state.ResumeTiming();
}

void ReportEvents(benchmark::State& state, std::int64_t flush_ns) {
  state.SetItemsProcessed(state.iterations() * kBatch);
  const double events = static_cast<double>(state.iterations() * kBatch);
  state.counters["flush_cpu_ns_per_event"] = benchmark::Counter(
      events > 0 ? static_cast<double>(flush_ns) / events : 0.0, benchmark::Counter::kAvgThreads);
}

void BM_TracerEvent(benchmark::State& state) {
  std::uint64_t task = 1;
  std::int64_t flush_ns = 0;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      if (auto* t = tether::hooks::Active()) t->TaskEnded(task++, tether::ErrorCode::kOk);
    }
    UntimedFlush(state, &flush_ns);
  }
  ReportEvents(state, flush_ns);
}
BENCHMARK(BM_TracerEvent)->Threads(1)->Threads(2)->Threads(8)->UseRealTime();

// A spawn: a name and a site (one slot once its pair is interned).
void BM_TracerSpawnEvent(benchmark::State& state) {
  std::uint64_t task = 1;
  std::int64_t flush_ns = 0;
  const std::source_location loc = std::source_location::current();
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      if (auto* t = tether::hooks::Active()) t->TaskSpawned(task++, 7, 8, 9, 0, "stream step", loc);
    }
    UntimedFlush(state, &flush_ns);
  }
  ReportEvents(state, flush_ns);
}
BENCHMARK(BM_TracerSpawnEvent)->Threads(1)->UseRealTime();

// Recording plus formatting plus write(2), amortised: the sustained cost.
void BM_TracerSustained(benchmark::State& state) {
  std::uint64_t task = 1;
  for (auto _ : state) {
    if (auto* t = tether::hooks::Active()) t->TaskEnded(task++, tether::ErrorCode::kOk);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TracerSustained)->Threads(1)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/tether-trace-bench.jsonl";
  // A file the caller names (TRACE_BENCH_FILE=/dev/null, say) is theirs: it
  // is never removed. Removing /dev/null as root replaced it with a regular
  // file at the next shell redirection, and every later test that reads it broke.
  const char* named = std::getenv("TRACE_BENCH_FILE");
  if (named != nullptr && *named != '\0') path = named;
  if (tether::Error err = tether::trace::StartFileTrace(path); !err.ok()) {
    std::fprintf(stderr, "trace_event_bench: %s\n", err.ToString().c_str());
    return 2;
  }
  // Attach this thread's ring now (the registry lock and a 64 KiB ring,
  // once per thread), so that no benchmark's first batch pays for it: with
  // few iterations (under callgrind, bench/trace_ir.bench.sh) it would
  // dominate the per-event figure. (Not a TaskEnded: the script counts
  // only the benchmarks' calls of the hooks it measures.)
  if (auto* t = tether::hooks::Active()) t->GroupWaitEnd(0, tether::ErrorCode::kOk);
  tether::trace::FlushTrace();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  tether::trace::FlushTrace();
  tether::trace::RuntimeStats s = tether::trace::GetRuntimeStats();
  std::fprintf(stderr, "trace file %s: %llu records, %llu bytes (%.1f bytes/record), lost %llu\n",
               path.c_str(), static_cast<unsigned long long>(s.records_written),
               static_cast<unsigned long long>(s.bytes_written),
               s.records_written ? static_cast<double>(s.bytes_written) / s.records_written : 0.0,
               static_cast<unsigned long long>(s.lost_events));
  if (named == nullptr || *named == '\0') std::remove(path.c_str());
  return 0;
}
