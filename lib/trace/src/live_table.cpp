#include "live_table.hpp"

#include <algorithm>

namespace tether::trace::detail {

void LiveTable::Spawned(std::uint64_t task, std::uint64_t scope, std::uint64_t detached_from,
                        std::uint64_t parent, std::string_view name,
                        const std::source_location& loc) {
  Entry e;
  e.scope = scope != 0 ? scope : detached_from;
  e.detached = scope == 0 && detached_from != 0;
  if (e.scope == 0 && parent != 0) {
    Shard& ps = ShardOf(parent);
    std::lock_guard<std::mutex> lock(ps.mu);
    auto it = ps.tasks.find(parent);
    if (it != ps.tasks.end() && it->second.scope != 0) {
      e.scope = it->second.scope;
      e.detached = true;
    }
  }
  e.name = std::string(name);
  e.loc = loc;
  Shard& s = ShardOf(task);
  std::lock_guard<std::mutex> lock(s.mu);
  s.tasks[task] = std::move(e);
}

void LiveTable::Started(std::uint64_t task) {
  Shard& s = ShardOf(task);
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.tasks.find(task);
  if (it != s.tasks.end()) it->second.started = true;
}

void LiveTable::Ended(std::uint64_t task) {
  {
    Shard& s = ShardOf(task);
    std::lock_guard<std::mutex> lock(s.mu);
    s.tasks.erase(task);
  }
  if (waiters_.load(std::memory_order_seq_cst) > 0) {
    {
      std::lock_guard<std::mutex> lock(ended_mu_);
      ++ended_generation_;
    }
    ended_cv_.notify_all();
  }
}

void LiveTable::ScopeBegan(std::uint64_t scope, std::uint64_t parent, std::string_view name) {
  std::lock_guard<std::mutex> lock(scopes_mu_);
  scopes_[scope] = ScopeInfo{std::string(name), parent == scope ? 0 : parent};
}

std::unordered_set<std::uint64_t> LiveTable::Within(std::uint64_t scope) {
  std::unordered_set<std::uint64_t> within{scope};
  std::lock_guard<std::mutex> lock(scopes_mu_);
  for (const auto& [id, info] : scopes_) {
    // Up the chain of parents; ids only grow, so a chain cannot loop, but a
    // bound keeps a corrupted one from hanging a test.
    std::uint64_t at = info.parent;
    for (int depth = 0; at != 0 && depth < 256; ++depth) {
      if (at == scope) {
        within.insert(id);
        break;
      }
      auto up = scopes_.find(at);
      at = up == scopes_.end() ? 0 : up->second.parent;
    }
  }
  return within;
}

std::vector<LeftoverTask> LiveTable::Running(std::uint64_t scope) {
  std::vector<LeftoverTask> out;
  const std::unordered_set<std::uint64_t> within =
      scope != 0 ? Within(scope) : std::unordered_set<std::uint64_t>{};
  for (Shard& s : shards_) {
    std::lock_guard<std::mutex> lock(s.mu);
    for (const auto& [id, e] : s.tasks) {
      if (scope != 0 && within.count(e.scope) == 0) continue;
      LeftoverTask t;
      t.id = id;
      t.name = e.name;
      t.site.file = e.loc.file_name();
      t.site.line = static_cast<int>(e.loc.line());
      t.site.function = e.loc.function_name();
      t.scope = e.scope;
      t.detached = e.detached;
      t.started = e.started;
      out.push_back(std::move(t));
    }
  }
  {
    std::lock_guard<std::mutex> lock(scopes_mu_);
    for (LeftoverTask& t : out) {
      auto it = scopes_.find(t.scope);
      if (it != scopes_.end()) t.scope_name = it->second.name;
    }
  }
  std::sort(out.begin(), out.end(),
            [](const LeftoverTask& a, const LeftoverTask& b) { return a.id < b.id; });
  return out;
}

std::vector<LeftoverTask> LiveTable::WaitForNone(std::uint64_t scope,
                                                 std::chrono::steady_clock::time_point deadline) {
  waiters_.fetch_add(1, std::memory_order_seq_cst);
  std::vector<LeftoverTask> left;
  for (;;) {
    std::uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(ended_mu_);
      generation = ended_generation_;
    }
    left = Running(scope);
    if (left.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::unique_lock<std::mutex> lock(ended_mu_);
    ended_cv_.wait_until(lock, deadline, [&] { return ended_generation_ != generation; });
  }
  waiters_.fetch_sub(1, std::memory_order_seq_cst);
  return left;
}

}  // namespace tether::trace::detail
