// SpawnSites: the table of interned (task name, spawn site) pairs.
//
// A spawn site spawns the same name over and over: the trace records the
// pair once, in this table, and each spawn after that is one ring slot
// carrying the pair's id (FileSink::PutSpawn). Interning an already-seen
// pair is the recording thread's hot path: one compare on the site's
// std::source_location (a pointer to per-site static data), one length
// compare and an inline compare of the name, in the calling thread's own
// cache; no lock, no atomic, no allocation. The first spawn of a pair on a
// thread takes the table's lock once.
//
// Ids are dense from 0, stable for the table's life, and the same for the
// same (name, file, line, column, function) whatever thread asks, even when
// one inline function's site has several std::source_location objects (one
// per translation unit). The table is append-only and capped: a site whose
// name changes with every spawn must not grow it without bound; past the
// cap (or for a long name) Intern returns kNone and the caller records the
// name inline.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <source_location>
#include <string>
#include <string_view>
#include <tuple>

namespace tether::trace::detail {

class SpawnSites {
 public:
  struct Site {
    std::string name;
    std::source_location loc;
    // The pair as a spawn record's last fields (AppendSpawnTail), formatted
    // once here rather than escaped again at every spawn the flusher writes.
    std::string json_tail;
  };
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  static constexpr std::size_t kMaxSites = 4096;
  static constexpr std::size_t kMaxName = 256;

  SpawnSites();
  SpawnSites(const SpawnSites&) = delete;
  SpawnSites& operator=(const SpawnSites&) = delete;

  // The pair's id, kNone when it cannot be interned (any thread).
  std::uint32_t Intern(std::string_view name, const std::source_location& loc) {
    std::uint32_t id;
    if (__builtin_expect(FindCached(name, loc, &id), 1)) return id;
    return InternSlow(name, loc, Key(loc));
  }
  // The hot half of Intern: true, with the id, when the calling thread has
  // interned the pair before (and its cache entry still holds it).
  __attribute__((always_inline)) bool FindCached(std::string_view name,
                                                 const std::source_location& loc,
                                                 std::uint32_t* id) const {
    const std::uintptr_t key = Key(loc);
    const CacheEntry& hit = t_cache[Index(key)];
    *id = hit.id;
    return hit.key == key && hit.name_len == name.size() &&
           SameBytes(hit.name, name.data(), name.size());
  }

  // The pair behind an id Intern returned (any thread). The reference stays
  // valid for the table's life.
  const Site& Get(std::uint32_t id) const;
  std::size_t Size() const;

 private:
  // A thread's last pair per slot, direct-mapped by site. key 0: empty.
  // name points into the table's copy, which never moves.
  struct CacheEntry {
    std::uintptr_t key;
    const char* name;
    std::uint32_t name_len;
    std::uint32_t id;
  };
  static constexpr std::size_t kCacheSize = 64;
  // Trivially constructible: readable during thread and process exit.
  static inline thread_local CacheEntry t_cache[kCacheSize] = {};

  // The site's std::source_location is one pointer to static data; the key
  // is that pointer with this table's salt in the bits a user-space address
  // never sets (bit 0 of an 8-aligned pointer, the top 16 bits), so it is
  // never 0 and entries another table left in a thread's cache never match.
  std::uintptr_t Key(const std::source_location& loc) const {
    return std::bit_cast<std::uintptr_t>(loc) ^ salt_;
  }
  static std::size_t Index(std::uintptr_t key) {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 58) & (kCacheSize - 1);
  }
  // Equal bytes; short names (the usual case) without a call.
  static bool SameBytes(const char* a, const char* b, std::size_t n) {
    if (n >= 8) {
      if (n > 16) return std::memcmp(a, b, n) == 0;
      return (Load<std::uint64_t>(a) ^ Load<std::uint64_t>(b)) == 0 &&
             (Load<std::uint64_t>(a + n - 8) ^ Load<std::uint64_t>(b + n - 8)) == 0;
    }
    if (n >= 4) {
      return (Load<std::uint32_t>(a) ^ Load<std::uint32_t>(b)) == 0 &&
             (Load<std::uint32_t>(a + n - 4) ^ Load<std::uint32_t>(b + n - 4)) == 0;
    }
    if (n == 0) return true;
    return a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1];
  }
  template <class T>
  static T Load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  // Finds or adds the pair under the lock, fills this thread's cache entry.
  std::uint32_t InternSlow(std::string_view name, const std::source_location& loc,
                           std::uintptr_t key);

  const std::uintptr_t salt_;  // unique per table (see Key)
  mutable std::mutex mu_;
  std::deque<Site> sites_;  // guarded by mu_; elements never move
  // By content (file, line, column, function, name): one site can have
  // several std::source_location objects. Guarded by mu_; the keys view
  // static data and sites_.
  std::map<std::tuple<std::string_view, std::uint_least32_t, std::uint_least32_t, std::string_view,
                      std::string_view>,
           std::uint32_t>
      ids_;
};

}  // namespace tether::trace::detail
