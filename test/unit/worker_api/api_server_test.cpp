// The worker's HTTP API over real HTTP (httplib's client on loopback), with
// real builds run by the executor in the slots: health, metrics, the
// executors listing, cancel of a running build (its context: the step is
// stopped, DestroyBuild runs, build.json says canceled), 404/409 for a
// missing slot or a finished build, bearer tokens, addresses, shutdown.
// (The same through `tether-worker serve` is in test/worker/api-*.test.)
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "api/control.hpp"
#include "api/server.hpp"
#include "cmd/exec.hpp"
#include "executor/engine.hpp"
#include "tether/task.hpp"

namespace tether::worker::api {
namespace {

using nlohmann::json;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool WaitFor(const std::function<bool()>& cond, int seconds = 30) {
  for (int i = 0; i < seconds * 100; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The slots of a worker, as cmd::Worker keeps them: a build's cancel func
// from Begin to End.
class TestSlots : public api::WorkerControl {
 public:
  explicit TestSlots(int n) : slots_(n), cancels_(n) {
    for (int i = 0; i < n; ++i) slots_[i].slot = i;
  }
  void Begin(int slot, const std::string& id, CancelFunc cancel) {
    std::lock_guard<std::mutex> lock(mu_);
    slots_[slot].busy = true;
    slots_[slot].build_id = id;
    slots_[slot].pipeline = "inline.yml";
    slots_[slot].started = WallClock::now();
    cancels_[slot] = std::move(cancel);
    ++stats_.running;
  }
  void End(int slot, const executor::BuildRecord& record) {
    std::lock_guard<std::mutex> lock(mu_);
    api::BuildInfo ended;
    ended.id = slots_[slot].build_id;
    ended.pipeline = slots_[slot].pipeline;
    ended.status = record.status;
    ended.reason = record.reason;
    ended.started = slots_[slot].started;
    ended.finished = WallClock::now();
    ended.result_dir = results_root_ + "/" + ended.id;
    ended_.insert(ended_.begin(), ended);
    slots_[slot] = api::SlotInfo();
    slots_[slot].slot = slot;
    cancels_[slot] = CancelFunc();
    --stats_.running;
    ++stats_.builds_by_status[record.status];
    for (const auto& c : record.steps)
      stats_.steps_killed += c.status == executor::Status::kKilled ? 1 : 0;
    stats_.build_duration_seconds.Observe(0.5);
  }
  std::vector<api::SlotInfo> Slots() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return slots_;
  }
  CancelResult CancelSlot(int slot, std::string* build_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (slot < 0 || slot >= static_cast<int>(slots_.size())) return CancelResult::kNoSuchSlot;
    if (!slots_[slot].busy) return CancelResult::kIdle;
    *build_id = slots_[slot].build_id;
    cancels_[slot]();
    return CancelResult::kCanceled;
  }
  // A queue behind the slots: ids queued (a cancel ends them at once) and
  // ids that ended.
  Error CancelBuild(const std::string& id, BuildCancelResult* out) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].busy && slots_[i].build_id == id) {
        cancels_[i]();
        *out = BuildCancelResult::kRunningHere;
        return Error();
      }
    }
    if (queued_.erase(id) > 0) {
      ended_ids_.insert(id);
      *out = BuildCancelResult::kQueued;
    } else {
      *out = ended_ids_.count(id) ? BuildCancelResult::kEnded : BuildCancelResult::kNoSuchBuild;
    }
    return Error();
  }
  std::vector<api::BuildInfo> Builds() const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<api::BuildInfo> out;
    for (const api::SlotInfo& s : slots_) {
      if (!s.busy) continue;
      api::BuildInfo b;
      b.id = s.build_id;
      b.pipeline = s.pipeline;
      b.status = BuildStatus::kRunning;
      b.slot = s.slot;
      b.started = s.started;
      b.result_dir = results_root_ + "/" + s.build_id;
      out.push_back(b);
    }
    out.insert(out.end(), ended_.begin(), ended_.end());
    return out;
  }
  void SetResultsRoot(const std::string& root) {
    std::lock_guard<std::mutex> lock(mu_);
    results_root_ = root;
  }
  void Queue(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    queued_.insert(id);
  }
  api::WorkerStats Stats() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

 private:
  std::set<std::string> queued_, ended_ids_;
  std::vector<api::BuildInfo> ended_;  // newest first
  std::string results_root_;
  mutable std::mutex mu_;
  std::vector<api::SlotInfo> slots_;
  std::vector<CancelFunc> cancels_;
  api::WorkerStats stats_{{}, 0, 0, api::Histogram({0.1, 1}), api::Histogram({0.1, 1})};
};

class ApiServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/tether-api-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    Stop();
    std::filesystem::remove_all(dir_);
  }

  // Opens the API on a free loopback port and serves it in a task.
  void Start(const std::string& token = "") {
    std::string token_file;
    if (!token.empty()) {
      token_file = dir_ + "/token";
      std::ofstream(token_file) << token << "\n";
    }
    ASSERT_TRUE(HttpApi::Open("127.0.0.1:0", token_file, slots_, &server_).ok());
    auto [ctx, cancel] = WithCancel(Background());
    stop_ = cancel;
    group_.Go("api", [this, ctx = ctx] { return server_->Run(ctx); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    if (!token.empty()) client_->set_bearer_token_auth(token);
  }
  void Stop() {
    stop_();
    ASSERT_TRUE(group_.Wait().ok());
    builds_.Wait();
  }

  // Runs one build in slot 0, as serve's executor loop does: a step that
  // writes its pid and then sleeps until it is stopped.
  void StartBuild(const std::string& id) {
    Pipeline p;
    p.file = "inline.yml";
    Container c;
    c.name = "sleeper";
    c.image = "alpine";
    c.commands = {"echo $$ > " + dir_ + "/" + id + ".pid", "exec sleep 1000"};
    p.steps.push_back(c);
    std::filesystem::create_directories(dir_ + "/" + id);
    builds_.Go(id, [this, p, id]() {
      executor::BuildConfig config;
      config.build_id = id;
      config.result_dir = dir_ + "/" + id;
      config.workspace_root = dir_ + "/ws";
      config.kill_grace = std::chrono::seconds(5);
      config.log_streaming_timeout = std::chrono::seconds(5);
      config.worker_env = {"PATH=/usr/local/bin:/usr/bin:/bin"};
      executor::Engine engine(p, config);
      auto [build_ctx, cancel] = WithCancel(Background());
      slots_.Begin(0, id, cancel);
      cmd::RunBuild(build_ctx, engine, std::chrono::seconds(60), std::chrono::seconds(30));
      executor::BuildRecord record = engine.Record();
      executor::WriteBuildJson(record, config.result_dir + "/build.json");
      slots_.End(0, record);
      cancel();
    });
  }
  pid_t StepPid(const std::string& id) {
    std::string path = dir_ + "/" + id + ".pid";
    pid_t pid = 0;
    EXPECT_TRUE(WaitFor([&] { return !Slurp(path).empty(); })) << "the step never started";
    std::istringstream(Slurp(path)) >> pid;
    return pid;
  }

  std::string dir_;
  TestSlots slots_{2};
  std::unique_ptr<HttpApi> server_;
  std::unique_ptr<httplib::Client> client_;
  CancelFunc stop_;
  TaskGroup group_ = std::move(TaskGroup::WithContext(Background()).group);
  TaskGroup builds_ = std::move(TaskGroup::WithContext(Background()).group);
};

// docs/worker.md's API table, the routes the server declares (ApiRoutes) and
// the routes it serves are one list: a route missing from any of the three
// fails here. A router miss answers {"error":"not found"}; every declared
// route answers something of its own (a 404 of a handler names what it lacks).
TEST_F(ApiServerTest, TheDocumentedRoutesAreTheDeclaredOnesAndEachIsServed) {
  std::set<std::string> documented, declared;
  std::ifstream docs(TETHER_SOURCE_DIR "/docs/worker.md");
  ASSERT_TRUE(docs) << "docs/worker.md";
  bool in_api = false;
  for (std::string line; std::getline(docs, line);) {
    if (line.rfind("## ", 0) == 0) in_api = line.find("The HTTP API") != std::string::npos;
    for (const char* method : {"GET ", "DELETE ", "POST ", "PUT "}) {
      std::string cell = std::string("| `") + method;
      if (!in_api || line.rfind(cell, 0) != 0) continue;
      std::size_t end = line.find('`', 3);
      ASSERT_NE(end, std::string::npos) << line;
      documented.insert(line.substr(3, end - 3));
    }
  }
  for (const ApiRoute& r : ApiRoutes())
    declared.insert(std::string(r.method) + " " + std::string(r.path));
  EXPECT_EQ(documented, declared);

  Start();
  const std::string router_miss = "{\"error\":\"not found\"}\n";
  auto send = [&](const std::string& method, const std::string& path) {
    auto res = method == "GET" ? client_->Get(path) : client_->Delete(path);
    return res ? res->body : std::string("no answer");
  };
  EXPECT_EQ(send("GET", "/api/v1/nothing"), router_miss) << "the control: an undeclared route";
  for (const ApiRoute& r : ApiRoutes()) {
    std::string path;  // N and ID filled in: slot 0, a build nobody knows
    std::istringstream parts{std::string(r.path.substr(1))};
    for (std::string part; std::getline(parts, part, '/');)
      path += "/" + (part == "N" ? "0" : part == "ID" ? "nosuch-1" : part);
    std::string body = send(std::string(r.method), path);
    EXPECT_NE(body, router_miss) << r.method << " " << path << " is declared but not served";
    EXPECT_NE(body, "no answer") << r.method << " " << path;
  }
}

TEST_F(ApiServerTest, HealthAndIdleExecutors) {
  Start();
  auto res = client_->Get("/health");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  json health = json::parse(res->body);
  EXPECT_EQ(health["status"], "ok");
  EXPECT_EQ(health["executors"], 2);
  EXPECT_EQ(health["running"], 0);

  res = client_->Get("/api/v1/executors");
  ASSERT_TRUE(res);
  json list = json::parse(res->body)["executors"];
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1]["slot"], 1);
  EXPECT_EQ(list[1]["state"], "idle");
  EXPECT_TRUE(list[1]["build"].is_null());

  res = client_->Get("/no/such/path");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(json::parse(res->body)["error"], "not found");
}

TEST_F(ApiServerTest, CancelRunningBuildThenFinishedBuild) {
  Start();
  StartBuild("api-1");
  pid_t pid = StepPid("api-1");
  ASSERT_GT(pid, 0);

  auto res = client_->Get("/api/v1/executors/0");
  ASSERT_TRUE(res);
  json slot = json::parse(res->body);
  EXPECT_EQ(slot["state"], "running");
  EXPECT_EQ(slot["build"]["id"], "api-1");
  EXPECT_EQ(slot["build"]["pipeline"], "inline.yml");

  // A missing slot or an idle one cancels nothing.
  res = client_->Delete("/api/v1/executors/1/build");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 409);
  res = client_->Delete("/api/v1/executors/5/build");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(::kill(pid, 0), 0) << "the step must still run";

  res = client_->Delete("/api/v1/executors/0/build");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 202);
  EXPECT_EQ(json::parse(res->body)["build"], "api-1");

  std::string build_json = dir_ + "/api-1/build.json";
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(build_json); }));
  json build = json::parse(Slurp(build_json));
  EXPECT_EQ(build["status"], "canceled");
  EXPECT_EQ(build["steps"][0]["status"], "killed");
  EXPECT_EQ(build["steps"][0]["exit_code"], 143);
  EXPECT_TRUE(std::filesystem::is_empty(dir_ + "/ws")) << "DestroyBuild removed the workspace";
  EXPECT_FALSE(std::filesystem::exists("/proc/" + std::to_string(pid))) << "the step was reaped";
  builds_.Wait();

  // The build finished: the slot is idle, a cancel is a conflict.
  res = client_->Delete("/api/v1/executors/0/build");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 409);

  res = client_->Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(res->body.find("tether_worker_builds_total{status=\"canceled\"} 1\n"),
            std::string::npos)
      << res->body;
  EXPECT_NE(res->body.find("tether_worker_step_kills_total 1\n"), std::string::npos);
  EXPECT_NE(res->body.find("tether_worker_api_cancels_total 1\n"), std::string::npos);
  EXPECT_NE(res->body.find("tether_worker_build_duration_seconds_count 1\n"), std::string::npos);
  EXPECT_NE(res->body.find("tether_worker_builds_running 0\n"), std::string::npos);
  // At least the task serving the API is alive.
  EXPECT_EQ(res->body.find("tether_tasks_alive 0\n"), std::string::npos);
}

// DELETE /api/v1/builds/{id}: a build by its id, running or queued; an
// ended or unknown one cancels nothing.
TEST_F(ApiServerTest, CancelBuildById) {
  Start();
  slots_.Queue("queued-1");
  StartBuild("api-2");
  pid_t pid = StepPid("api-2");
  ASSERT_GT(pid, 0);

  auto res = client_->Delete("/api/v1/builds/queued-1");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(json::parse(res->body)["state"], "canceled");
  res = client_->Delete("/api/v1/builds/queued-1");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 409);
  res = client_->Delete("/api/v1/builds/no-such-build");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(json::parse(res->body)["error"], "no build no-such-build");
  EXPECT_EQ(::kill(pid, 0), 0) << "the running build must still run";

  res = client_->Delete("/api/v1/builds/api-2");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 202);
  json reply = json::parse(res->body);
  EXPECT_EQ(reply["build"], "api-2");
  EXPECT_EQ(reply["state"], "canceling");
  std::string build_json = dir_ + "/api-2/build.json";
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(build_json); }));
  EXPECT_EQ(json::parse(Slurp(build_json))["status"], "canceled");
  EXPECT_FALSE(std::filesystem::exists("/proc/" + std::to_string(pid))) << "the step was reaped";
  builds_.Wait();
}

// GET /api/v1/builds lists running then ended builds; GET .../logs serves a
// build's logs, "[step] line" each, and with ?follow=1 streams them until the
// build ends (here: canceled while a client follows).
TEST_F(ApiServerTest, BuildsListAndLogsFollowedToTheEnd) {
  slots_.SetResultsRoot(dir_);
  Start();
  StartBuild("api-3");
  pid_t pid = StepPid("api-3");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(WaitFor(
      [&] { return Slurp(dir_ + "/api-3/sleeper.log").find("exec sleep") != std::string::npos; }));

  auto res = client_->Get("/api/v1/builds");
  ASSERT_TRUE(res);
  json list = json::parse(res->body)["builds"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], "api-3");
  EXPECT_EQ(list[0]["status"], "running");
  EXPECT_EQ(list[0]["slot"], 0);
  EXPECT_TRUE(list[0]["finished"].is_null());

  res = client_->Get("/api/v1/builds/api-3/logs");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find("[sleeper] $ exec sleep 1000\n"), std::string::npos) << res->body;
  res = client_->Get("/api/v1/builds/nope/logs");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);

  // A follower gets the lines so far, then the rest, and its response ends
  // when the build does.
  std::string followed;
  std::thread follower([&] {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(30);
    auto r = c.Get("/api/v1/builds/api-3/logs?follow=1");
    if (r) followed = r->body;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  res = client_->Delete("/api/v1/builds/api-3");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 202);
  follower.join();
  EXPECT_NE(followed.find("[sleeper] $ exec sleep 1000\n"), std::string::npos) << followed;
  builds_.Wait();

  res = client_->Get("/api/v1/builds");
  ASSERT_TRUE(res);
  list = json::parse(res->body)["builds"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["status"], "canceled");
  EXPECT_FALSE(list[0]["finished"].is_null());
  EXPECT_TRUE(list[0]["slot"].is_null());
}

TEST_F(ApiServerTest, BearerToken) {
  Start("s3cret-token");
  auto res = client_->Get("/health");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);

  httplib::Client anonymous("127.0.0.1", server_->port());
  res = anonymous.Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
  EXPECT_EQ(res->get_header_value("WWW-Authenticate"), "Bearer realm=\"tether-worker\"");
  EXPECT_EQ(json::parse(res->body)["error"], "a bearer token is required");

  httplib::Client wrong("127.0.0.1", server_->port());
  for (const char* token : {"s3cret-tokeN", "s3cret-toke", "s3cret-token2", ""}) {
    wrong.set_bearer_token_auth(token);
    res = wrong.Delete("/api/v1/executors/0/build");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 401) << token;
  }
}

TEST_F(ApiServerTest, StopBeforeServeStarted) {
  ASSERT_TRUE(HttpApi::Open("127.0.0.1:0", "", slots_, &server_).ok());
  auto [ctx, cancel] = WithCancel(Background());
  cancel();
  EXPECT_TRUE(server_->Run(ctx).ok());  // returns at once: the stop was not lost
}

TEST_F(ApiServerTest, ShutdownWithAnIdleKeepAliveClient) {
  Start();
  client_->set_keep_alive(true);
  auto res = client_->Get("/health");
  ASSERT_TRUE(res);
  Stop();  // returns once the connection thread gave up the idle connection
  httplib::Client late("127.0.0.1", server_->port());
  late.set_connection_timeout(1);
  EXPECT_FALSE(late.Get("/health")) << "nothing listens after Serve returned";
}

TEST(ApiAddressTest, Parse) {
  ApiAddress a;
  ASSERT_TRUE(ParseApiAddress("8080", &a).ok());
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 8080);
  EXPECT_TRUE(a.loopback);
  ASSERT_TRUE(ParseApiAddress(":0", &a).ok());
  EXPECT_EQ(a.port, 0);
  ASSERT_TRUE(ParseApiAddress("localhost:9", &a).ok());
  EXPECT_TRUE(a.loopback);
  ASSERT_TRUE(ParseApiAddress("127.1.2.3:9", &a).ok());
  EXPECT_TRUE(a.loopback);
  ASSERT_TRUE(ParseApiAddress("[::1]:9", &a).ok());
  EXPECT_EQ(a.host, "::1");
  EXPECT_TRUE(a.loopback);
  ASSERT_TRUE(ParseApiAddress("0.0.0.0:9", &a).ok());
  EXPECT_FALSE(a.loopback);
  ASSERT_TRUE(ParseApiAddress("[::]:9", &a).ok());
  EXPECT_FALSE(a.loopback);
  ASSERT_TRUE(ParseApiAddress("10.1.2.3:80", &a).ok());
  EXPECT_FALSE(a.loopback);
  for (const char* bad : {"", "x", "host.example:80", "1.2.3.4:", "1.2.3.4:65536", "::1:80",
                          "[::1]", "[::1]80", "1.2.3.4:-1"}) {
    EXPECT_EQ(ParseApiAddress(bad, &a).code(), ErrorCode::kInvalidArgument) << bad;
  }
}

TEST(ApiOpenTest, NonLoopbackNeedsAToken) {
  TestSlots slots(1);
  std::unique_ptr<HttpApi> server;
  Error err = HttpApi::Open("0.0.0.0:0", "", slots, &server);
  EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(err.message().find("a bearer token is required"), std::string::npos) << err.message();
  EXPECT_EQ(server, nullptr);
  EXPECT_EQ(HttpApi::Open("0.0.0.0:0", "/nonexistent/token", slots, &server).code(),
            ErrorCode::kInvalidArgument);
}

TEST(ApiOpenTest, PortInUse) {
  TestSlots slots(1);
  std::unique_ptr<HttpApi> first, second;
  ASSERT_TRUE(HttpApi::Open("127.0.0.1:0", "", slots, &first).ok());
  EXPECT_EQ(HttpApi::Open("127.0.0.1:" + std::to_string(first->port()), "", slots, &second).code(),
            ErrorCode::kIo);
}

}  // namespace
}  // namespace tether::worker::api
