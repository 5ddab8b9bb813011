// The executor against the fake runtime (runtime/fake_runtime.hpp): no
// process is started. Each test scripts its containers and checks what the
// Engine made of them (build.json's record, the logs, the live result lines)
// and the order it drove the runtime in (the fake's event log): stages after
// their needs, steps in order, every step result, and the stream shutdown
// order (services stopped after the last stage, their goodbye streamed, every
// stream at end of file before the build is removed).
#include <gtest/gtest.h>
#include <stdio.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cmd/exec.hpp"
#include "executor/engine.hpp"
#include "executor/live_output.hpp"
#include "runtime/fake_runtime.hpp"
#include "tether/task.hpp"

// Scripts name only what they change (designated initializers); the rest
// keep FakeScript's defaults on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace tether::worker {
namespace {

using executor::BuildRecord;
using executor::ContainerRecord;
using executor::Status;
using runtime::FakeScript;
using namespace std::chrono_literals;

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/tether-engine-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
    live_file_ = std::tmpfile();
    ASSERT_NE(live_file_, nullptr);
    live_ = std::make_unique<executor::LiveOutput>(live_file_, /*lines=*/true, /*progress=*/false);
    auto fake =
        std::make_unique<runtime::FakeRuntime>(runtime::RuntimeOptions{dir_ + "/ws", kill_grace_});
    rt_ = fake.get();
    owned_rt_ = std::move(fake);
  }
  void TearDown() override {
    std::fclose(live_file_);
    std::filesystem::remove_all(dir_);
  }

  static Container Step(const std::string& name, bool cont = false) {
    Container c;
    c.name = name;
    c.image = "alpine";
    c.commands = {"./" + name};  // never run: the fake runtime follows its script
    c.continue_on_failure = cont;
    return c;
  }
  static Stage MakeStage(const std::string& name, std::vector<std::string> needs,
                         std::vector<Container> steps) {
    Stage s;
    s.name = name;
    s.needs = std::move(needs);
    s.steps = std::move(steps);
    return s;
  }

  BuildRecord Run(const Pipeline& p, Duration timeout = 60s, const Context& ctx = Background(),
                  std::atomic<executor::Engine*>* running = nullptr) {
    executor::BuildConfig config;
    config.build_id = "test-1";
    config.result_dir = dir_;
    config.workspace_root = dir_ + "/ws";
    config.kill_grace = kill_grace_;
    config.log_streaming_timeout = log_streaming_timeout_;
    config.worker_env = worker_env_;
    config.live = live_.get();
    executor::Engine engine(p, config, std::move(owned_rt_));
    if (running != nullptr) running->store(&engine);
    cmd::RunBuild(ctx, engine, timeout, 30s);
    BuildRecord record = engine.Record();
    events_ = rt_->Events();  // the runtime dies with the engine
    rt_ = nullptr;
    return record;
  }

  // Waits (up to 5 s) until the fake runtime of a running build logged event.
  static bool WaitForEvent(const runtime::FakeRuntime& rt, const std::string& event) {
    for (int i = 0; i < 5000; ++i) {
      std::vector<std::string> e = rt.Events();
      if (std::find(e.begin(), e.end(), event) != e.end()) return true;
      std::this_thread::sleep_for(1ms);
    }
    return false;
  }
  std::ptrdiff_t IndexOf(const std::string& event) const {
    auto it = std::find(events_.begin(), events_.end(), event);
    return it == events_.end() ? -1 : it - events_.begin();
  }
  void ExpectBefore(const std::string& a, const std::string& b) const {
    std::ptrdiff_t ia = IndexOf(a), ib = IndexOf(b);
    ASSERT_GE(ia, 0) << a << " is not in " << Joined();
    ASSERT_GE(ib, 0) << b << " is not in " << Joined();
    EXPECT_LT(ia, ib) << a << " should come before " << b << ": " << Joined();
  }
  std::string Joined() const {
    std::string all;
    for (const std::string& e : events_) all += e + "; ";
    return all;
  }
  static const ContainerRecord& Find(const BuildRecord& b, const std::string& name) {
    for (const ContainerRecord& c : b.steps) {
      if (c.name == name) return c;
    }
    for (const ContainerRecord& c : b.services) {
      if (c.name == name) return c;
    }
    static ContainerRecord none;
    ADD_FAILURE() << "no container " << name;
    return none;
  }
  std::string Log(const std::string& name) const {
    std::ifstream in(dir_ + "/" + name + ".log");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string LiveText() const {
    std::fflush(live_file_);
    std::rewind(live_file_);
    std::string text;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, live_file_)) > 0;) text.append(buf, n);
    return text;
  }

  std::string dir_;
  Duration kill_grace_ = 5s;
  Duration log_streaming_timeout_ = 5s;
  std::vector<std::string> worker_env_ = {"PATH=/nonexistent"};
  std::FILE* live_file_ = nullptr;
  std::unique_ptr<executor::LiveOutput> live_;
  std::unique_ptr<runtime::FakeRuntime> owned_rt_;  // until Run gives it to the engine
  runtime::FakeRuntime* rt_ = nullptr;
  std::vector<std::string> events_;  // the fake's event log, once Run returned
};

TEST_F(EngineTest, StagesWaitForTheirNeedsAndStepsRunInOrder) {
  rt_->Script("a1", {.runs_for = 200ms});
  rt_->Script("c1", {.runs_for = 50ms});
  Pipeline p;
  p.stages = {MakeStage("a", {}, {Step("a1"), Step("a2")}), MakeStage("b", {"a"}, {Step("b1")}),
              MakeStage("c", {}, {Step("c1")}), MakeStage("d", {"b", "c"}, {Step("d1")})};
  BuildRecord b = Run(p);
  EXPECT_EQ(b.status, BuildStatus::kSuccess) << b.reason;
  ExpectBefore("exit a1 0", "run a2");
  ExpectBefore("exit a2 0", "run b1");
  ExpectBefore("exit b1 0", "run d1");
  ExpectBefore("exit c1 0", "run d1");
  ExpectBefore("run c1", "exit a1 0");  // c does not need a: it runs beside it
  for (const ContainerRecord& c : b.steps) EXPECT_EQ(c.status, Status::kSuccess) << c.name;
}

TEST_F(EngineTest, AFailureSkipsItsStageAndItsDependentsOnly) {
  rt_->Script("a1", {.exit_code = 4});
  Pipeline p;
  p.stages = {MakeStage("a", {}, {Step("a1"), Step("a2")}), MakeStage("b", {"a"}, {Step("b1")}),
              MakeStage("c", {"b"}, {Step("c1")}), MakeStage("free", {}, {Step("f1")})};
  BuildRecord b = Run(p);
  EXPECT_EQ(b.status, BuildStatus::kFailure);
  EXPECT_EQ(b.reason, "step a1 failed");
  EXPECT_EQ(Find(b, "a1").status, Status::kFailure);
  EXPECT_EQ(Find(b, "a1").exit_code, 4);
  EXPECT_EQ(Find(b, "a2").status, Status::kSkipped);
  EXPECT_EQ(Find(b, "b1").status, Status::kSkipped);
  EXPECT_EQ(Find(b, "c1").status, Status::kSkipped);
  EXPECT_EQ(Find(b, "c1").reason, "needs stage a, which failed");
  EXPECT_EQ(Find(b, "f1").status, Status::kSuccess);
  EXPECT_EQ(IndexOf("run a2"), -1);
  EXPECT_EQ(IndexOf("run b1"), -1);
}

// success, failure (continue), error, skipped (plugin), skipped (after a
// failure): each in build.json's record and as a result line, once, after
// the container's last log line.
TEST_F(EngineTest, EveryStepResultIsRecordedAndShownOnce) {
  rt_->Script("ok", {.output = {"hello"}});
  rt_->Script("flaky", {.output = {"flaking"}, .exit_code = 3});
  rt_->Script("fails", {.exit_code = 1});
  Pipeline p;
  Container plugin = Step("plugin");
  plugin.commands.clear();
  plugin.image = "plugins/slack";
  p.steps = {Step("ok"), Step("flaky", /*cont=*/true), plugin, Step("fails"), Step("after")};
  Pipeline p2;
  BuildRecord b = Run(p);
  EXPECT_EQ(b.status, BuildStatus::kFailure);
  EXPECT_EQ(Find(b, "ok").status, Status::kSuccess);
  EXPECT_EQ(Find(b, "ok").exit_code, 0);
  EXPECT_EQ(Find(b, "flaky").status, Status::kFailure);
  EXPECT_EQ(Find(b, "plugin").status, Status::kSkipped);
  EXPECT_EQ(Find(b, "plugin").reason, "plugin: the process runtime does not run images");
  EXPECT_EQ(Find(b, "fails").status, Status::kFailure);
  EXPECT_EQ(Find(b, "after").status, Status::kSkipped);
  EXPECT_EQ(Log("ok"), "hello\n");
  std::string live = LiveText();
  EXPECT_NE(live.find("[test-1/ok] step success exit 0\n"), std::string::npos) << live;
  EXPECT_NE(live.find("[test-1/flaky] step failure exit 3 (continue)\n"), std::string::npos)
      << live;
  EXPECT_NE(live.find("[test-1/plugin] step skipped: plugin"), std::string::npos) << live;
  EXPECT_NE(live.find("[test-1/fails] step failure exit 1\n"), std::string::npos) << live;
  EXPECT_EQ(live.find("[test-1/ok] step "), live.rfind("[test-1/ok] step ")) << "once: " << live;
  EXPECT_LT(live.find("[test-1/ok] hello\n"), live.find("[test-1/ok] step success")) << live;

  // A container the runtime cannot start is an error of the step, and of the build.
  rt_ = new runtime::FakeRuntime(runtime::RuntimeOptions{dir_ + "/ws", kill_grace_});
  owned_rt_.reset(rt_);
  rt_->Script("broken", {.fails_to_start = true});
  p2.steps = {Step("broken"), Step("next")};
  BuildRecord e = Run(p2);
  EXPECT_EQ(e.status, BuildStatus::kError);
  EXPECT_EQ(Find(e, "broken").status, Status::kError);
  EXPECT_EQ(Find(e, "broken").reason, "spawn /bin/sh: No such file or directory");
  EXPECT_EQ(Find(e, "next").status, Status::kCanceled);
  EXPECT_NE(Log("broken").find("spawn /bin/sh: No such file or directory"), std::string::npos)
      << Log("broken");
}

TEST_F(EngineTest, TimeoutKillsTheRunningStepAndCancelsTheRest) {
  rt_->Script("slow", {.output = {"working"}, .runs_until_stopped = true});
  Pipeline p;
  p.steps = {Step("slow"), Step("never")};
  BuildRecord b = Run(p, 300ms);
  EXPECT_EQ(b.status, BuildStatus::kFailure);
  EXPECT_EQ(b.reason, "build timed out");
  EXPECT_EQ(Find(b, "slow").status, Status::kKilled);
  EXPECT_EQ(Find(b, "slow").exit_code, 143);  // it honoured SIGTERM
  EXPECT_EQ(Find(b, "slow").reason, "build timed out");
  EXPECT_EQ(Find(b, "never").status, Status::kCanceled);
  EXPECT_EQ(IndexOf("run never"), -1);
  EXPECT_EQ(Log("slow"), "working\n");
  ExpectBefore("stop slow", "exit slow 143");
  ExpectBefore("eof slow", "remove-build");
}

TEST_F(EngineTest, AStepThatIgnoresSigtermIsKilledAfterTheKillGrace) {
  kill_grace_ = 100ms;
  rt_ = new runtime::FakeRuntime(runtime::RuntimeOptions{dir_ + "/ws", kill_grace_});
  owned_rt_.reset(rt_);
  rt_->Script("stubborn", {.runs_until_stopped = true, .ignores_sigterm = true});
  Pipeline p;
  p.steps = {Step("stubborn")};
  BuildRecord b = Run(p, 100ms);
  EXPECT_EQ(Find(b, "stubborn").status, Status::kKilled);
  EXPECT_EQ(Find(b, "stubborn").exit_code, 137);
  ExpectBefore("stop stubborn", "kill stubborn");
}

TEST_F(EngineTest, CancellingTheBuildContextCancelsTheBuild) {
  rt_->Script("waits", {.runs_until_stopped = true});
  runtime::FakeRuntime* rt = rt_;
  Pipeline p;
  p.steps = {Step("waits"), Step("never")};
  auto [build_ctx, cancel_build] = WithCancel(Background());
  auto [group, gctx] = TaskGroup::WithContext(Background());
  BuildRecord b;
  group.Go([&, bctx = build_ctx] { b = Run(p, 60s, bctx); });
  WaitForEvent(*rt, "run waits");
  cancel_build();
  group.Wait();
  EXPECT_EQ(b.status, BuildStatus::kCanceled);
  EXPECT_EQ(b.reason, "build canceled");
  EXPECT_EQ(Find(b, "waits").status, Status::kKilled);
  EXPECT_EQ(Find(b, "waits").reason, "build canceled");
  EXPECT_EQ(Find(b, "never").status, Status::kCanceled);
}

// The stream shutdown order: the last step ends, then the services and
// detached steps are stopped (SIGTERM), their goodbye is streamed to the log,
// every stream reaches end of file, and only then is the build removed.
TEST_F(EngineTest, ServicesAreStoppedAfterTheLastStepAndTheirLogsDrainedBeforeRemoval) {
  rt_->Script("db",
              {.output = {"serving"}, .runs_until_stopped = true, .output_on_stop = {"goodbye"}});
  rt_->Script("bg", {.runs_until_stopped = true});
  rt_->Script("uses", {.runs_for = 50ms});
  Pipeline p;
  Container db;
  db.name = "db";
  db.entrypoint = {"db-server"};
  p.services = {db};
  Container bg = Step("bg");
  bg.detach = true;
  p.steps = {bg, Step("uses")};
  BuildRecord b = Run(p);
  EXPECT_EQ(b.status, BuildStatus::kSuccess) << b.reason;
  ExpectBefore("run db", "run bg");
  ExpectBefore("exit uses 0", "stop db");
  ExpectBefore("exit uses 0", "stop bg");
  ExpectBefore("stop db", "eof db");
  ExpectBefore("eof db", "remove-build");
  ExpectBefore("eof bg", "remove-build");
  ExpectBefore("eof uses", "remove-build");
  EXPECT_EQ(Find(b, "db").status, Status::kSuccess);
  EXPECT_EQ(Find(b, "db").reason, "stopped when the build ended");
  EXPECT_EQ(Find(b, "db").exit_code, 143);
  EXPECT_EQ(Find(b, "bg").status, Status::kSuccess);
  EXPECT_EQ(Log("db"), "serving\ngoodbye\n");
  std::string live = LiveText();
  EXPECT_NE(live.find("[test-1/db] service success exit 143: stopped when the build ended\n"),
            std::string::npos)
      << live;
}

TEST_F(EngineTest, AServiceThatFailsByItselfFailsTheBuildAndEndsWhenItsOutputDid) {
  rt_->Script("db", {.output = {"crashing"}, .exit_code = 3});
  rt_->Script("uses", {.runs_for = 300ms});
  Pipeline p;
  Container db;
  db.name = "db";
  db.entrypoint = {"db-server"};
  p.services = {db};
  p.steps = {Step("uses")};
  BuildRecord b = Run(p);
  EXPECT_EQ(b.status, BuildStatus::kFailure);
  EXPECT_EQ(Find(b, "db").status, Status::kFailure);
  EXPECT_EQ(Find(b, "db").exit_code, 3);
  ASSERT_TRUE(Find(b, "db").finished && Find(b, "uses").finished);
  EXPECT_LT(*Find(b, "db").finished, *Find(b, "uses").finished)
      << "the service ended on its own, before the step did";
  EXPECT_EQ(IndexOf("stop db"), -1) << "it was not running to stop: " << Joined();
}

// Something a step started still holds its output: the stream gives up
// --log-streaming-timeout after the build ended, says so in the log, and the
// build is removed (which ends the holder).
TEST_F(EngineTest, AnOutputHeldOpenIsCutAfterTheLogStreamingTimeout) {
  log_streaming_timeout_ = 200ms;
  rt_->Script("leaky", {.output = {"started a daemon"}, .output_outlives_it = true});
  Pipeline p;
  p.steps = {Step("leaky"), Step("next")};
  BuildRecord b = Run(p);
  EXPECT_EQ(b.status, BuildStatus::kSuccess) << b.reason;
  EXPECT_EQ(Find(b, "next").status, Status::kSuccess);
  std::string log = Log("leaky");
  EXPECT_NE(log.find("started a daemon\n"), std::string::npos) << log;
  EXPECT_NE(log.find("log streaming stopped: --log-streaming-timeout passed"), std::string::npos)
      << log;
  EXPECT_EQ(IndexOf("eof leaky"), -1) << Joined();
}

// Kill (the third signal) ends every kill grace at once: a service that
// ignores SIGTERM under an hour's grace is killed, and the build ends.
TEST_F(EngineTest, KillEndsTheKillGraceOfAServiceThatIgnoresSigterm) {
  kill_grace_ = std::chrono::hours(1);
  rt_ = new runtime::FakeRuntime(runtime::RuntimeOptions{dir_ + "/ws", kill_grace_});
  owned_rt_.reset(rt_);
  rt_->Script("db", {.runs_until_stopped = true, .ignores_sigterm = true});
  runtime::FakeRuntime* rt = rt_;
  Pipeline p;
  Container db;
  db.name = "db";
  db.entrypoint = {"db-server"};
  p.services = {db};
  p.steps = {Step("quick")};
  std::atomic<executor::Engine*> running{nullptr};
  auto [group, gctx] = TaskGroup::WithContext(Background());
  BuildRecord b;
  group.Go([&] { b = Run(p, 60s, Background(), &running); });
  ASSERT_TRUE(WaitForEvent(*rt, "stop db"));
  // The engine lives until the build is removed, which waits for db: it is alive here.
  running.load()->Kill();
  group.Wait();
  ExpectBefore("stop db", "kill-now");
  ExpectBefore("kill-now", "kill db");
  EXPECT_EQ(Find(b, "db").exit_code, 137);
}

}  // namespace
}  // namespace tether::worker
