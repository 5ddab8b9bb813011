// REQUIRES: checker
// The second shipped model: std::stop_token is the context, a default-
// constructed token is a root, std::thread must be joined on every path.
// RUN: not %tether check --quiet --model=builtin:std-stop-token %s -- -std=c++20 2>&1 \
// RUN:   | FileCheck %s -implicit-check-not="warning:"
#include <functional>
#include <stop_token>
#include <thread>
#include <vector>

void Poll(std::stop_token st);

void Worker(std::stop_token st) {
  Poll(std::stop_token{});
  // CHECK: :[[@LINE-1]]:8: warning: root context 'std::stop_token{}' created in 'Worker', which can reach context 'st'; pass it on, or say why it must not stop with a tether:detached(<why>) comment [tether-detached-context]
}

void Unjoined(std::stop_token st, bool early) {
  std::thread t([st] { Poll(st); });
  // CHECK: :[[@LINE-1]]:15: warning: thread 't' is not joined on every path (a joinable std::thread destroyed at the end of its scope calls std::terminate); call t.join() on every path, or detach it with a tether:detached(<why>) reason [tether-unwaited-group]
  if (early) return;
  t.join();
}

void Joined(std::stop_token st) {
  std::thread t([st] { Poll(st); });
  t.join();
  std::jthread j([](std::stop_token s) { Poll(s); });  // its destructor requests stop and joins
  Poll(st);
}

// The std form of a detached context: a stop state of its own where a token
// is in reach, not linked to it.
void Work(std::stop_token st);
void Fanout(std::stop_token st) {
  std::stop_source inner;
  // CHECK: :[[@LINE-1]]:20: warning: stop source 'inner' in 'Fanout' has a stop state of its own, not linked to context 'st': a stop requested on 'st' never reaches it; link them with std::stop_callback (a callback that calls inner.request_stop()), or say why with a tether:detached(<why>) comment [tether-detached-context]
  Work(inner.get_token());
}
void Gather(std::stop_token st) {
  std::jthread fetch([](std::stop_token own) { Work(own); });
  // CHECK: :[[@LINE-1]]:16: warning: thread 'fetch' in 'Gather' has a stop state of its own, not linked to context 'st'
  fetch.join();  // waits for a thread that a stop on 'st' never reaches
}
// Linked: a stop on 'st' is passed on.
void Relay(std::stop_token st) {
  std::stop_source inner;
  std::stop_callback forward(st, [&inner] { inner.request_stop(); });
  std::jthread fetch([](std::stop_token own) { Work(own); });
  std::stop_callback forward_too(st, [&] { fetch.request_stop(); });
  Work(inner.get_token());
  fetch.join();
}
// No token in reach, an empty source, a justified one.
void Top() {
  std::stop_source everything;
  Work(everything.get_token());
}
void Empty(std::stop_token st) {
  std::stop_source none(std::nostopstate);
  Work(st);
}
void Own(std::stop_token st) {
  // tether:detached(the flush must finish even when the caller stops)
  std::stop_source flush;
  Work(flush.get_token());
}

// A vector of threads: each must be joined on every path (an early return or
// a throw before the join loop destroys joinable threads: std::terminate).
bool Ready(int shard);
void Shards(std::stop_token st, int n) {
  std::vector<std::thread> shards;
  for (int i = 0; i < n; ++i) {
    shards.emplace_back([st, i] { Poll(st); });
    // CHECK: :[[@LINE-1]]:5: warning: a thread put into 'shards' here is not joined on every path (a joinable thread destroyed with it calls std::terminate); join each one (for (auto& t : shards) t.join();) before 'shards' goes out of scope [tether-unwaited-group]
    if (!Ready(i)) return;
  }
  for (auto& s : shards) s.join();
}
void ShardsJoined(std::stop_token st, int n) {
  std::vector<std::thread> shards;
  shards.reserve(n);
  for (int i = 0; i < n; ++i) shards.push_back(std::thread([st] { Poll(st); }));
  for (std::thread& s : shards)
    if (s.joinable()) s.join();
}
std::vector<std::thread> Handed(std::stop_token st) {
  std::vector<std::thread> shards;
  shards.emplace_back([st] { Poll(st); });
  return shards;  // the caller owns them now
}
