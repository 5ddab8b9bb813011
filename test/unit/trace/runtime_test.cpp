// The trace writer, through real programs: trace-probe runs with
// TETHER_TRACE set, as any program built on tether_runtime would.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "tether/trace/model.hpp"
#include "trace_files.hpp"

namespace tether::trace {
namespace {

using testing::TempFile;

struct ProbeRun {
  int status = -1;  // exit status, or -signal
  std::string out;
  std::string err;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs trace-probe ARGS with TETHER_TRACE=trace ("" leaves it unset).
ProbeRun Probe(const std::string& args, const std::string& trace, const TempFile& scratch) {
  std::string out = scratch.dir() + "/stdout", err = scratch.dir() + "/stderr";
  std::string cmd = (trace.empty() ? std::string("env -u TETHER_TRACE ") : "TETHER_TRACE='" + trace + "' ") +
                    TRACE_PROBE + " " + args + " >" + out + " 2>" + err;
  int raw = std::system(cmd.c_str());
  ProbeRun r;
  if (WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
  r.out = Slurp(out);
  r.err = Slurp(err);
  return r;
}

TEST(TraceRuntime, HundredThousandTasksFromSixteenThreadsAreAllMatched) {
  TempFile f("stress.jsonl");
  ProbeRun r = Probe("stress 100000 16", f.path(), f);
  ASSERT_EQ(r.status, 0) << r.err;
  Trace t;
  Error err = LoadTrace(f.path(), &t);
  ASSERT_TRUE(err.ok()) << err.ToString();
  EXPECT_FALSE(t.truncated);
  EXPECT_EQ(t.exit_status, 0);
  EXPECT_EQ(t.scopes.size(), 16u);
  std::size_t spawned = 0, unmatched = 0;
  for (const auto& [id, task] : t.tasks) {
    if (task.site.file.empty()) continue;  // only an end/start record: its spawn was lost
    ++spawned;
    if (!task.start_ns || !task.end_ns) ++unmatched;
  }
  // Every spawn is matched by a start and an end, or the loss is reported.
  EXPECT_EQ(spawned + t.lost_events >= 100000u, true) << spawned << " spawns, " << t.lost_events << " lost";
  EXPECT_LE(unmatched, t.lost_events) << r.out;
  EXPECT_TRUE(Analyze(t, {}).empty());
  EXPECT_NE(r.out.find("lost=0"), std::string::npos) << r.out;
}

TEST(TraceRuntime, UnwritablePathWarnsOnceAndRunsUntraced) {
  TempFile f("unused");
  const std::string bad = f.dir() + "/no/such/dir/trace.jsonl";
  ProbeRun r = Probe("chatty", bad, f);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "chatty: ran\n");
  EXPECT_EQ(r.err, "tether: TETHER_TRACE: cannot write trace file '" + bad +
                       "': No such file or directory; running untraced\n");
}

TEST(TraceRuntime, WithoutTetherTraceNothingIsWritten) {
  TempFile f("unused");
  ProbeRun r = Probe("chatty", "", f);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, "");
}

TEST(TraceRuntime, CrashLeavesALoadableTruncatedTrace) {
  TempFile f("crash.jsonl");
  ProbeRun r = Probe("crash", f.path(), f);
  EXPECT_NE(r.status, 0);
  Trace t;
  Error err = LoadTrace(f.path(), &t);
  ASSERT_TRUE(err.ok()) << err.ToString();
  EXPECT_TRUE(t.truncated);
  EXPECT_FALSE(t.exit_status.has_value());
  std::vector<Finding> findings = Analyze(t, {});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kLeak);
  EXPECT_EQ(t.tasks.at(findings[0].task).name, "doomed");
}

TEST(TraceRuntime, NamesAreEscapedAndLongNamesCut) {
  TempFile f("names.jsonl");
  ProbeRun r = Probe("names", f.path(), f);
  ASSERT_EQ(r.status, 0) << r.err;
  Trace t;
  Error err = LoadTrace(f.path(), &t);
  ASSERT_TRUE(err.ok()) << err.ToString();
  ASSERT_EQ(t.scopes.size(), 1u);
  EXPECT_EQ(t.scopes.begin()->second.name, "scope \"quoted\"\nnext line");
  std::vector<std::string> names;
  for (const auto& [id, task] : t.tasks) names.push_back(task.name);
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0], "tab\there \"q\" back\\slash");
  EXPECT_EQ(names[1], "bad \xEF\xBF\xBD utf8 \xC3\xA9");  // the bad byte became U+FFFD
  EXPECT_EQ(names[2].size(), 16u * 64u - 8u);              // cut to the record's payload
  EXPECT_EQ(names[2].substr(names[2].size() - 3), "...");
}

TEST(TraceRuntime, ChildProcessesDoNotInheritTetherTrace) {
  TempFile f("env.jsonl");
  ProbeRun r = Probe("env", f.path(), f);
  EXPECT_EQ(r.out, "TETHER_TRACE=(unset)\n");
}

}  // namespace
}  // namespace tether::trace
