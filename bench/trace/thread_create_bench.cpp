// One std::thread create + join, in process: the cost issue 22 bounds at
// <= 1.10x untraced. Not linked with the shim: bench/trace_thread_create.sh
// runs this same binary with and without libtether_threads.so preloaded
// (TETHER_THREADS_TRACE set) and divides the two medians, so both sides run the
// same code and the ratio is what tracing adds. Real threads: each iteration
// is a clone, the thread's start and end, and the join.
#include <benchmark/benchmark.h>

#include <thread>

namespace {

void BM_ThreadCreateJoin(benchmark::State& state) {
  for (auto _ : state) {
    std::thread worker([] {});
    worker.join();
  }
}
BENCHMARK(BM_ThreadCreateJoin)->UseRealTime();

// The same, each thread doing a little (2000 multiply-adds, about a
// microsecond): the traced share of a thread that does some work.
void BM_ThreadCreateJoinWork(benchmark::State& state) {
  for (auto _ : state) {
    std::thread worker([] {
      unsigned x = 1;
      for (int i = 0; i < 2000; ++i) benchmark::DoNotOptimize(x = x * 1664525u + 1013904223u);
    });
    worker.join();
  }
}
BENCHMARK(BM_ThreadCreateJoinWork)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
