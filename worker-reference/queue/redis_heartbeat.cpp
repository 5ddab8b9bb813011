// A worker's heartbeat on a Redis queue (redis_queue.hpp): renewed only while
// the name is still this worker's. A worker stalled past its TTL (a stopped
// process, a long GC-like pause of the machine) may come back after another
// worker took the name; it must not take the name back and share that
// worker's claim lists.
#include <algorithm>

#include "queue/redis_queue.hpp"

namespace tether::worker::queue {

namespace {

// KEYS: the heartbeat. ARGV: the new beat, its TTL in ms, this process's
// token followed by ':'. Returns 0 when another process holds the name.
const char kHeartbeatScript[] = R"lua(
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, string.len(ARGV[3])) ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
)lua";

}  // namespace

Error RedisQueue::Heartbeat(RedisConnection& conn, bool* lost) {
  RedisConnection::Reply r;
  long long ttl_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(options_.heartbeat_ttl).count();
  std::size_t lists;
  {
    std::lock_guard<std::mutex> lock(mu_);
    lists = list_busy_.size();
  }
  // A new value every beat: a worker that starts under this name tells a
  // live holder (the value changes) from a dead one (it expires).
  const std::string beat = token_ + ":" + std::to_string(++beats_);
  if (Error err = conn.Command({"EVAL", kHeartbeatScript, "1", key_ + ":hb:" + name_, beat,
                                std::to_string(std::max(1LL, ttl_ms)), token_ + ":"},
                               &r);
      !err.ok()) {
    return err;
  }
  if (r.integer == 0) {
    if (lost != nullptr) *lost = true;
    return Error(ErrorCode::kFailed,
                 "redis: another worker took the name " + name_ +
                     " while this one was silent past its heartbeat TTL; this worker takes no "
                     "more builds (its running builds finish)");
  }
  return conn.Command({"HSET", key_ + ":workers", name_, std::to_string(lists)}, &r);
}

}  // namespace tether::worker::queue
