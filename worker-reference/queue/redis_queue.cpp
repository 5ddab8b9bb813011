#include "queue/redis_queue.hpp"

#include <fcntl.h>
#include <hiredis/hiredis.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>

#include "runtime/wake_fd.hpp"
#include "tether/io/read_file.hpp"

namespace tether::worker::queue {

namespace {

// Acknowledges a job: the first result wins; the claim is dropped either way,
// and so is a cancel asked for it (it is answered).
// KEYS: job hash, processing list, cancel key. ARGV: result, id.
const char kFinishScript[] = R"lua(
if redis.call('HEXISTS', KEYS[1], 'result') == 0 then
  redis.call('HSET', KEYS[1], 'result', ARGV[1])
end
redis.call('LREM', KEYS[2], 0, ARGV[2])
redis.call('DEL', KEYS[3])
return 1
)lua";

// Recovers a dead worker's claims (or does nothing if its heartbeat lives).
// KEYS: its heartbeat, the workers hash, the queue. ARGV: worker, number of
// lists, processing-list prefix, job-hash prefix, and "own" when a worker
// restarted under its name takes back its predecessor's claims (its own
// heartbeat is then alive, and it stays registered).
const char kRecoverScript[] = R"lua(
local own = ARGV[5] == 'own'
if not own and redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local moved = 0
for i = 0, tonumber(ARGV[2]) - 1 do
  local list = ARGV[3] .. i
  while true do
    local id = redis.call('RPOP', list)
    if not id then break end
    if redis.call('HEXISTS', ARGV[4] .. id, 'result') == 0 then
      redis.call('RPUSH', KEYS[3], id)
      moved = moved + 1
    end
  end
end
if not own then redis.call('HDEL', KEYS[2], ARGV[1]) end
return moved
)lua";

// Starts a claim: counts the attempt and names the worker, unless the job
// already has its result (then only its ack was lost). KEYS: job hash.
// ARGV: worker. Returns {attempts, spec or "", result or ""}.
const char kClaimScript[] = R"lua(
local result = redis.call('HGET', KEYS[1], 'result')
if result then return {0, '', result} end
local attempts = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
redis.call('HSET', KEYS[1], 'worker', ARGV[1])
return {attempts, redis.call('HGET', KEYS[1], 'spec') or ''}
)lua";

// Puts a claim back at the head of the queue (a Pop that lost to shutdown).
// KEYS: processing list, queue. ARGV: id.
const char kUnclaimScript[] = R"lua(
if redis.call('LREM', KEYS[1], 0, ARGV[1]) > 0 then redis.call('RPUSH', KEYS[2], ARGV[1]) end
return 1
)lua";

void SleepCtx(const Context& ctx, std::chrono::milliseconds d) {
  runtime::PollWithContext(ctx, nullptr, 0, static_cast<int>(d.count()));
}

// The job kClaimScript's reply ({attempts, spec}) holds for the job hash
// `hash`, or why it cannot run (*job keeps its id and attempts either way).
Error DecodeClaimed(const RedisConnection::Reply& r, const std::string& hash, JobRecord* job) {
  const int attempts = r.elements.size() == 2 ? std::atoi(r.elements[0].c_str()) : 0;
  job->attempts = attempts;
  if (r.elements.size() != 2 || r.elements[1].empty()) {
    return Error(ErrorCode::kInvalidArgument, "redis " + hash + ": corrupt: the job has no spec");
  }
  Error bad = DecodeJob(r.elements[1], "redis " + hash, job);
  job->attempts = attempts;
  return bad;
}

}  // namespace

Error ReadRedisPassword(std::string* out) {
  out->clear();
  if (const char* p = std::getenv("TETHER_REDIS_PASSWORD"); p && *p) {
    *out = p;
    return Error();
  }
  if (const char* f = std::getenv("TETHER_REDIS_PASSWORD_FILE"); f && *f) {
    // Through lib/io: a FIFO or directory is refused instead of blocking
    // the worker at start-up, and the size is capped.
    std::string text;
    if (std::optional<io::ReadError> err = io::ReadInputFile(f, &text)) {
      return Error(ErrorCode::kIo, "TETHER_REDIS_PASSWORD_FILE: " + err->ToString());
    }
    *out = text.substr(0, text.find('\n'));
    if (!out->empty() && out->back() == '\r') out->pop_back();
  }
  return Error();
}

RedisConnection::~RedisConnection() { Drop(); }

void RedisConnection::Drop() {
  if (ctx_ != nullptr) redisFree(ctx_);
  ctx_ = nullptr;
}

Error RedisConnection::Connect() {
  const std::string where = "redis " + addr_.host + ":" + std::to_string(addr_.port);
  timeval connect_timeout{2, 0};
  ++generation_;
  ctx_ = redisConnectWithTimeout(addr_.host.c_str(), addr_.port, connect_timeout);
  if (ctx_ == nullptr || ctx_->err) {
    std::string why = ctx_ ? ctx_->errstr : "out of memory";
    Drop();
    return Error(ErrorCode::kIo, "cannot reach " + where + ": " + why);
  }
  // Commands block at most BLMOVE's timeout; anything far longer is a dead server.
  timeval io_timeout{10, 0};
  redisSetTimeout(ctx_, io_timeout);
  // O_CLOEXEC is not hiredis's default: a step must not inherit the socket.
  auto setup = [&](const std::vector<std::string>& argv) -> Error {
    Reply r;
    Error err = Command(argv, &r);
    if (err.Is(ErrorCode::kFailed))
      return Error(ErrorCode::kIo, where + ": " + argv[0] + ": " + err.message());
    return err;
  };
  redisContext* c = ctx_;
  if (int fl = ::fcntl(c->fd, F_GETFD); fl >= 0) ::fcntl(c->fd, F_SETFD, fl | FD_CLOEXEC);
  if (!addr_.password.empty()) {
    if (Error err = setup({"AUTH", addr_.password}); !err.ok()) return err;
  }
  if (addr_.db != 0) {
    if (Error err = setup({"SELECT", std::to_string(addr_.db)}); !err.ok()) return err;
  }
  return Error();
}

Error RedisConnection::Command(const std::vector<std::string>& argv, Reply* reply) {
  if (ctx_ == nullptr) {
    if (Error err = Connect(); !err.ok()) return err;
  }
  std::vector<const char*> args;
  std::vector<size_t> lens;
  for (const std::string& a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* r = static_cast<redisReply*>(
      redisCommandArgv(ctx_, static_cast<int>(args.size()), args.data(), lens.data()));
  if (r == nullptr) {
    std::string why = ctx_->errstr;
    Drop();
    return Error(ErrorCode::kIo,
                 "redis " + addr_.host + ":" + std::to_string(addr_.port) + ": " + why);
  }
  *reply = Reply();
  Error err;
  switch (r->type) {
    case REDIS_REPLY_NIL:
      reply->nil = true;
      break;
    case REDIS_REPLY_INTEGER:
      reply->integer = r->integer;
      break;
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_STRING:
      reply->str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      err = Error(ErrorCode::kFailed, std::string(r->str, r->len));
      break;
    case REDIS_REPLY_ARRAY:
      for (size_t i = 0; i < r->elements; ++i) {
        redisReply* e = r->element[i];
        reply->elements.emplace_back(e->type == REDIS_REPLY_STRING || e->type == REDIS_REPLY_STATUS
                                         ? std::string(e->str, e->len)
                                     : e->type == REDIS_REPLY_INTEGER ? std::to_string(e->integer)
                                                                      : "");
      }
      break;
    default:
      break;
  }
  freeReplyObject(r);
  return err;
}

RedisQueue::RedisQueue(RedisAddress addr, QueueOptions options)
    : addr_(std::move(addr)), options_(std::move(options)), key_(options_.key) {
  name_ = options_.worker_name.empty() ? DefaultWorkerName() : options_.worker_name;
  list_busy_.assign(static_cast<std::size_t>(std::max(1, options_.slots)), false);
  list_clean_.assign(list_busy_.size(), false);
}

RedisQueue::~RedisQueue() = default;

std::unique_ptr<RedisConnection> RedisQueue::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.empty()) return std::make_unique<RedisConnection>(addr_);
  std::unique_ptr<RedisConnection> c = std::move(idle_.back());
  idle_.pop_back();
  return c;
}

void RedisQueue::Give(std::unique_ptr<RedisConnection> conn) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(conn));
}

int RedisQueue::TakeList() {
  std::lock_guard<std::mutex> lock(mu_);
  for (std::size_t i = 0; i < list_busy_.size(); ++i) {
    if (!list_busy_[i]) {
      list_busy_[i] = true;
      return static_cast<int>(i);
    }
  }
  list_busy_.push_back(true);  // more Pops than slots: still correct, recovered as well
  list_clean_.push_back(false);
  return static_cast<int>(list_busy_.size() - 1);
}

void RedisQueue::GiveList(int list) {
  std::lock_guard<std::mutex> lock(mu_);
  list_busy_[static_cast<std::size_t>(list)] = false;
}

std::string RedisQueue::ProcList(int list) const {
  return key_ + ":proc:" + name_ + ":" + std::to_string(list);
}

Error RedisQueue::Open() {
  RedisConnection::Reply r;
  std::unique_ptr<RedisConnection> conn = Take();
  Error err = conn->Command({"PING"}, &r);
  if (err.Is(ErrorCode::kFailed))
    err = Error(ErrorCode::kIo,
                "redis " + addr_.host + ":" + std::to_string(addr_.port) + ": " + err.message());
  if (err.ok()) Give(std::move(conn));
  return err;
}

Error RedisQueue::Retry(const Context& ctx, RedisConnection& conn,
                        const std::vector<std::string>& argv, RedisConnection::Reply* reply) {
  auto backoff = std::chrono::milliseconds(100);
  for (;;) {
    Error err = conn.Command(argv, reply);
    // A Redis that is starting (LOADING its append-only file) or busy
    // answers with an error that passes: retried like a lost connection.
    const bool transient =
        err.Is(ErrorCode::kFailed) &&
        (err.message().rfind("LOADING", 0) == 0 || err.message().rfind("BUSY", 0) == 0 ||
         err.message().rfind("TRYAGAIN", 0) == 0 || err.message().rfind("MASTERDOWN", 0) == 0);
    if (!err.Is(ErrorCode::kIo) && !transient) {
      std::lock_guard<std::mutex> lock(mu_);
      if (warned_ && err.ok()) {
        std::cerr << "tether-worker: redis " << addr_.host << ":" << addr_.port
                  << " reachable again\n";
        warned_ = false;
      }
      return err;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!warned_) std::cerr << "tether-worker: " << err.message() << "; retrying\n";
      warned_ = true;
    }
    if (!ctx.Err().ok()) return err;
    SleepCtx(ctx, backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
  }
}

Error RedisQueue::Submit(const JobSpec& spec, std::string* id) {
  JobRecord job;
  job.id = NewJobId(spec.pipeline_file);
  job.spec = spec;
  job.submitted = WallClock::now();
  std::unique_ptr<RedisConnection> conn = Take();
  RedisConnection::Reply r;
  // One transaction: the hash and the queue entry appear together.
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"MULTI"},
        {"HSET", key_ + ":job:" + job.id, "spec", EncodeJob(job), "attempts", "0"},
        {"LPUSH", key_, job.id},
        {"EXEC"}}) {
    if (Error err = conn->Command(argv, &r); !err.ok()) {
      return err.Is(ErrorCode::kIo)
                 ? err
                 : Error(ErrorCode::kIo, "redis: " + argv[0] + ": " + err.message());
    }
  }
  Give(std::move(conn));
  *id = job.id;
  return Error();
}

Error RedisQueue::Status(const std::string& id, JobStatus* out, bool* found) {
  *found = false;
  std::unique_ptr<RedisConnection> conn = Take();
  RedisConnection::Reply r;
  const std::string hash = key_ + ":job:" + id;
  if (Error err = conn->Command({"HMGET", hash, "spec", "attempts", "worker", "result"}, &r);
      !err.ok())
    return err;
  Give(std::move(conn));
  if (r.elements.size() != 4 || (r.elements[0].empty() && r.elements[3].empty())) return Error();
  *found = true;
  const std::string where = "redis " + hash;
  if (!r.elements[3].empty()) {
    Error err = DecodeResult(r.elements[3], where, out);
    // The result counts the claims of the worker that acknowledged first;
    // after a stale ack (a worker thought dead whose job was claimed again)
    // the hash has counted the later claims too.
    if (err.ok()) out->attempts = std::max(out->attempts, std::atoi(r.elements[1].c_str()));
    return err;
  }
  JobRecord job;
  if (Error err = DecodeJob(r.elements[0], where, &job); !err.ok()) return err;
  out->id = id;
  out->pipeline_file = job.spec.pipeline_file;
  out->attempts = std::atoi(r.elements[1].c_str());
  out->worker = r.elements[2];
  out->state = out->attempts > 0 ? "running" : "queued";
  if (out->attempts > 0) {
    // Claimed once, but back in the queue (its worker died)?
    RedisConnection::Reply pos;
    std::unique_ptr<RedisConnection> c2 = Take();
    if (c2->Command({"LPOS", key_, id}, &pos).ok()) {
      Give(std::move(c2));
      if (!pos.nil) out->state = "queued";
    }
  }
  return Error();
}

Error RedisQueue::ClaimName(RedisConnection& conn) {
  const std::string hb = key_ + ":hb:" + name_;
  const long long ttl_ms = std::max(
      1LL,
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(options_.heartbeat_ttl).count()));
  RedisConnection::Reply r;
  std::string seen;  // the holder's last beat
  auto deadline = std::chrono::steady_clock::now();
  bool warned = false;
  for (;;) {
    if (Error err =
            conn.Command({"SET", hb, token_ + ":0", "NX", "PX", std::to_string(ttl_ms)}, &r);
        !err.ok()) {
      return err;
    }
    if (!r.nil) return Error();  // the name is ours
    // A heartbeat of this name is fresh: a live worker renews it within a
    // third of its TTL, a dead one's expires. Watch until one of the two.
    if (Error err = conn.Command({"GET", hb}, &r); !err.ok()) return err;
    if (r.nil) continue;
    if (seen.empty()) {
      seen = r.str;
      RedisConnection::Reply ttl;
      if (Error err = conn.Command({"PTTL", hb}, &ttl); !err.ok()) return err;
      deadline = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(std::max(0LL, ttl.integer) + 500);
    } else if (r.str != seen || std::chrono::steady_clock::now() > deadline) {
      return Error(ErrorCode::kIo, "worker name " + name_ +
                                       " is in use: a live worker renews its heartbeat " + hb +
                                       "; give each worker its own --worker-name");
    }
    if (!warned) {
      std::cerr << "tether-worker: worker " << name_
                << " has a fresh heartbeat; waiting for it to expire (a dead "
                << "worker) or be renewed (a live one)\n";
      warned = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Error RedisQueue::Register() {
  std::unique_ptr<RedisConnection> conn = Take();
  if (Error err = ClaimName(*conn); !err.ok()) return err;
  // A predecessor of this name that died (SIGKILL) may have left claims in
  // its processing lists, more of them than we have slots: back to the queue.
  RedisConnection::Reply r;
  if (Error err = conn->Command({"HGET", key_ + ":workers", name_}, &r); !err.ok()) return err;
  const int lists = std::max(options_.slots, r.nil ? 0 : std::atoi(r.str.c_str()));
  if (Error err = conn->Command(
          {"EVAL", kRecoverScript, "3", key_ + ":hb:" + name_, key_ + ":workers", key_, name_,
           std::to_string(lists), key_ + ":proc:" + name_ + ":", key_ + ":job:", "own"},
          &r);
      !err.ok()) {
    return err;
  }
  if (r.integer > 0) {
    std::cerr << "tether-worker: recovered " << r.integer << " job(s) of dead worker " << name_
              << " (this worker's name, before a restart)\n";
  }
  if (Error err = Heartbeat(*conn); !err.ok()) return err;
  RecoverDead(*conn);
  Give(std::move(conn));
  return Error();
}

int RedisQueue::RecoverDead(RedisConnection& conn) {
  RedisConnection::Reply all;
  if (!conn.Command({"HGETALL", key_ + ":workers"}, &all).ok()) return 0;
  int moved = 0;
  for (std::size_t i = 0; i + 1 < all.elements.size(); i += 2) {
    const std::string& worker = all.elements[i];
    if (worker == name_) continue;
    RedisConnection::Reply r;
    Error err =
        conn.Command({"EVAL", kRecoverScript, "3", key_ + ":hb:" + worker, key_ + ":workers", key_,
                      worker, all.elements[i + 1], key_ + ":proc:" + worker + ":", key_ + ":job:"},
                     &r);
    if (err.ok() && r.integer > 0) {
      std::cerr << "tether-worker: recovered " << r.integer << " job(s) of dead worker " << worker
                << "\n";
      moved += static_cast<int>(r.integer);
    }
  }
  return moved;
}

Error RedisQueue::Serve(const Context& ctx) {
  RedisConnection conn(addr_);
  auto period = std::chrono::duration_cast<std::chrono::milliseconds>(options_.heartbeat_ttl) / 3;
  if (period < std::chrono::milliseconds(50)) period = std::chrono::milliseconds(50);
  while (ctx.Err().ok()) {
    bool lost = false;
    Error beat = Heartbeat(conn, &lost);
    // Another worker holds this name now (this one was stalled past its
    // TTL): stop taking builds, and leave its heartbeat alone.
    if (lost) return beat;
    if (beat.ok()) RecoverDead(conn);
    SleepCtx(ctx, period);
  }
  // A clean exit: the heartbeat goes now, not a TTL later. Claims are acked.
  RedisConnection::Reply r;
  conn.Command({"DEL", key_ + ":hb:" + name_}, &r);
  conn.Command({"HDEL", key_ + ":workers", name_}, &r);
  return Error();
}

Error RedisQueue::Pop(const Context& ctx, std::optional<BuildItem>* out) {
  out->reset();
  std::unique_ptr<RedisConnection> conn = Take();
  const int list = TakeList();
  const std::string proc = ProcList(list);
  // An error while ctx is done is the shutdown's; any other ends the worker
  // (after the retries: Redis answers, but not as a queue should).
  Error result;
  auto failed = [&](const Error& err) {
    if (ctx.Err().ok()) result = err;
  };
  // Whether the processing list is known to be empty: not after a lost
  // connection (a BLMOVE may have moved a job whose reply was lost) or a
  // failed ack; then LINDEX looks before BLMOVE takes another.
  bool clean;
  {
    std::lock_guard<std::mutex> lock(mu_);
    clean = list_clean_[static_cast<std::size_t>(list)];
  }
  while (ctx.Err().ok()) {
    RedisConnection::Reply r;
    std::string id;
    if (!clean) {
      if (Error err = Retry(ctx, *conn, {"LINDEX", proc, "-1"}, &r); !err.ok()) {
        failed(err);
        break;
      }
      if (!r.nil) id = r.str;  // a claim of ours that no one acked: run it
      clean = r.nil;
    }
    if (id.empty()) {
      const std::uint64_t connection = conn->generation();
      if (Error err = Retry(ctx, *conn, {"BLMOVE", key_, proc, "RIGHT", "LEFT", "0.5"}, &r);
          !err.ok()) {
        failed(err);
        clean = false;
        break;
      }
      if (conn->generation() != connection) clean = false;
      if (r.nil) continue;
      id = r.str;
      if (!ctx.Err().ok()) {
        // Shutdown began while we waited: leave the job to another worker.
        if (!conn->Command({"EVAL", kUnclaimScript, "2", proc, key_, id}, &r).ok()) clean = false;
        break;
      }
    }
    const std::string hash = key_ + ":job:" + id;
    if (Error err = Retry(ctx, *conn, {"EVAL", kClaimScript, "1", hash, name_}, &r); !err.ok()) {
      failed(err);
      clean = false;
      break;
    }
    if (r.elements.size() == 3) {
      // It already has its result: only the ack was lost.
      if (!conn->Command({"LREM", proc, "0", id}, &r).ok()) clean = false;
      continue;
    }
    JobRecord job;
    job.id = id;
    Error bad = DecodeClaimed(r, hash, &job);
    BuildItem item;
    if (bad.ok()) bad = MakeItem(id, job.spec, &item);
    if (bad.ok()) {
      item.submitted = job.submitted;
      item.attempt = job.attempts;
      {
        std::lock_guard<std::mutex> lock(mu_);
        claims_.push_back({id, list, clean});
      }
      *out = std::move(item);
      Give(std::move(conn));
      return Error();  // the list stays taken until Finish
    }
    std::cerr << "tether-worker: job " << id << ": " << bad.message() << "\n";
    JobResult res;
    res.status = BuildStatus::kError;
    res.reason = bad.message();
    res.worker = name_;
    res.finished = WallClock::now();
    if (job.spec.pipeline_file.empty()) job.spec.pipeline_file = "?";
    if (!Retry(ctx, *conn, {"EVAL", kFinishScript, "2", hash, proc, EncodeResult(job, res), id}, &r)
             .ok()) {
      clean = false;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    list_clean_[static_cast<std::size_t>(list)] = clean;
  }
  GiveList(list);
  Give(std::move(conn));
  return result;
}

Error RedisQueue::Finish(const Context& ctx, const BuildItem& item, const JobResult& result) {
  int list = -1;
  bool clean = false;  // the list held nothing else when the job was claimed
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find_if(claims_.begin(), claims_.end(),
                           [&](const Claim& c) { return c.id == item.id; });
    if (it == claims_.end())
      return Error(ErrorCode::kInvalidArgument, "redis: finish of unclaimed job " + item.id);
    list = it->list;
    clean = it->clean;
    claims_.erase(it);
  }
  JobRecord job;
  job.id = item.id;
  job.spec.pipeline_file = item.pipeline.file;
  job.attempts = item.attempt;
  std::unique_ptr<RedisConnection> conn = Take();
  RedisConnection::Reply r;
  Error err = Retry(ctx, *conn,
                    {"EVAL", kFinishScript, "3", key_ + ":job:" + item.id, ProcList(list),
                     key_ + ":cancel:" + item.id, EncodeResult(job, result), item.id},
                    &r);
  Give(std::move(conn));
  // On failure the claim stays in the list: the next Pop on it sees the
  // missing result and reruns the job (at least once).
  {
    std::lock_guard<std::mutex> lock(mu_);
    list_clean_[static_cast<std::size_t>(list)] = err.ok() && clean;
  }
  GiveList(list);
  return err;
}

}  // namespace tether::worker::queue
