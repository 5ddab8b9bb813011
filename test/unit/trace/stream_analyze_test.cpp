// LoadAndAnalyze (one pass, tasks dropped as soon as they are decided) against
// LoadTrace + Analyze (the whole trace in memory) on every trace fixture: the
// .jsonl files under test/ and the traces trace-probe writes in each of its
// modes, as written and with their lines reordered the ways the writer can
// reorder them. The findings and both reports must be the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "tether/trace/model.hpp"
#include "tether/trace/report.hpp"
#include "trace_files.hpp"

namespace tether::trace {
namespace {

using testing::TempFile;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string Reports(const Trace& trace, const std::vector<Finding>& findings, std::int64_t grace) {
  ReportInput in;
  in.trace = &trace;
  in.findings = &findings;
  in.grace_ns = grace;
  in.program.command = trace.program;
  in.program.status = trace.exit_status;
  std::ostringstream out;
  WriteTextReport(out, in);
  WriteJsonReport(out, in);
  return out.str();
}

std::string Describe(const std::vector<Finding>& findings) {
  std::ostringstream out;
  for (const Finding& f : findings) {
    out << static_cast<int>(f.kind) << " task=" << f.task << " group=" << f.group
        << " scope=" << f.scope << " detached=" << f.detached << " outlived=" << f.outlived_ns
        << " ended=" << f.ended << " cut=" << f.cut_at.value_or(0) << " chain=";
    for (std::uint64_t c : f.context_chain) out << c << ",";
    out << "\n";
  }
  return out.str();
}

// Compares both analyses of the file at path; returns how many findings.
// A child process's task id (lib/trace_writer's process_ids.hpp).
std::uint64_t ProcessTaskId(std::int64_t pid) {
  return (std::uint64_t{1} << 48) + (static_cast<std::uint64_t>(pid) << 24);
}

std::size_t ExpectSameAnalysis(const std::string& path, std::int64_t grace) {
  AnalysisOptions options;
  options.grace_ns = grace;
  Trace whole;
  Error whole_err = LoadTrace(path, &whole);
  Trace streamed;
  std::vector<Finding> streamed_findings;
  Error stream_err = LoadAndAnalyze(path, options, &streamed, &streamed_findings);
  EXPECT_EQ(whole_err.ToString(), stream_err.ToString()) << path;
  if (!whole_err.ok()) return 0;
  std::vector<Finding> whole_findings = Analyze(whole, options);
  EXPECT_EQ(Describe(whole_findings), Describe(streamed_findings)) << path;
  EXPECT_EQ(Reports(whole, whole_findings, grace), Reports(streamed, streamed_findings, grace))
      << path;
  EXPECT_LE(streamed.tasks.size(), whole.tasks.size());
  return whole_findings.size();
}

// The writer's reorderings: each thread's ring is written out in order, but
// rings interleave in any order. Threads are not in the file; a task's start
// and end share a thread, so this keeps each task's start before its end and a
// task's spawns before its end, and otherwise shuffles the lines after the
// header.
std::string Reordered(const std::string& text, unsigned seed) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.size() < 3) return text;
  std::mt19937 rng(seed);
  std::shuffle(lines.begin() + 1, lines.end(), rng);
  // Restore, per task, start before end; and every spawn naming a parent
  // before that parent's end.
  auto field = [](const std::string& line, const std::string& key) -> std::string {
    std::size_t at = line.find("\"" + key + "\":");
    if (at == std::string::npos) return "";
    at += key.size() + 3;
    std::size_t end = line.find_first_of(",}", at);
    return line.substr(at, end - at);
  };
  auto rank = [&](const std::string& line) -> int {
    if (line.find("\"ev\":\"start\"") != std::string::npos) return 0;
    if (line.find("\"ev\":\"end\"") != std::string::npos) return 1;
    return -1;
  };
  // Each task's end goes after its start and after its children's spawns:
  // somewhere after the last line it must follow, at random. Linear in the
  // lines (a "stress" probe's trace has tens of thousands; a quadratic pass
  // took minutes under TSan).
  std::vector<std::string> ends, rest;
  for (auto& l : lines) (rank(l) == 1 ? ends : rest).push_back(l);
  std::unordered_map<std::string, std::size_t> must_follow;  // task -> last index in rest
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rank(rest[i]) == 0) must_follow[field(rest[i], "task")] = i;
    if (rest[i].find("\"ev\":\"spawn\"") != std::string::npos)
      must_follow[field(rest[i], "parent")] = i;
  }
  std::vector<std::vector<std::string>> before(rest.size() + 1);  // ends put before rest[i]
  for (const std::string& e : ends) {
    auto it = must_follow.find(field(e, "task"));
    const std::size_t lo = std::max<std::size_t>(it == must_follow.end() ? 1 : it->second + 1, 1);
    before[lo + rng() % (rest.size() - lo + 1)].push_back(e);
  }
  std::string out;
  for (std::size_t i = 0; i <= rest.size(); ++i) {
    for (const std::string& e : before[i]) out += e + "\n";
    if (i < rest.size()) out += rest[i] + "\n";
  }
  return out;
}

void ExpectSameWhenReordered(const std::string& path, std::int64_t grace) {
  std::string text = Slurp(path);
  for (unsigned seed = 1; seed <= 5; ++seed) {
    TempFile f("reordered.jsonl");
    f.Write(Reordered(text, seed));
    ExpectSameAnalysis(f.path(), grace);
  }
}

TEST(StreamAnalyze, SameAsAnalyzeOnEveryTraceFileUnderTest) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(TEST_SOURCE_DIR)) {
    const std::string p = e.path().string();
    if (e.is_regular_file() && p.size() > 6 && p.compare(p.size() - 6, 6, ".jsonl") == 0) {
      files.push_back(p);
    }
  }
  ASSERT_GE(files.size(), 10u);
  std::size_t findings = 0;
  for (const std::string& p : files) {
    for (std::int64_t grace : {0, 1000000}) findings += ExpectSameAnalysis(p, grace);
    ExpectSameWhenReordered(p, 0);
  }
  EXPECT_GT(findings, 0u);  // the files hold zombies and leaks, not only clean traces
}

// Tasks charged through their parents (a detached task's children and
// grandchildren), every task started and ended as the writer records them.
TEST(StreamAnalyze, SameAsAnalyzeForTasksChargedThroughTheirParents) {
  auto spawn = [](int task, int scope, int detached_from, int parent, int t) {
    return "{\"ev\":\"spawn\",\"task\":" + std::to_string(task) +
           ",\"ctx\":0,\"group\":0,\"scope\":" + std::to_string(scope) +
           ",\"detached_from\":" + std::to_string(detached_from) +
           ",\"parent\":" + std::to_string(parent) +
           ",\"name\":\"n\",\"file\":\"a.cpp\",\"line\":" + std::to_string(100 + task) +
           ",\"func\":\"f\",\"t\":" + std::to_string(t) + "}";
  };
  auto event = [](const char* ev, int task, int t) {
    return std::string("{\"ev\":\"") + ev + "\",\"task\":" + std::to_string(task) +
           (std::string(ev) == "end" ? ",\"result\":\"ok\"" : ",\"tid\":7") +
           ",\"t\":" + std::to_string(t) + "}";
  };
  TempFile f("parents.jsonl");
  f.Write(testing::Lines(
      {testing::Header(),
       R"({"ev":"ctx","id":2,"parent":0,"kind":"scope","scope":1,"file":"a.cpp","line":2,"func":"f","t":1001})",
       R"({"ev":"scope_begin","id":1,"ctx":2,"name":"s","file":"a.cpp","line":2,"func":"f","t":1010})",
       spawn(10, 0, 1, 0, 1100), event("start", 10, 1110), spawn(11, 0, 0, 10, 1200),
       spawn(13, 0, 0, 10, 1210), event("end", 10, 1300), event("start", 11, 1310),
       spawn(12, 0, 0, 11, 1400), event("end", 11, 1500), event("start", 13, 1320),
       event("end", 13, 1900), R"({"ev":"scope_end","id":1,"t":2000})",
       event("start", 12, 1410), event("end", 12, 2600), R"({"ev":"exit","status":0,"t":9000})"}));
  EXPECT_EQ(ExpectSameAnalysis(f.path(), 0), 1u);  // the grandchild 12 outlived scope 1
  ExpectSameWhenReordered(f.path(), 0);
}

// Plain threads that finished: one never joined (a finding at exit), one
// joined after its end, one whose join was read before its spawn (the
// joiner's ring drained first), one detached. Only the first is a finding,
// in both analyses and in every order the writer can produce.
TEST(StreamAnalyze, SameAsAnalyzeForFinishedThreads) {
  auto spawn = [](int task, int t) {
    return "{\"ev\":\"spawn\",\"task\":" + std::to_string(task) +
           ",\"ctx\":0,\"group\":0,\"scope\":0,\"detached_from\":0,\"parent\":0,"
           "\"name\":\"thread\",\"kind\":\"thread\","
           "\"file\":\"t.cpp\",\"line\":" +
           std::to_string(task) + ",\"func\":\"f\",\"t\":" + std::to_string(t) + "}";
  };
  auto event = [](const char* ev, int task, int t) {
    std::string e(ev);
    return "{\"ev\":\"" + e + "\",\"task\":" + std::to_string(task) +
           (e == "end" ? ",\"result\":\"ok\"" : e == "start" ? ",\"tid\":7" : "") +
           ",\"t\":" + std::to_string(t) + "}";
  };
  TempFile f("threads.jsonl");
  f.Write(testing::Lines({testing::Header(), event("join", 22, 1050), spawn(20, 1100),
                          event("start", 20, 1110), event("end", 20, 1120), spawn(21, 1200),
                          event("start", 21, 1210), event("end", 21, 1220),
                          event("join", 21, 1300), spawn(22, 1010), event("start", 22, 1020),
                          event("end", 22, 1030), spawn(23, 1400), event("detach", 23, 1410),
                          event("start", 23, 1420), event("end", 23, 1430),
                          R"({"ev":"exit","status":0,"t":9000})"}));
  EXPECT_EQ(ExpectSameAnalysis(f.path(), 0), 1u);
  ExpectSameWhenReordered(f.path(), 0);
  Trace trace;
  Error loaded = LoadTrace(f.path(), &trace);
  ASSERT_TRUE(loaded.ok()) << loaded.ToString();
  std::vector<Finding> findings = Analyze(trace, AnalysisOptions{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kUnjoinedThread);
  EXPECT_EQ(findings[0].task, 20u);

  // Killed before the exit record: a finished thread may have been about to
  // be joined, so it is no finding.
  TempFile cut("threads-cut.jsonl");
  cut.Write(testing::Lines({testing::Header(), spawn(20, 1100), event("start", 20, 1110),
                            event("end", 20, 1120)}));
  EXPECT_EQ(ExpectSameAnalysis(cut.path(), 0), 0u);
}

// The parts of the child processes the program started (tether trace
// appends them, each with its header's `ppid`): each child is a process of
// the trace, its exit ends it (not the trace), and its modules are its own.
TEST(StreamAnalyze, ReadsChildProcessParts) {
  Trace t;
  ASSERT_TRUE(LoadTrace(TEST_SOURCE_DIR "/trace/Inputs/child-parts.jsonl", &t).ok());
  EXPECT_EQ(t.pid, 100);
  EXPECT_EQ(t.program, "ci-worker run");
  ASSERT_EQ(t.processes.size(), 3u);
  const ProcessRecord& step = t.processes.at(200);
  EXPECT_EQ(step.parent_pid, 100);
  EXPECT_EQ(step.program, "step-one --leaky");
  EXPECT_EQ(step.end_ns, 1500);
  EXPECT_EQ(step.exit_status, 0);
  EXPECT_EQ(t.end_ns, 90000000);  // the program's exit, not a child's
  EXPECT_FALSE(t.truncated);
  // A process task ends at the earlier of its own exit and its reap.
  EXPECT_EQ(t.tasks.at(ProcessTaskId(200)).end_ns, 1500);
  EXPECT_EQ(ProcessOfTask(ProcessTaskId(200) + 1), 200);
  // Child 400's start was not recorded (a vfork of the program's): its own
  // end is no task.
  EXPECT_EQ(t.tasks.count(ProcessTaskId(400)), 0u);
  EXPECT_EQ(t.process_count, 2u);
  EXPECT_EQ(t.thread_count, 3u);
}

// The same fixture analysed: the leak of child 200's thread (it ran until
// its process exited, before the scope ended), the zombie of child 300's
// thread (its process exited after the scope), and child 300 itself.
TEST(StreamAnalyze, ChildProcessFindings) {
  const std::string path = TEST_SOURCE_DIR "/trace/Inputs/child-parts.jsonl";
  EXPECT_EQ(ExpectSameAnalysis(path, 0), 3u);
  Trace t;
  ASSERT_TRUE(LoadTrace(path, &t).ok());
  std::vector<Finding> findings = Analyze(t, AnalysisOptions{});
  ASSERT_EQ(findings.size(), 3u);
  auto of = [&](std::uint64_t task) {
    return *std::find_if(findings.begin(), findings.end(),
                         [&](const Finding& f) { return f.task == task; });
  };
  const Finding leak = of(ProcessTaskId(200) + 1);
  EXPECT_EQ(leak.kind, FindingKind::kLeak);
  EXPECT_EQ(leak.process, 200);
  const Finding zombie = of(ProcessTaskId(300) + 1);
  EXPECT_EQ(zombie.kind, FindingKind::kZombie);
  EXPECT_EQ(zombie.process, 300);
  EXPECT_EQ(zombie.outlived_ns, 20'000'000);
  EXPECT_FALSE(zombie.ended);
  const Finding step = of(ProcessTaskId(300));
  EXPECT_EQ(step.kind, FindingKind::kZombie);
  EXPECT_EQ(step.process, 0);  // the program started it
  EXPECT_TRUE(step.ended);
  // With a grace past child 300's exit, child 300 is no zombie, and its
  // thread is a leak of it (still running when it exited), not a zombie.
  EXPECT_EQ(ExpectSameAnalysis(path, 30'000'000), 2u);
  findings = Analyze(t, AnalysisOptions{30'000'000});
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(of(ProcessTaskId(300) + 1).kind, FindingKind::kLeak);
}

// What a shell does with the commands system() gives it (shell-parts.jsonl):
// child 400 was vforked by the shell (200) with no record of its start, and
// child 300 was left running in the background, its header written after the
// shell exited (ppid 1). Both are charged to the scope the shell ran in, and
// both ran in the shell.
TEST(StreamAnalyze, AShellsChildrenAreChargedThroughTheShell) {
  const std::string path = TEST_SOURCE_DIR "/trace/Inputs/shell-parts.jsonl";
  EXPECT_EQ(ExpectSameAnalysis(path, 0), 2u);
  Trace t;
  ASSERT_TRUE(LoadTrace(path, &t).ok());
  EXPECT_EQ(t.processes.at(300).parent_pid, 200);  // the shell recorded its start
  EXPECT_EQ(t.processes.at(400).parent_pid, 200);
  const TaskRecord& vforked = t.tasks.at(ProcessTaskId(400));
  EXPECT_EQ(vforked.kind, "process");
  EXPECT_EQ(vforked.parent_task, ProcessTaskId(200));
  EXPECT_EQ(vforked.end_ns, 1400);
  EXPECT_EQ(t.process_count, 3u);
  Trace streamed;
  std::vector<Finding> unused;
  ASSERT_TRUE(LoadAndAnalyze(path, AnalysisOptions{}, &streamed, &unused).ok());
  EXPECT_EQ(streamed.process_count, 3u);
  const std::vector<Finding> findings = Analyze(t, AnalysisOptions{});
  ASSERT_EQ(findings.size(), 2u);
  auto of = [&](std::uint64_t task) {
    return *std::find_if(findings.begin(), findings.end(),
                         [&](const Finding& f) { return f.task == task; });
  };
  const std::uint64_t build = 281474976710656;
  const Finding leak = of(ProcessTaskId(400) + 1);
  EXPECT_EQ(leak.kind, FindingKind::kLeak);
  EXPECT_EQ(leak.process, 400);
  EXPECT_EQ(leak.scope, build);
  const Finding background = of(ProcessTaskId(300));
  EXPECT_EQ(background.kind, FindingKind::kZombie);
  EXPECT_EQ(background.process, 200);  // not init
  EXPECT_EQ(background.scope, build);
  EXPECT_EQ(background.outlived_ns, 20'000'000);
}

// A child process's end is its reap, written a scheduling delay after its
// death: one reaped up to 10 ms after its scope ended is no zombie; 15 ms is.
// A program that starts a child and exits before the child's library
// writes its header: the header names init, but the program started it.
TEST(StreamAnalyze, AChildWhoseParentExitedFirstIsStillItsParents) {
  const std::string id = std::to_string(ProcessTaskId(200));
  TempFile f("daemon.jsonl");
  f.Write(testing::Lines(
      {testing::Header(),
       R"({"ev":"spawn","task":)" + id +
           R"(,"ctx":0,"group":0,"scope":0,"detached_from":0,"parent":0,"name":"","file":"w.cpp","line":2,"func":"f","kind":"process","t":1100})",
       R"({"ev":"start","task":)" + id + R"(,"tid":200,"t":1101})",
       R"({"ev":"exit","status":0,"t":1200})",
       R"({"ev":"header","version":1,"pid":200,"ppid":1,"program":"daemon","t":1300})",
       R"({"ev":"end","task":)" + id + R"(,"result":"ok","t":1400})",
       R"({"ev":"exit","status":0,"t":1400})"}));
  Trace t;
  ASSERT_TRUE(LoadTrace(f.path(), &t).ok());
  EXPECT_EQ(t.processes.at(200).parent_pid, t.pid);
  EXPECT_EQ(RanIn(t, t.tasks.at(ProcessTaskId(200))), 0);  // ran in the program
  ExpectSameAnalysis(f.path(), 0);
}

TEST(StreamAnalyze, AProcessReapedJustAfterItsScopeIsNoZombie) {
  for (const auto& [reaped_after_ns, findings] :
       {std::pair{5'000'000, 0u}, std::pair{15'000'000, 1u}}) {
    const std::uint64_t process = ProcessTaskId(200);
    const std::string id = std::to_string(process);
    TempFile f("reaped.jsonl");
    f.Write(testing::Lines(
        {testing::Header(),
         R"({"ev":"scope_begin","id":5,"ctx":0,"name":"build","file":"w.cpp","line":1,"func":"f","t":1000})",
         R"({"ev":"spawn","task":)" + id +
             R"(,"ctx":0,"group":0,"scope":5,"detached_from":0,"parent":0,"name":"","file":"w.cpp","line":2,"func":"f","kind":"process","t":1100})",
         R"({"ev":"start","task":)" + id + R"(,"tid":200,"t":1101})",
         R"({"ev":"scope_end","id":5,"t":2000})",
         R"({"ev":"end","task":)" + id + R"(,"result":"failed","t":)" +
             std::to_string(2000 + reaped_after_ns) + "}",
         R"({"ev":"exit","status":0,"t":90000000})"}));
    EXPECT_EQ(ExpectSameAnalysis(f.path(), 0), findings) << reaped_after_ns;
  }
}

TEST(StreamAnalyze, SameAsAnalyzeOnEveryProbeMode) {
  std::size_t findings = 0;
  for (const char* mode : {"clean", "zombie", "late", "leak", "unwaited", "detached", "nested",
                           "crash", "fail", "chatty", "names", "stress 2000 4"}) {
    TempFile f("probe.jsonl");
    std::string cmd = "TETHER_TRACE='" + f.path() + "' " + TRACE_PROBE + " " + mode +
                      " >/dev/null 2>&1";
    (void)std::system(cmd.c_str());  // crash and fail exit non-zero on purpose
    for (std::int64_t grace : {0, 1000000}) findings += ExpectSameAnalysis(f.path(), grace);
    ExpectSameWhenReordered(f.path(), 0);
  }
  EXPECT_GT(findings, 0u);
}

}  // namespace
}  // namespace tether::trace
