// `tether-worker submit` and `tether-worker status`: the clients of a durable queue.
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "cmd/serve.hpp"
#include "executor/result.hpp"
#include "queue/queue.hpp"
#include "tether/worker/pipeline.hpp"

namespace tether::worker::cmd {

namespace {

const char kSubmitUsage[] =
    "usage: tether-worker submit [--queue Q] [--queue-key K] PIPELINE.yml...\n"
    "\n"
    "Validates every pipeline, then queues each as a job (nothing is queued if one\n"
    "is invalid) and prints one job id a line: the build id its results get.\n"
    "Q is dir:PATH (default dir:tether-spool) or redis://HOST:PORT/DB.\n"
    "Exit status: 0 queued, 2 usage error or invalid pipeline, 3 queue unreachable.\n";

const char kStatusUsage[] =
    "usage: tether-worker status [--queue Q] [--queue-key K] JOB\n"
    "\n"
    "Prints a job's state (queued, running, done) and, when done, its result.\n"
    "Exit status: 0 found, 2 usage error, 3 queue unreachable, 4 no such job,\n"
    "5 the job's record is corrupt.\n";

struct ClientArgs {
  std::string queue = "dir:tether-spool";
  std::string key = "tether";
  bool help = false;
  std::vector<std::string> args;
  std::set<std::string> seen;  // options given (each at most once)
};

bool ParseClient(int argc, char** argv, ClientArgs* out, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      out->help = true;
      continue;
    }
    std::string* target = nullptr;
    std::string flag = a, value;
    bool has_value = false;
    if (std::size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      flag = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    if (flag == "--queue") target = &out->queue;
    if (flag == "--queue-key") target = &out->key;
    if (target) {
      if (!out->seen.insert(flag).second) {
        *error = flag + " given twice";
        return false;
      }
      if (!has_value) {
        if (i + 1 >= argc) {
          *error = flag + ": missing value";
          return false;
        }
        value = argv[++i];
      }
      if (value.empty()) {
        *error = flag + ": empty value";
        return false;
      }
      *target = value;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      *error = "unknown option " + flag;
      return false;
    }
    out->args.push_back(a);
  }
  return true;
}

int OpenFor(const char* command, const ClientArgs& args, std::unique_ptr<queue::Queue>* q) {
  queue::QueueOptions options;
  options.key = args.key;
  if (Error err = queue::OpenQueue(args.queue, options, q); !err.ok()) {
    std::cerr << "tether-worker " << command << ": " << err.message() << "\n";
    return err.Is(ErrorCode::kInvalidArgument) ? kExitUsage : kExitQueue;
  }
  return 0;
}

std::string When(const std::optional<queue::WallClock::time_point>& t) {
  return t ? executor::FormatTime(*t) : "-";
}

}  // namespace

int SubmitCommand(int argc, char** argv) {
  ClientArgs args;
  std::string error;
  if (!ParseClient(argc, argv, &args, &error) || (!args.help && args.args.empty())) {
    std::cerr << "tether-worker submit: " << (error.empty() ? "no pipeline files given" : error) << "\n"
              << kSubmitUsage;
    return kExitUsage;
  }
  if (args.help) {
    std::cout << kSubmitUsage;
    return 0;
  }
  // Validate everything before queuing anything.
  std::vector<queue::JobSpec> jobs;
  bool invalid = false;
  for (const std::string& file : args.args) {
    queue::JobSpec job;
    job.pipeline_file = file;
    Pipeline pipeline;
    std::vector<PipelineDiagnostic> diagnostics;
    Error err = ReadPipelineFile(file, &job.pipeline_text, &diagnostics);
    if (err.ok()) err = ParsePipeline(job.pipeline_text, file, &pipeline, &diagnostics);
    if (err.ok()) err = CheckRunnable(pipeline, &diagnostics);
    for (const PipelineDiagnostic& w : pipeline.warnings) std::cerr << w.ToString() << "\n";
    for (const PipelineDiagnostic& d : diagnostics) std::cerr << d.ToString() << "\n";
    if (!err.ok()) {
      if (diagnostics.empty()) std::cerr << file << ": error: " << err.message() << "\n";
      invalid = true;
    }
    jobs.push_back(std::move(job));
  }
  if (invalid) {
    std::cerr << "tether-worker submit: invalid pipeline; nothing was queued\n";
    return kExitUsage;
  }
  std::unique_ptr<queue::Queue> q;
  if (int status = OpenFor("submit", args, &q); status != 0) return status;
  for (const queue::JobSpec& job : jobs) {
    std::string id;
    if (Error err = q->Submit(job, &id); !err.ok()) {
      std::cerr << "tether-worker submit: " << job.pipeline_file << ": " << err.message() << "\n";
      return kExitQueue;
    }
    std::cout << id << "\n" << std::flush;
  }
  return 0;
}

int StatusCommand(int argc, char** argv) {
  ClientArgs args;
  std::string error;
  if (!ParseClient(argc, argv, &args, &error) || (!args.help && args.args.size() != 1)) {
    std::cerr << "tether-worker status: " << (error.empty() ? "give exactly one job id" : error) << "\n"
              << kStatusUsage;
    return kExitUsage;
  }
  if (args.help) {
    std::cout << kStatusUsage;
    return 0;
  }
  std::unique_ptr<queue::Queue> q;
  if (int status = OpenFor("status", args, &q); status != 0) return status;
  queue::JobStatus st;
  bool found = false;
  if (Error err = q->Status(args.args[0], &st, &found); !err.ok()) {
    std::cerr << "tether-worker status: " << err.message() << "\n";
    return err.Is(ErrorCode::kInvalidArgument) ? kExitCorrupt : kExitQueue;
  }
  if (!found) {
    std::cerr << "tether-worker status: no job " << args.args[0] << " in " << args.queue << "\n";
    return kExitNoSuchJob;
  }
  std::cout << "job: " << st.id << "\n"
            << "state: " << st.state << "\n"
            << "pipeline: " << st.pipeline_file << "\n"
            << "attempts: " << st.attempts << "\n";
  if (!st.worker.empty()) std::cout << "worker: " << st.worker << "\n";
  if (st.result) {
    std::cout << "status: " << st.result->status << "\n";
    if (!st.result->reason.empty()) std::cout << "reason: " << st.result->reason << "\n";
    std::cout << "started: " << When(st.result->started) << "\n"
              << "finished: " << When(st.result->finished) << "\n";
    if (!st.result->result_dir.empty()) std::cout << "results: " << st.result->result_dir << "\n";
  }
  return 0;
}

}  // namespace tether::worker::cmd
