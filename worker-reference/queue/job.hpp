// The wire form of jobs and results, shared by the spool and Redis queues:
// one JSON object each. Times are milliseconds since the Unix epoch.
#pragma once

#include <string>

#include "queue/queue.hpp"

namespace tether::worker::queue {

struct JobRecord {
  std::string id;
  JobSpec spec;
  WallClock::time_point submitted;
  int attempts = 0;  // claims so far (a recovered job is claimed again)
};

std::string EncodeJob(const JobRecord& job);
// kInvalidArgument naming `where` when text is not a job record.
Error DecodeJob(const std::string& text, const std::string& where, JobRecord* out);
std::string EncodeResult(const JobRecord& job, const JobResult& result);
Error DecodeResult(const std::string& text, const std::string& where, JobStatus* out);

// A build-id stem: the file name without .yml/.yaml, every character outside
// [A-Za-z0-9._-] replaced by '_', no leading dots, at most 64 characters.
std::string BuildIdStem(const std::string& file);
// 12 random hex digits (getrandom).
std::string RandomTag();
// host-pid-random: unique among the workers of a queue.
std::string DefaultWorkerName();

}  // namespace tether::worker::queue
