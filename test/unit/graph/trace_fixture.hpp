// A hand-filled trace shared by the graph unit tests: a build scope with a
// waited group, a zombie that stays tied to the scope, a zombie spawned on a
// fresh Background() (detached) and a leaked task outside any scope.
#pragma once

#include <vector>

#include "tether/trace/model.hpp"

namespace tether::graph::testing {

inline trace::Site At(const char* file, int line) { return {file, line, "Fn"}; }

inline trace::Trace BuildTrace() {
  trace::Trace t;
  t.version = 1;
  t.program = "fixture";
  t.pid = 42;
  t.start_ns = 1000;
  t.end_ns = 20000;
  t.contexts[1] = {1, 0, "cancel", 0, At("op.cpp", 10), 1000, std::nullopt, ""};
  t.contexts[2] = {2, 1, "scope", 3, At("exec.cpp", 20), 2000, std::nullopt, ""};
  t.contexts[4] = {4, 2, "group", 3, At("exec.cpp", 22), 2100, 5100, "canceled"};
  t.contexts[7] = {7, 0, "background", 0, At("stream.cpp", 40), 2400, std::nullopt, ""};
  t.scopes[3] = {3, 2, "build 42", At("exec.cpp", 20), 2000, 6000};
  trace::GroupRecord g;
  g.id = 5;
  g.ctx = 4;
  g.site = At("exec.cpp", 22);
  g.created_ns = 2100;
  g.wait_begin_ns = 4000;
  g.wait_end_ns = 5100;
  t.groups[5] = g;
  auto task = [&](std::uint64_t id, std::uint64_t ctx, std::uint64_t group, std::uint64_t scope,
                  std::uint64_t detached_from, const char* name, std::int64_t spawn,
                  std::optional<std::int64_t> end, const char* result) {
    trace::TaskRecord r;
    r.id = id;
    r.ctx = ctx;
    r.group = group;
    r.scope = scope;
    r.detached_from = detached_from;
    r.name = name;
    r.site = At("exec.cpp", static_cast<int>(id));
    r.spawn_ns = spawn;
    r.start_ns = spawn + 100;
    r.end_ns = end;
    r.result = result;
    t.tasks[id] = r;
  };
  task(6, 4, 5, 3, 0, "exec-steps", 2200, 5000, "canceled");
  task(8, 7, 0, 0, 3, "stream-logs", 2500, std::nullopt, "");
  task(9, 2, 0, 3, 0, "upload", 2700, 9000, "ok");
  task(10, 1, 0, 0, 0, "heartbeat", 9500, std::nullopt, "");
  return t;
}

// What tether::trace::Analyze reports for BuildTrace(), written out by hand
// so these tests exercise the graph alone.
inline std::vector<trace::Finding> BuildFindings() {
  std::vector<trace::Finding> f(3);
  f[0].kind = trace::FindingKind::kZombie;
  f[0].task = 9;
  f[0].scope = 3;
  f[0].outlived_ns = 3000;
  f[0].ended = true;
  f[0].context_chain = {2, 1};
  f[1].kind = trace::FindingKind::kZombie;
  f[1].task = 8;
  f[1].scope = 3;
  f[1].detached = true;
  f[1].outlived_ns = 14000;
  f[1].context_chain = {7};
  f[1].cut_at = 7;
  f[2].kind = trace::FindingKind::kLeak;
  f[2].task = 10;
  f[2].context_chain = {1};
  return f;
}

}  // namespace tether::graph::testing
