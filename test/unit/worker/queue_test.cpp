// The durable queues under concurrency: several workers (each its own Queue,
// as separate processes would have) claim from one spool or one real
// redis-server at once; every job is claimed once and gets one result; a
// worker that disappears without acknowledging has its claims recovered.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "cmd/worker.hpp"
#include "queue/queue.hpp"
#include "queue/redis_queue.hpp"
#include "queue/spool_queue.hpp"

namespace tether::worker::queue {
namespace {

const char kPipeline[] = "version: \"1\"\nsteps:\n  - name: s\n    image: alpine\n    commands:\n      - \"true\"\n";

std::string TempDir() {
  std::string templ = std::filesystem::temp_directory_path().string() + "/tether-queue-test-XXXXXX";
  EXPECT_NE(::mkdtemp(templ.data()), nullptr);
  return templ;
}

JobSpec Spec(const std::string& name) { return JobSpec{name + ".yml", kPipeline}; }

JobResult Result(const std::string& worker) {
  JobResult r;
  r.status = BuildStatus::kSuccess;
  r.worker = worker;
  r.finished = WallClock::now();
  return r;
}

// Each of `workers` threads pops and finishes until every job has a result.
void Drain(std::vector<std::unique_ptr<Queue>>& queues, std::size_t jobs, std::map<std::string, int>* claims) {
  std::mutex mu;
  std::atomic<std::size_t> finished{0};
  std::vector<std::thread> threads;
  for (auto& q : queues) {
    threads.emplace_back([&, qp = q.get()] {
      while (finished.load() < jobs) {
        auto [ctx, cancel] = WithTimeout(Background(), std::chrono::milliseconds(300));
        std::optional<BuildItem> item;
        Error err = qp->Pop(ctx, &item);
        cancel();
        ASSERT_TRUE(err.ok()) << err.ToString();
        if (!item) continue;
        {
          std::lock_guard<std::mutex> lock(mu);
          ++(*claims)[item->id];
        }
        ASSERT_TRUE(qp->Finish(Background(), *item, Result(qp->worker_name())).ok());
        ++finished;
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

// 60 jobs, 4 workers made by make_worker(i) in threads: each job claimed once, all done.
template <typename MakeWorker>
void SubmitDrainAndCheck(Queue& submitter, MakeWorker make_worker) {
  std::set<std::string> ids;
  for (int i = 0; i < 60; ++i) {
    std::string id;
    ASSERT_TRUE(submitter.Submit(Spec("job"), &id).ok());
    ids.insert(id);
  }
  std::vector<std::unique_ptr<Queue>> workers;
  for (int i = 0; i < 4; ++i) {
    workers.push_back(make_worker(i));
    ASSERT_TRUE(workers.back()->Register().ok());
  }
  std::map<std::string, int> claims;
  Drain(workers, ids.size(), &claims);
  EXPECT_EQ(claims.size(), ids.size());
  for (const auto& [id, n] : claims) EXPECT_EQ(n, 1) << id;
  for (const std::string& id : ids) {
    JobStatus st;
    bool found = false;
    ASSERT_TRUE(submitter.Status(id, &st, &found).ok());
    EXPECT_TRUE(found);
    EXPECT_EQ(st.state, "done") << id;
  }
}

TEST(SpoolQueue, ConcurrentWorkersClaimEachJobOnce) {
  const std::string root = TempDir();
  QueueOptions options;
  auto submitter = std::make_unique<SpoolQueue>(root, options);
  ASSERT_TRUE(submitter->Open().ok());
  SubmitDrainAndCheck(*submitter, [&](int i) {
    options.worker_name = "w" + std::to_string(i);
    return std::make_unique<SpoolQueue>(root, options);
  });
  std::filesystem::remove_all(root);
}

TEST(SpoolQueue, DeadWorkersClaimsAreRecoveredWithTheSameId) {
  const std::string root = TempDir();
  QueueOptions options;
  options.worker_name = "dying";
  auto dying = std::make_unique<SpoolQueue>(root, options);
  ASSERT_TRUE(dying->Register().ok());
  std::string id;
  ASSERT_TRUE(dying->Submit(Spec("crash"), &id).ok());
  std::optional<BuildItem> item;
  ASSERT_TRUE(dying->Pop(Background(), &item).ok());
  ASSERT_TRUE(item.has_value());
  EXPECT_EQ(item->attempt, 1);

  options.worker_name = "survivor";
  SpoolQueue survivor(root, options);
  ASSERT_TRUE(survivor.Register().ok());
  EXPECT_EQ(survivor.RecoverDead(), 0) << "a live worker's claims are not taken";
  dying.reset();  // the process "dies": its lock is released, no ack
  EXPECT_EQ(survivor.RecoverDead(), 1);
  std::optional<BuildItem> again;
  ASSERT_TRUE(survivor.Pop(Background(), &again).ok());
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->id, id);
  EXPECT_EQ(again->attempt, 2);
  ASSERT_TRUE(survivor.Finish(Background(), *again, Result("survivor")).ok());
  JobStatus st;
  bool found = false;
  ASSERT_TRUE(survivor.Status(id, &st, &found).ok());
  EXPECT_EQ(st.state, "done");
  EXPECT_EQ(st.attempts, 2);
  EXPECT_EQ(st.worker, "survivor");
  std::filesystem::remove_all(root);
}

TEST(SpoolQueue, PopReturnsWhenItsContextIsDone) {
  const std::string root = TempDir();
  SpoolQueue q(root, QueueOptions());
  ASSERT_TRUE(q.Register().ok());
  auto [ctx, cancel] = WithCancel(Background());
  std::thread canceler([c = cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    c();
  });
  std::optional<BuildItem> item;
  EXPECT_TRUE(q.Pop(ctx, &item).ok());
  EXPECT_FALSE(item.has_value());
  canceler.join();
  std::filesystem::remove_all(root);
}

// A redis-server of the test's own on a free loopback port.
class RedisQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v redis-server >/dev/null 2>&1") != 0) GTEST_SKIP() << "no redis-server";
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    addr_.port = ntohs(a.sin_port);
    ::close(s);
    dir_ = TempDir();
    pid_ = ::fork();
    if (pid_ == 0) {
      const std::string port = std::to_string(addr_.port);
      ::execlp("redis-server", "redis-server", "--port", port.c_str(), "--bind", "127.0.0.1", "--dir", dir_.c_str(),
               "--save", "", "--appendonly", "no", "--logfile", (dir_ + "/log").c_str(), nullptr);
      ::_exit(127);
    }
    for (int i = 0; i < 200; ++i) {
      RedisConnection c(addr_);
      RedisConnection::Reply r;
      if (c.Command({"PING"}, &r).ok()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    FAIL() << "redis-server did not start";
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::unique_ptr<RedisQueue> Worker(const std::string& name, Duration ttl = std::chrono::seconds(30)) {
    QueueOptions options;
    options.key = "test";
    options.worker_name = name;
    options.heartbeat_ttl = ttl;
    auto q = std::make_unique<RedisQueue>(addr_, options);
    EXPECT_TRUE(q->Open().ok());
    return q;
  }

  RedisAddress addr_;
  std::string dir_;
  pid_t pid_ = -1;
};

TEST_F(RedisQueueTest, ConcurrentWorkersClaimEachJobOnce) {
  auto submitter = Worker("submitter");
  SubmitDrainAndCheck(*submitter, [&](int i) { return Worker("w" + std::to_string(i)); });
}

TEST_F(RedisQueueTest, ExpiredHeartbeatsClaimsAreRecoveredOnceAndTheFirstResultWins) {
  // "silent" claims a job, then stops sending heartbeats (as a worker cut
  // off from Redis, or dead) without acknowledging it.
  auto silent = Worker("silent", std::chrono::milliseconds(200));
  ASSERT_TRUE(silent->Register().ok());
  std::string id;
  ASSERT_TRUE(silent->Submit(Spec("crash"), &id).ok());
  std::optional<BuildItem> item;
  ASSERT_TRUE(silent->Pop(Background(), &item).ok());
  ASSERT_TRUE(item.has_value());

  auto a = Worker("a");
  auto b = Worker("b");
  ASSERT_TRUE(a->Register().ok());
  ASSERT_TRUE(b->Register().ok());
  RedisConnection conn(addr_);
  EXPECT_EQ(a->RecoverDead(conn), 0) << "the heartbeat has not expired yet";
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  RedisConnection conn2(addr_);
  int ra = 0, rb = 0;
  std::thread ta([&] { ra = a->RecoverDead(conn); });
  std::thread tb([&] { rb = b->RecoverDead(conn2); });
  ta.join();
  tb.join();
  EXPECT_EQ(ra + rb, 1) << "exactly one recoverer requeues the job";
  std::optional<BuildItem> again;
  ASSERT_TRUE(b->Pop(Background(), &again).ok());
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->id, id);
  EXPECT_EQ(again->attempt, 2);
  ASSERT_TRUE(b->Finish(Background(), *again, Result("b")).ok());
  // The silent worker comes back and acknowledges its run late: the job
  // keeps its first result (at least once, one terminal result).
  ASSERT_TRUE(silent->Finish(Background(), *item, Result("silent")).ok());
  JobStatus st;
  bool found = false;
  ASSERT_TRUE(b->Status(id, &st, &found).ok());
  EXPECT_EQ(st.state, "done");
  EXPECT_EQ(st.worker, "b");
}

TEST_F(RedisQueueTest, AClaimWhoseReplyWasLostIsRunByItsWorker) {
  auto w = Worker("w");
  ASSERT_TRUE(w->Register().ok());
  std::string lost, next;
  ASSERT_TRUE(w->Submit(Spec("lost"), &lost).ok());
  // The BLMOVE happened on the server; its reply never reached the worker.
  RedisConnection conn(addr_);
  RedisConnection::Reply r;
  ASSERT_TRUE(conn.Command({"LMOVE", "test", "test:proc:w:0", "RIGHT", "LEFT"}, &r).ok());
  ASSERT_EQ(r.str, lost);
  ASSERT_TRUE(w->Submit(Spec("next"), &next).ok());
  std::optional<BuildItem> item;
  ASSERT_TRUE(w->Pop(Background(), &item).ok());
  ASSERT_TRUE(item.has_value());
  EXPECT_EQ(item->id, lost);
  ASSERT_TRUE(w->Finish(Background(), *item, Result("w")).ok());
  ASSERT_TRUE(w->Pop(Background(), &item).ok());
  ASSERT_TRUE(item.has_value());
  EXPECT_EQ(item->id, next);
  ASSERT_TRUE(w->Finish(Background(), *item, Result("w")).ok());
  ASSERT_TRUE(conn.Command({"LLEN", "test:proc:w:0"}, &r).ok());
  EXPECT_EQ(r.integer, 0);
}

}  // namespace
}  // namespace tether::worker::queue

namespace tether::worker::cmd {
namespace {

TEST(RunningBuilds, CancelTargetsTheSlotsBuild) {
  RunningBuilds builds(2);
  auto [ctx, cancel] = WithCancel(Background());
  api::SlotInfo info;
  info.slot = 1;
  info.build_id = "b-1";
  builds.Begin(info, cancel, [] {});
  std::vector<api::SlotInfo> slots = builds.Slots();
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_FALSE(slots[0].busy);
  EXPECT_TRUE(slots[1].busy);
  EXPECT_EQ(slots[1].build_id, "b-1");
  std::string id;
  EXPECT_EQ(builds.Cancel(0, &id), api::WorkerControl::CancelResult::kIdle);
  EXPECT_EQ(builds.Cancel(2, &id), api::WorkerControl::CancelResult::kNoSuchSlot);
  EXPECT_EQ(builds.Cancel(-1, &id), api::WorkerControl::CancelResult::kNoSuchSlot);
  EXPECT_TRUE(ctx.Err().ok());
  EXPECT_EQ(builds.Cancel(1, &id), api::WorkerControl::CancelResult::kCanceled);
  EXPECT_EQ(id, "b-1");
  EXPECT_FALSE(ctx.Err().ok());
  builds.End(1);
  EXPECT_EQ(builds.Cancel(1, &id), api::WorkerControl::CancelResult::kIdle) << "a finished build cannot be cancelled";
}

TEST(RunningBuilds, ABuildBegunAfterCancelAllIsCanceledAtOnce) {
  RunningBuilds builds(1);
  builds.CancelAll();
  auto [ctx, cancel] = WithCancel(Background());
  api::SlotInfo info;
  builds.Begin(info, cancel, [] {});
  EXPECT_FALSE(ctx.Err().ok());
  builds.End(0);
}

TEST(RunningBuilds, ConcurrentBeginEndCancelAndSlots) {
  RunningBuilds builds(4);
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int s = 0; s < 4; ++s) {
    threads.emplace_back([&, s] {
      for (int i = 0; i < 500; ++i) {
        auto [ctx, cancel] = WithCancel(Background());
        api::SlotInfo info;
        info.slot = s;
        info.build_id = "b" + std::to_string(i);
        builds.Begin(info, cancel, [] {});
        builds.End(s);
        cancel();
      }
    });
  }
  std::thread api([&] {
    while (!stop.load()) {
      std::string id;
      for (int s = 0; s < 4; ++s) builds.Cancel(s, &id);
      builds.Slots();
    }
  });
  for (std::thread& t : threads) t.join();
  stop = true;
  api.join();
  for (const api::SlotInfo& s : builds.Slots()) EXPECT_FALSE(s.busy);
}

}  // namespace
}  // namespace tether::worker::cmd
