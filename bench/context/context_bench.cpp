// libtether against the standard-library way of doing the same thing:
//  - WithCancel + cancel      vs std::stop_source + std::stop_callback
//  - cancel propagation       to 1k and 10k descendants (ns per descendant)
//  - TaskGroup Go + Wait      vs raw std::thread create + join
//  - Channel send/recv        vs a mutex + condition_variable bounded queue
//  - Select over two channels (its anchor is Go's select: bench/vs-go.bench.sh)
#include <benchmark/benchmark.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "tether/tether.hpp"

namespace {

// --- Derive a cancellable child of a live parent, then cancel it. ---

void BM_WithCancelCancel(benchmark::State& state) {
  auto [parent, cancel_parent] = tether::WithCancel(tether::Background());
  for (auto _ : state) {
    auto [ctx, cancel] = tether::WithCancel(parent);
    cancel();
    benchmark::DoNotOptimize(ctx);
  }
  cancel_parent();
}
BENCHMARK(BM_WithCancelCancel);

// The same with the standard library: a child stop_source linked to the
// parent's token by a stop_callback, then stopped.
void BM_StopSourceCallback(benchmark::State& state) {
  std::stop_source parent;
  for (auto _ : state) {
    std::stop_source child;
    std::stop_callback link(parent.get_token(), [&child] { child.request_stop(); });
    child.request_stop();
    benchmark::DoNotOptimize(child);
  }
}
BENCHMARK(BM_StopSourceCallback);

// --- Cancel a tree of N descendants (fan-out 8), measured per cancel. ---

void BM_CancelPropagation(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    auto [root, cancel_root] = tether::WithCancel(tether::Background());
    std::vector<tether::ContextAndCancel> nodes;
    nodes.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const tether::Context& parent = i < 8 ? root : nodes[i / 8 - 1].ctx;
      nodes.push_back(tether::WithCancel(parent));
    }
    state.ResumeTiming();
    cancel_root();
    state.PauseTiming();
    if (!nodes.back().ctx.Done().Fired()) state.SkipWithError("leaf not cancelled");
    nodes.clear();
    state.ResumeTiming();
  }
  state.counters["descendants"] = static_cast<double>(n);
}
BENCHMARK(BM_CancelPropagation)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

// --- Start and join 1,000 trivial tasks. ---

constexpr int kTasks = 1000;

void BM_TaskGroupGoWait(benchmark::State& state) {
  for (auto _ : state) {
    auto [group, gctx] = tether::TaskGroup::WithContext(tether::Background());
    for (int i = 0; i < kTasks; ++i) group.Go([] {});
    benchmark::DoNotOptimize(group.Wait());
  }
}
BENCHMARK(BM_TaskGroupGoWait)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RawThreadsCreateJoin(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<std::thread> threads;
    threads.reserve(kTasks);
    for (int i = 0; i < kTasks; ++i) threads.emplace_back([] {});
    for (auto& t : threads) t.join();
  }
}
BENCHMARK(BM_RawThreadsCreateJoin)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- One producer, one consumer, 100k ints through a 128-slot buffer. ---

constexpr int kItems = 100000;
constexpr std::size_t kCapacity = 128;

void BM_ChannelSendRecv(benchmark::State& state) {
  for (auto _ : state) {
    tether::Channel<int> ch(kCapacity);
    std::thread producer([&] {
      for (int i = 0; i < kItems; ++i) (void)ch.Send(tether::Background(), i);
      ch.Close();
    });
    long sum = 0;
    while (auto v = ch.Recv(tether::Background())) sum += *v;
    producer.join();
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * kItems);
}
BENCHMARK(BM_ChannelSendRecv)->Unit(benchmark::kMillisecond)->UseRealTime();

// Two producers, 50k ints each through two 128-slot channels; one consumer
// selects over both until both are closed (Go's twin: bench/go/anchors.go).
void BM_SelectTwoChannels(benchmark::State& state) {
  for (auto _ : state) {
    tether::Channel<int> a(kCapacity), b(kCapacity);
    auto produce = [](tether::Channel<int> ch) {
      for (int i = 0; i < kItems / 2; ++i) (void)ch.Send(tether::Background(), i);
      ch.Close();
    };
    std::thread pa(produce, a), pb(produce, b);
    long sum = 0;
    bool a_open = true, b_open = true;
    while (a_open || b_open) {
      tether::Select sel;
      if (a_open)
        sel.OnRecv(a, [&](std::optional<int> v) { v ? void(sum += *v) : void(a_open = false); });
      if (b_open)
        sel.OnRecv(b, [&](std::optional<int> v) { v ? void(sum += *v) : void(b_open = false); });
      sel.Wait();
    }
    pa.join();
    pb.join();
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * kItems);
}
BENCHMARK(BM_SelectTwoChannels)->Unit(benchmark::kMillisecond)->UseRealTime();

// The textbook bounded queue: one mutex, two condition variables.
class MutexCvQueue {
 public:
  void Push(int v) {
    std::unique_lock<std::mutex> lock(mu_);
    not_full_.wait(lock, [&] { return items_.size() < kCapacity; });
    items_.push_back(v);
    lock.unlock();
    not_empty_.notify_one();
  }
  void Close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    not_empty_.notify_all();
  }
  bool Pop(int* out) {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return false;
    *out = items_.front();
    items_.pop_front();
    lock.unlock();
    not_full_.notify_one();
    return true;
  }

 private:
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<int> items_;
  bool closed_ = false;
};

void BM_MutexCvQueue(benchmark::State& state) {
  for (auto _ : state) {
    MutexCvQueue q;
    std::thread producer([&] {
      for (int i = 0; i < kItems; ++i) q.Push(i);
      q.Close();
    });
    long sum = 0;
    int v;
    while (q.Pop(&v)) sum += v;
    producer.join();
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * kItems);
}
BENCHMARK(BM_MutexCvQueue)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
