// LiveTable: the tasks running right now, by scope, for the in-process test
// API (verify.hpp). Sharded by task id so concurrent spawns and ends from
// many threads rarely meet on one lock; a check waits on a condition
// variable that task ends signal, instead of polling.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <source_location>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tether/trace/verify.hpp"

namespace tether::trace::detail {

class LiveTable {
 public:
  // parent: the task whose thread spawned this one; a task with neither a
  // scope nor detached_from is charged to its live parent's scope.
  void Spawned(std::uint64_t task, std::uint64_t scope, std::uint64_t detached_from,
               std::uint64_t parent, std::string_view name, const std::source_location& loc);
  void Started(std::uint64_t task);
  void Ended(std::uint64_t task);
  // parent: the scope it was opened inside (the opening thread's current
  // scope), 0 for none: its tasks are the parent's too.
  void ScopeBegan(std::uint64_t scope, std::uint64_t parent, std::string_view name);

  // Tasks charged to scope or to a scope nested in it (0: all) still
  // running at deadline, or none as soon as none is left.
  std::vector<LeftoverTask> WaitForNone(std::uint64_t scope,
                                        std::chrono::steady_clock::time_point deadline);

 private:
  struct Entry {
    std::uint64_t scope = 0;  // the scope it is charged to
    bool detached = false;
    bool started = false;
    std::string name;
    std::source_location loc;
  };
  struct Shard {
    std::mutex mu;
    std::unordered_map<std::uint64_t, Entry> tasks;  // guarded by mu
  };
  static constexpr std::size_t kShards = 32;
  Shard& ShardOf(std::uint64_t task) { return shards_[task % kShards]; }
  std::vector<LeftoverTask> Running(std::uint64_t scope);

  Shard shards_[kShards];

  struct ScopeInfo {
    std::string name;
    std::uint64_t parent = 0;
  };
  // scope and the scopes nested in it, at any depth.
  std::unordered_set<std::uint64_t> Within(std::uint64_t scope);

  std::mutex scopes_mu_;
  std::unordered_map<std::uint64_t, ScopeInfo> scopes_;  // guarded by scopes_mu_

  // Task ends wake checks. waiters_ and the shard erase are seq_cst so an
  // end either is seen by the check's scan or sees the waiter and notifies.
  std::atomic<int> waiters_{0};
  std::mutex ended_mu_;
  std::condition_variable ended_cv_;
  std::uint64_t ended_generation_ = 0;  // guarded by ended_mu_
};

}  // namespace tether::trace::detail
