// The spawn-site table (lib/trace_writer/include/tether/trace_writer/spawn_sites.hpp): one id per
// (name, site) pair, whatever thread interns it and whether the thread's
// cache holds it.
#include "tether/trace_writer/spawn_sites.hpp"

#include <gtest/gtest.h>

#include <set>
#include <source_location>
#include <string>
#include <thread>
#include <vector>

namespace tether::trace::detail {
namespace {

std::source_location SiteA() { return std::source_location::current(); }
std::source_location SiteB() { return std::source_location::current(); }

TEST(SpawnSites, SameSiteAndNameIsOneId) {
  SpawnSites sites;
  const std::source_location a = SiteA();
  const std::uint32_t first = sites.Intern("stream step", a);
  ASSERT_NE(first, SpawnSites::kNone);
  EXPECT_EQ(sites.Intern("stream step", a), first);  // the thread's cache
  // A name with the same bytes in another buffer (the hook gets each task's
  // own std::string).
  std::string copy = "stream step";
  EXPECT_EQ(sites.Intern(copy, a), first);
  EXPECT_EQ(sites.Get(first).name, "stream step");
  EXPECT_EQ(sites.Get(first).loc.line(), a.line());
  EXPECT_EQ(sites.Size(), 1u);
}

TEST(SpawnSites, DifferentSitesOrNamesAreDifferentIds) {
  SpawnSites sites;
  const std::source_location a = SiteA();
  const std::source_location b = SiteB();
  std::set<std::uint32_t> ids;
  // Names of every length the inline compare handles differently, and one
  // byte changed at the start, the middle and the end of each.
  for (std::size_t len : {0u, 1u, 2u, 3u, 4u, 7u, 8u, 9u, 16u, 17u, 40u}) {
    std::string name(len, 'x');
    ids.insert(sites.Intern(name, a));
    ids.insert(sites.Intern(name, b));
    for (std::size_t at : {std::size_t{0}, len / 2, len - 1}) {
      if (len == 0) break;
      std::string other = name;
      other[at] = 'y';
      ids.insert(sites.Intern(other, a));
    }
  }
  EXPECT_EQ(ids.count(SpawnSites::kNone), 0u);
  EXPECT_EQ(ids.size(), sites.Size());
  // Asked again (now from the cache, or after the cache entry was
  // replaced), every pair gives the id it got first.
  for (std::size_t len : {0u, 3u, 9u, 40u}) {
    std::string name(len, 'x');
    const std::uint32_t id = sites.Intern(name, a);
    EXPECT_EQ(sites.Get(id).name, name);
    EXPECT_EQ(sites.Get(id).loc.line(), a.line());
    EXPECT_EQ(sites.Intern(name, a), id);
    EXPECT_NE(sites.Intern(name, b), id);
  }
}

TEST(SpawnSites, TwoTablesDoNotShareAThreadsCache) {
  SpawnSites one;
  SpawnSites two;
  const std::source_location a = SiteA();
  one.Intern("x", a);
  one.Intern("y", a);
  const std::uint32_t in_one = one.Intern("z", a);
  const std::uint32_t in_two = two.Intern("z", a);
  EXPECT_EQ(in_one, 2u);
  EXPECT_EQ(in_two, 0u);
  EXPECT_EQ(two.Get(in_two).name, "z");
}

TEST(SpawnSites, LongNamesAndAFullTableAreNotInterned) {
  SpawnSites sites;
  const std::source_location a = SiteA();
  EXPECT_EQ(sites.Intern(std::string(SpawnSites::kMaxName + 1, 'n'), a), SpawnSites::kNone);
  for (std::size_t i = 0; i < SpawnSites::kMaxSites; ++i) {
    ASSERT_NE(sites.Intern("task " + std::to_string(i), a), SpawnSites::kNone);
  }
  EXPECT_EQ(sites.Intern("one too many", a), SpawnSites::kNone);
  EXPECT_EQ(sites.Intern("task 7", a), 7u);  // the interned ones still are
}

TEST(SpawnSites, ThreadsInterningTheSamePairsAgreeOnTheIds) {
  SpawnSites sites;
  const std::source_location a = SiteA();
  const std::source_location b = SiteB();
  constexpr int kThreads = 8;
  constexpr int kNames = 50;
  std::vector<std::vector<std::uint32_t>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (int i = 0; i < kNames; ++i) {
          // Each thread walks the names in its own order.
          const int n = (i * (t + 1) + round) % kNames;
          const std::string name = "worker " + std::to_string(n);
          const std::uint32_t id = sites.Intern(name, n % 2 ? a : b);
          if (round == 0) seen[t].push_back(id);
          if (sites.Get(id).name != name) seen[t].push_back(SpawnSites::kNone);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(sites.Size(), static_cast<std::size_t>(kNames));
  // Every thread got the same id for the same name.
  std::vector<std::uint32_t> by_name(kNames, SpawnSites::kNone);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(seen[t].size(), static_cast<std::size_t>(kNames)) << "a wrong name for an id";
    for (int i = 0; i < kNames; ++i) {
      const int n = (i * (t + 1)) % kNames;
      if (by_name[n] == SpawnSites::kNone) by_name[n] = seen[t][i];
      EXPECT_EQ(seen[t][i], by_name[n]) << "thread " << t << ", name " << n;
    }
  }
}

}  // namespace
}  // namespace tether::trace::detail
