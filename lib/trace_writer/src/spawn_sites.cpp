#include "tether/trace_writer/spawn_sites.hpp"

#include <atomic>

#include "tether/trace_writer/json_text.hpp"

namespace tether::trace::detail {
namespace {

// Tables made so far; each gets its own salt. Only the low 16 bits reach the
// key: a process makes one table (tests a few), never 65536.
std::atomic<std::uintptr_t> g_tables{0};

}  // namespace

SpawnSites::SpawnSites()
    : salt_(((g_tables.fetch_add(1, std::memory_order_relaxed) + 1) & 0xFFFF) << 48 | 1) {}

std::uint32_t SpawnSites::InternSlow(std::string_view name, const std::source_location& loc,
                                     std::uintptr_t key) {
  if (name.size() > kMaxName) return kNone;
  const Site* site = nullptr;
  std::uint32_t id = kNone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto content = std::make_tuple(std::string_view(loc.file_name()), loc.line(), loc.column(),
                                   std::string_view(loc.function_name()), name);
    if (auto it = ids_.find(content); it != ids_.end()) {
      id = it->second;
    } else {
      if (sites_.size() >= kMaxSites) return kNone;
      id = static_cast<std::uint32_t>(sites_.size());
      std::string tail;
      AppendSpawnTail(tail, name, loc);
      sites_.push_back(Site{std::string(name), loc, std::move(tail)});
      std::get<4>(content) = sites_.back().name;
      ids_.emplace(content, id);
    }
    site = &sites_[id];
  }
  t_cache[Index(key)] =
      CacheEntry{key, site->name.data(), static_cast<std::uint32_t>(site->name.size()), id};
  return id;
}

const SpawnSites::Site& SpawnSites::Get(std::uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return sites_[id];
}

std::size_t SpawnSites::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sites_.size();
}

}  // namespace tether::trace::detail
