// `--queue dir:PATH`: the embedded durable queue, a spool directory that the
// workers of one machine share. Every step is a rename, so a job is always in
// exactly one place:
//
//   PATH/tmp/                          submit writes here first
//   PATH/pending/<ms>-<id>.job         queued (rename from tmp/; claimed oldest first)
//   PATH/workers/<worker>/lock         flock(LOCK_EX) held by the live worker
//   PATH/workers/<worker>/claimed/     its running jobs (rename from pending/)
//   PATH/done/<id>.json                the one terminal result (link(2): the first wins)
//   PATH/cancel/<id>                   a cancel asked for a running job (removed at its end)
//
// A worker that dies releases its lock (the kernel drops it with the last
// descriptor, which is close-on-exec so no step inherits it); the next worker
// that takes the lock moves the dead worker's claims back to pending/ (or
// drops them when their result is already in done/). A worker restarted
// under its own name takes over its dead predecessor's folder the same way
// (requeueing its claims first); while that name's lock is held by a live
// worker, Register refuses the name. Local filesystems only:
// flock over NFS does not tell the dead from the living.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "queue/job.hpp"
#include "queue/queue.hpp"

namespace tether::worker::queue {

class SpoolQueue : public Queue {
 public:
  SpoolQueue(std::string root, QueueOptions options);
  ~SpoolQueue() override;

  // Creates the spool's folders when missing. kIo when it cannot.
  Error Open();

  Error Submit(const JobSpec& job, std::string* id) override;
  Error Status(const std::string& id, JobStatus* out, bool* found) override;
  Error Cancel(const std::string& id, CancelOutcome* out) override;
  bool CancelRequested(const std::string& id) override;
  Error Register() override;
  Error Serve(const Context&) override { return Error(); }
  const std::string& worker_name() const override { return name_; }
  Error Pop(const Context& ctx, std::optional<BuildItem>* out) override;
  Error Finish(const Context& ctx, const BuildItem& item, const JobResult& result) override;

  // Moves the claims of every dead worker back to pending/. Returns how many.
  int RecoverDead();

 private:
  // Claims the oldest pending job: true with *out set, false when none.
  Error TryClaim(std::optional<BuildItem>* out, bool* claimed);
  Error WriteResult(const JobRecord& job, const JobResult& result);
  // Moves the claims in dir/claimed back to pending/ (one more attempt
  // counted), or drops those already done. The caller holds dir's lock.
  int RequeueClaims(const std::string& dir, const std::string& worker);

  const std::string root_;
  const QueueOptions options_;
  std::string name_;
  std::string claimed_dir_;  // PATH/workers/<name>/claimed, once registered
  int lock_fd_ = -1;

  std::mutex mu_;
  std::chrono::steady_clock::time_point last_recovery_;  // guarded by mu_
  std::map<std::string, JobRecord> running_;             // guarded by mu_: by id
};

}  // namespace tether::worker::queue
