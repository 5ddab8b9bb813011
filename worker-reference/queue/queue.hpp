// Where builds come from. The executor loops of a Worker pop BuildItems from a
// BuildSource and acknowledge each one with its terminal result:
//
//   MemoryQueue   `tether-worker run`: the files of the command line
//   SpoolQueue    `--queue dir:PATH`: a spool directory shared by the workers
//                 of one machine (queue/spool_queue.hpp)
//   RedisQueue    `--queue redis://HOST:PORT/DB`: one Redis shared by a fleet
//                 (queue/redis_queue.hpp)
//
// Contract of the durable queues (the Queue interface): a job is claimed by
// one worker at a time and acknowledged (Finish) only after its build ended,
// so a worker that dies mid-build loses nothing: its claims go back to the
// queue and run again, with the same build id (at least once after a crash,
// exactly once otherwise). A job gets exactly one terminal result: the first
// Finish wins, a later one (a rerun after a false death) only drops the claim.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/wall_clock.hpp"
#include "tether/context.hpp"
#include "tether/error.hpp"
#include "tether/worker/build_status.hpp"
#include "tether/worker/pipeline.hpp"

namespace tether::worker::queue {

struct BuildItem {
  std::string id;  // unique, safe as a directory name; the build id
  Pipeline pipeline;
  std::optional<WallClock::time_point> submitted;  // durable queues: when submit queued it
  int attempt = 1;                                 // > 1: a rerun of a build whose worker died
};

// The terminal result of a build, as a queue records it.
struct JobResult {
  BuildStatus status = BuildStatus::kError;  // a terminal status
  std::string reason;
  std::string worker;      // the worker that ran it
  std::string result_dir;  // where build.json and the logs are (on that worker's machine)
  std::optional<WallClock::time_point> started, finished;
};

// What a cancel found: the job was queued (it will never start: its result
// is `canceled` now), running (its worker is asked to cancel it), already
// done (nothing to cancel), or there is no such job.
enum class CancelOutcome { kQueued, kRunning, kDone, kNoSuchJob };

class BuildSource {
 public:
  virtual ~BuildSource() = default;
  // Blocks until a build is claimed or ctx is done. *out is nullopt when ctx
  // is done or the source is exhausted; an error is an infrastructure failure
  // the worker cannot go on from (a queue it can no longer read or write).
  virtual Error Pop(const Context& ctx, std::optional<BuildItem>* out) = 0;
  // Acknowledges item with its terminal result. ctx bounds the retries (a
  // queue server that is down).
  virtual Error Finish(const Context& ctx, const BuildItem& item, const JobResult& result) = 0;
  // Builds that were popped by nobody and must be recorded as not started
  // after a shutdown (only the in-memory queue: a durable queue keeps them).
  virtual std::vector<BuildItem> Drain() { return {}; }
  // Whether a cancel of the running build id was asked for (`tether-worker
  // cancel`, the API of another worker). The worker that runs it asks about
  // its builds about once a second. Sources without cancels say no.
  virtual bool CancelRequested(const std::string& id) { return false; }
  // Cancels a job the source holds (durable queues: Queue::Cancel). Sources
  // without cancels by id know no job.
  virtual Error Cancel(const std::string& id, CancelOutcome* out) {
    *out = CancelOutcome::kNoSuchJob;
    return Error();
  }
};

// What `tether-worker status` prints about a job.
struct JobStatus {
  std::string id;
  std::string state;  // queued | running | done
  std::string pipeline_file;
  int attempts = 0;
  std::string worker;               // running or done: who
  std::optional<JobResult> result;  // done
};

// A job as submit queues it: the pipeline's text travels with the job, so the
// worker runs what was submitted even if the file changes afterwards.
struct JobSpec {
  std::string pipeline_file;  // as given to submit (names the build id)
  std::string pipeline_text;
};

struct QueueOptions {
  std::string key = "tether";                         // redis: the list and the prefix of every key
  Duration heartbeat_ttl = std::chrono::seconds(30);  // redis: a worker is dead after this
  std::string worker_name;                            // empty: host-pid-random
  int slots = 1;                                      // executor slots of this worker
  bool create = true;  // spool: make the directory (serve, submit); false: it must exist (status)
};

// A durable queue (spool or Redis).
class Queue : public BuildSource {
 public:
  // Queues a job; *id is its build id (the pipeline's stem plus a random tag).
  virtual Error Submit(const JobSpec& job, std::string* id) = 0;
  // *found is false for an unknown id. A record that cannot be read is an
  // error of kind kInvalidArgument naming it ("corrupt").
  virtual Error Status(const std::string& id, JobStatus* out, bool* found) = 0;
  // Cancels job id (CancelOutcome says how). Idempotent: a second cancel of a
  // running job asks again; of a job canceled while queued, says kDone.
  Error Cancel(const std::string& id, CancelOutcome* out) override = 0;
  // Becomes a worker (serve): registers, recovers the claims of dead
  // workers. Tasks that must run while serving (the Redis heartbeat) run in
  // Serve(ctx), which returns when ctx is done.
  virtual Error Register() = 0;
  virtual Error Serve(const Context& ctx) = 0;
  virtual const std::string& worker_name() const = 0;
};

// Opens "dir:PATH" or "redis://[HOST][:PORT][/DB]". A malformed URL is
// kInvalidArgument; an unreachable server or unusable directory is kIo.
// Redis AUTH comes from TETHER_REDIS_PASSWORD or the file named by
// TETHER_REDIS_PASSWORD_FILE, never from the command line.
Error OpenQueue(const std::string& url, const QueueOptions& options, std::unique_ptr<Queue>* out);

// Shared by the queues: a new build id for a pipeline file (its stem, '-',
// 12 random hex digits), and the item of a claimed job (parse errors are
// returned with the diagnostics as the message).
std::string NewJobId(const std::string& pipeline_file);
Error MakeItem(const std::string& id, const JobSpec& spec, BuildItem* out);

}  // namespace tether::worker::queue
