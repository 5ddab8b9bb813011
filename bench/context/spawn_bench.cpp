// Spawning tasks at scale: 100,000 tasks started from 8 threads, each
// benchmark iteration timed from the first spawn to the last task's end.
// libtether's tasks run on cached threads (lib/context/src/thread_cache.cpp);
// the baseline is what a task cost before: a std::thread created and joined
// per task. bench/spawn.bench.sh turns the medians into bench/results/spawn.md.
#include <benchmark/benchmark.h>

#include <atomic>
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

// tether::Go (detached) + the task's end, seen through a countdown.
void BM_GoTaskEnd(benchmark::State& state) {
  const auto before = tether::detail::GetThreadCacheStats();
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
}
BENCHMARK(BM_GoTaskEnd)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// TaskGroup::Go + Wait, a group per batch of kBatch tasks (as the baseline).
void BM_TaskGroupGoWait(benchmark::State& state) {
  const auto before = tether::detail::GetThreadCacheStats();
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

}  // namespace

BENCHMARK_MAIN();
