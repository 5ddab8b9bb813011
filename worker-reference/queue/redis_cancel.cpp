// Cancels on a Redis queue (redis_queue.hpp): a queued job is taken out of
// the queue and given its `canceled` result in one script, so no worker can
// claim it after; a running one gets a cancel key that its worker polls for.
#include <memory>

#include "queue/job.hpp"
#include "queue/redis_queue.hpp"

namespace tether::worker::queue {

namespace {

// KEYS: job hash, queue, cancel key. ARGV: the canceled result, id.
// Returns "done", "queued" or "running".
const char kCancelScript[] = R"lua(
if redis.call('HEXISTS', KEYS[1], 'result') == 1 then return 'done' end
if redis.call('LREM', KEYS[2], 0, ARGV[2]) > 0 then
  redis.call('HSET', KEYS[1], 'result', ARGV[1])
  return 'queued'
end
redis.call('SET', KEYS[3], '1', 'EX', 86400)
return 'running'
)lua";

}  // namespace

Error RedisQueue::Cancel(const std::string& id, CancelOutcome* out) {
  *out = CancelOutcome::kNoSuchJob;
  JobStatus status;
  bool found = false;
  if (Error err = Status(id, &status, &found); !err.ok() || !found) return err;
  if (status.result) {
    *out = CancelOutcome::kDone;
    return Error();
  }
  JobRecord job;
  job.id = id;
  job.spec.pipeline_file = status.pipeline_file;
  job.attempts = status.attempts;
  JobResult result;
  result.status = BuildStatus::kCanceled;
  result.reason = "canceled before it started";
  result.finished = WallClock::now();
  std::unique_ptr<RedisConnection> conn = Take();
  RedisConnection::Reply r;
  if (Error err = conn->Command({"EVAL", kCancelScript, "3", key_ + ":job:" + id, key_,
                                 key_ + ":cancel:" + id, EncodeResult(job, result), id},
                                &r);
      !err.ok())
    return err;
  Give(std::move(conn));
  *out = r.str == "queued"    ? CancelOutcome::kQueued
         : r.str == "running" ? CancelOutcome::kRunning
                              : CancelOutcome::kDone;
  return Error();
}

bool RedisQueue::CancelRequested(const std::string& id) {
  std::unique_ptr<RedisConnection> conn = Take();
  RedisConnection::Reply r;
  if (!conn->Command({"EXISTS", key_ + ":cancel:" + id}, &r).ok()) return false;
  Give(std::move(conn));
  return r.integer > 0;
}

}  // namespace tether::worker::queue
