// `--queue redis://HOST:PORT/DB --queue-key KEY`: one Redis shared by a fleet
// of workers on many machines (hiredis). Keys, for KEY = "tether":
//
//   tether                       the pending job ids (submit LPUSHes, workers BLMOVE from the
//   right) tether:job:<id>              hash: spec (the job, JSON), attempts, worker, result (JSON,
//   set once) tether:proc:<worker>:<n>     processing list n of a worker: the job it claimed and
//   has not acked tether:workers               hash: worker -> how many processing lists it has
//   tether:hb:<worker>           the worker's heartbeat, with a TTL (--heartbeat-ttl)
//   tether:cancel:<id>           a cancel asked for a running job (a day's TTL; deleted at its ack)
//
// Claim: BLMOVE tether -> a free processing list of this worker (unlike
// Vela's BLPOP, the job is never only in the worker's memory). Ack (Finish):
// one script sets `result` unless it is set already (one terminal result per
// job) and LREMs the id. Recovery: a worker whose heartbeat expired has its
// processing lists moved back to the head of the queue, by a script, so two
// recoverers cannot both requeue a job. Names: Register takes the name with
// SET NX of its heartbeat and refuses it while a live worker renews that
// heartbeat; a worker restarted under its own name after a crash waits for
// the dead heartbeat to expire, then requeues its predecessor's claims. A claim whose reply was
// lost (the connection dropped inside BLMOVE) is found in the list on the next Pop and run. A
// worker that cannot reach Redis retries with backoff (100 ms doubling to 2 s); if that outlasts
// its heartbeat TTL its jobs may be recovered and run again elsewhere: at least once, never lost.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "queue/job.hpp"
#include "queue/queue.hpp"

struct redisContext;

namespace tether::worker::queue {

struct RedisAddress {
  std::string host = "127.0.0.1";
  int port = 6379;
  int db = 0;
  std::string password;  // from TETHER_REDIS_PASSWORD(_FILE); empty: no AUTH
};

// The password from TETHER_REDIS_PASSWORD, else the first line of the file
// named by TETHER_REDIS_PASSWORD_FILE, else none. kIo when the file cannot be read.
Error ReadRedisPassword(std::string* out);

// One hiredis connection (not thread-safe: one user at a time). It connects
// lazily and drops itself on an I/O error, so the next command reconnects.
class RedisConnection {
 public:
  explicit RedisConnection(RedisAddress addr) : addr_(std::move(addr)) {}
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // A reply, flattened: nil, an integer, a string (status or bulk), an array
  // of strings, or a Redis error (kFailed with its text). Transport problems are kIo.
  struct Reply {
    bool nil = false;
    long long integer = 0;
    std::string str;
    std::vector<std::string> elements;  // nil elements are ""
  };
  Error Command(const std::vector<std::string>& argv, Reply* reply);
  void Drop();
  // Counts connections made: a change means the last one was lost.
  std::uint64_t generation() const { return generation_; }

 private:
  Error Connect();
  RedisAddress addr_;
  redisContext* ctx_ = nullptr;
  std::uint64_t generation_ = 0;
};

class RedisQueue : public Queue {
 public:
  RedisQueue(RedisAddress addr, QueueOptions options);
  ~RedisQueue() override;

  // Connects once (PING): kIo naming the address when Redis is unreachable.
  Error Open();

  Error Submit(const JobSpec& job, std::string* id) override;
  Error Status(const std::string& id, JobStatus* out, bool* found) override;
  // redis_cancel.cpp
  Error Cancel(const std::string& id, CancelOutcome* out) override;
  bool CancelRequested(const std::string& id) override;
  Error Register() override;
  // The heartbeat and the recovery of dead workers, every TTL/3 until ctx is done.
  Error Serve(const Context& ctx) override;
  const std::string& worker_name() const override { return name_; }
  Error Pop(const Context& ctx, std::optional<BuildItem>* out) override;
  Error Finish(const Context& ctx, const BuildItem& item, const JobResult& result) override;

  // Requeues the claims of workers whose heartbeat expired. Returns how many.
  int RecoverDead(RedisConnection& conn);

 private:
  struct Claim {
    std::string id;
    int list = -1;
    bool clean = false;  // the list held nothing else
  };
  // Runs argv on conn, retrying transport errors with backoff until ctx is done.
  Error Retry(const Context& ctx, RedisConnection& conn, const std::vector<std::string>& argv,
              RedisConnection::Reply* reply);
  std::unique_ptr<RedisConnection> Take();
  void Give(std::unique_ptr<RedisConnection> conn);
  int TakeList();
  void GiveList(int list);
  std::string ProcList(int list) const;
  // redis_heartbeat.cpp. *lost (if given): another worker holds this name now.
  Error Heartbeat(RedisConnection& conn, bool* lost = nullptr);
  // Takes this worker's name: SET NX of its heartbeat. A fresh heartbeat of
  // the name is watched until it expires (its worker died: the name is ours)
  // or is renewed (kIo: a live worker holds the name).
  Error ClaimName(RedisConnection& conn);

  const RedisAddress addr_;
  const QueueOptions options_;
  const std::string key_;
  std::string name_;
  const std::string token_ = RandomTag();  // this process's heartbeat values: token_:N
  std::atomic<std::uint64_t> beats_{0};    // heartbeats sent (Register, then the Serve task)

  std::mutex mu_;
  std::vector<std::unique_ptr<RedisConnection>> idle_;  // guarded by mu_
  std::vector<bool> list_busy_;                         // guarded by mu_
  std::vector<bool> list_clean_;                        // guarded by mu_: known empty
  std::vector<Claim> claims_;                           // guarded by mu_
  bool warned_ = false;                                 // guarded by mu_
};

}  // namespace tether::worker::queue
