// Spawning tasks at scale: 100,000 tasks started from 8 threads, each
// benchmark iteration timed from the first spawn to the last task's end.
// libtether's tasks run on cached threads (lib/context/src/thread_cache.cpp);
// the baseline is what a task cost before: a std::thread created and joined
// per task. bench/spawn.bench.sh turns the medians into bench/results/spawn.md.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include "tether/task.hpp"
#include "thread_cache.hpp"

namespace {

constexpr int kSpawners = 8;
constexpr int kTasks = 100000;
constexpr int kPerSpawner = kTasks / kSpawners;
constexpr int kBatch = 1000;  // raw threads alive at once per spawner (memory maps)

template <class Spawn>
void FromSpawners(Spawn spawn) {
  std::vector<std::thread> spawners;
  spawners.reserve(kSpawners);
  for (int s = 0; s < kSpawners; ++s) spawners.emplace_back(spawn);
  for (auto& t : spawners) t.join();
}

// Threads the cache started during the benchmark (earlier runs' idle
// threads are reused: the first repetition starts the most).
void CountThreads(benchmark::State& state, const tether::detail::ThreadCacheStats& before) {
  state.counters["threads_started"] =
      static_cast<double>(tether::detail::GetThreadCacheStats().started - before.started);
}

// The process's CPU time so far (user + system), ns: what the tasks cost the
// machine, whichever threads spent it (Google Benchmark's CPU column is the
// main thread's alone).
std::int64_t ProcessCpuNs() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) {
    return static_cast<std::int64_t>(tv.tv_sec) * 1'000'000'000 + tv.tv_usec * 1000;
  };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

void CountCpu(benchmark::State& state, std::int64_t cpu_before) {
  state.counters["cpu_us_a_task"] = static_cast<double>(ProcessCpuNs() - cpu_before) / 1e3 /
                                    static_cast<double>(state.iterations() * kTasks);
}

// tether::Go (detached) + the task's end, seen through a countdown.
void BM_GoTaskEnd(benchmark::State& state) {
  const auto before = tether::detail::GetThreadCacheStats();
  const std::int64_t cpu_before = ProcessCpuNs();
  for (auto _ : state) {
    FromSpawners([] {
      std::atomic<int> left{kPerSpawner};
      for (int i = 0; i < kPerSpawner; ++i) {
        // tether:detached(the spawner waits for every task's countdown below)
        tether::Go(tether::Background(), [&left] {
          if (left.fetch_sub(1, std::memory_order_acq_rel) == 1) left.notify_one();
        });
      }
      for (int v = left.load(); v != 0; v = left.load()) left.wait(v);
    });
  }
  state.SetItemsProcessed(state.iterations() * kTasks);
  CountThreads(state, before);
  CountCpu(state, cpu_before);
}
BENCHMARK(BM_GoTaskEnd)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// TaskGroup::Go + Wait, a group per batch of kBatch tasks (as the baseline).
void BM_TaskGroupGoWait(benchmark::State& state) {
  const auto before = tether::detail::GetThreadCacheStats();
  const std::int64_t cpu_before = ProcessCpuNs();
  for (auto _ : state) {
    FromSpawners([] {
      for (int done = 0; done < kPerSpawner; done += kBatch) {
        auto [group, gctx] = tether::TaskGroup::WithContext(tether::Background());
        for (int i = done; i < kPerSpawner && i < done + kBatch; ++i) group.Go([] {});
        benchmark::DoNotOptimize(group.Wait());
      }
    });
  }
  state.SetItemsProcessed(state.iterations() * kTasks);
  CountThreads(state, before);
  CountCpu(state, cpu_before);
}
BENCHMARK(BM_TaskGroupGoWait)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// The baseline: one std::thread per task, created and joined.
void BM_RawThreadsCreateJoin(benchmark::State& state) {
  for (auto _ : state) {
    FromSpawners([] {
      std::vector<std::thread> threads;
      threads.reserve(kBatch);
      for (int done = 0; done < kPerSpawner; done += kBatch) {
        for (int i = done; i < kPerSpawner && i < done + kBatch; ++i) threads.emplace_back([] {});
        for (auto& t : threads) t.join();
        threads.clear();
      }
    });
  }
  state.SetItemsProcessed(state.iterations() * kTasks);
}
BENCHMARK(BM_RawThreadsCreateJoin)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// Spawn to start of one task (TaskGroup::Go to the first line of its body),
// timed by the spawner: with nothing else running (Arg 0), and with every
// core running a task that computes and never blocks (Arg 1). In the second
// case every thread is busy, so the cache queues the task and gives it a
// thread of its own after at most its queue bound (thread_cache.cpp); before
// the queue, it handed the task to an idle thread at once and the kernel
// scheduled that thread among the busy ones.
void BM_SpawnLatency(benchmark::State& state) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<bool> stop{false};
  std::atomic<unsigned> spinning{0};
  auto [busy, bctx] = tether::TaskGroup::WithContext(tether::Background());
  if (state.range(0) != 0) {
    for (unsigned i = 0; i < cores; ++i) {
      busy.Go([&] {
        spinning.fetch_add(1);
        while (!stop.load(std::memory_order_relaxed)) benchmark::ClobberMemory();
      });
    }
    while (spinning.load() < cores) std::this_thread::yield();
  }
  for (auto _ : state) {
    std::atomic<std::int64_t> started_ns{0};
    const auto spawned = std::chrono::steady_clock::now();
    auto [one, octx] = tether::TaskGroup::WithContext(tether::Background());
    one.Go([&] {
      started_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now() - spawned)
                       .count();
    });
    benchmark::DoNotOptimize(one.Wait());
    state.SetIterationTime(static_cast<double>(started_ns.load()) * 1e-9);
  }
  stop = true;
  benchmark::DoNotOptimize(busy.Wait());
}
BENCHMARK(BM_SpawnLatency)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

// SPAWN_BENCH_QUEUE_WAIT_US: the thread cache's queue bound for this run
// (thread_cache.cpp; default 100), to measure what it trades.
int main(int argc, char** argv) {
  if (const char* us = std::getenv("SPAWN_BENCH_QUEUE_WAIT_US"))
    tether::detail::SetThreadCacheMaxQueueWait(std::chrono::microseconds(std::atoll(us)));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
