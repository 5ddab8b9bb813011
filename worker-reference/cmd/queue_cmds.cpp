// `tether-worker submit`, `status` and `cancel`: the clients of a durable queue.
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cmd/flags.hpp"
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
    "usage: tether-worker status [--queue Q] [--queue-key K] [--json] JOB\n"
    "\n"
    "Prints a job's state (queued, running, done) and, when done, its result.\n"
    "--json prints one JSON object instead: {\"job\", \"state\", \"pipeline\",\n"
    "\"attempts\", \"worker\", \"result\": {\"status\", \"reason\", \"worker\", \"started\",\n"
    "\"finished\", \"results\"} or null}; absent values are null.\n"
    "Exit status: 0 found, 2 usage error, 3 queue unreachable, 4 no such job,\n"
    "5 the job's record is corrupt.\n";

const char kCancelUsage[] =
    "usage: tether-worker cancel [--queue Q] [--queue-key K] JOB\n"
    "\n"
    "Cancels a job: a queued job never starts (its result is canceled at once);\n"
    "a running one is canceled by the worker that runs it, within about a second\n"
    "(its steps are stopped as on a second SIGTERM, its result is canceled).\n"
    "Exit status: 0 canceled (or asked), 2 usage error, 3 queue unreachable,\n"
    "4 no such job, 6 the job had already ended.\n";

struct ClientArgs {
  std::string queue = "dir:tether-spool";
  std::string key = "tether";
  bool help = false;
  bool json = false;  // status --json
  std::vector<std::string> args;
};

void DeclareClientOptions(cli::Options* cli, ClientArgs* out, bool json_flag) {
  cli->Text("--queue", &out->queue, "a queue (dir:PATH or redis://HOST:PORT/DB)",
            cli::Empty::kRefused);
  cli->Text("--queue-key", &out->key, "a key", cli::Empty::kRefused);
  if (json_flag) cli->Flag("--json", &out->json);
  cli->Operands(&out->args);
}

bool ParseClient(int argc, char** argv, ClientArgs* out, std::string* error,
                 bool json_flag = false) {
  cli::Options cli;
  DeclareClientOptions(&cli, out, json_flag);
  *error = cli.Parse(argc, argv);
  out->help = cli.Help();
  return error->empty();
}

int OpenFor(const char* command, const ClientArgs& args, std::unique_ptr<queue::Queue>* q) {
  queue::QueueOptions options;
  options.key = args.key;
  // submit may make the spool it queues into; status and cancel need one.
  options.create = std::string(command) == "submit";
  if (Error err = queue::OpenQueue(args.queue, options, q); !err.ok()) {
    std::cerr << "tether-worker " << command << ": " << err.message() << "\n";
    return err.Is(ErrorCode::kInvalidArgument) ? kExitUsage : kExitInfrastructure;
  }
  return kExitOk;
}

std::string When(const std::optional<WallClock::time_point>& t) {
  return t ? executor::FormatTime(*t) : "-";
}

nlohmann::json JsonTime(const std::optional<WallClock::time_point>& t) {
  return t ? nlohmann::json(executor::FormatTime(*t)) : nlohmann::json(nullptr);
}

nlohmann::json JsonText(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

// status --json: the same fields as the text form, one object, for scripts.
nlohmann::json StatusJson(const queue::JobStatus& st) {
  nlohmann::json out = {{"job", st.id},
                        {"state", st.state},
                        {"pipeline", st.pipeline_file},
                        {"attempts", st.attempts},
                        {"worker", JsonText(st.worker)},
                        {"result", nullptr}};
  if (st.result) {
    out["result"] = {{"status", BuildStatusName(st.result->status)},
                     {"reason", JsonText(st.result->reason)},
                     {"worker", JsonText(st.result->worker)},
                     {"started", JsonTime(st.result->started)},
                     {"finished", JsonTime(st.result->finished)},
                     {"results", JsonText(st.result->result_dir)}};
  }
  return out;
}

}  // namespace

int SubmitCommand(int argc, char** argv) {
  ClientArgs args;
  std::string error;
  if (!ParseClient(argc, argv, &args, &error) || (!args.help && args.args.empty())) {
    std::cerr << "tether-worker submit: " << (error.empty() ? "no pipeline files given" : error)
              << "\n"
              << kSubmitUsage;
    return kExitUsage;
  }
  if (args.help) {
    std::cout << kSubmitUsage;
    return kExitOk;
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
  if (int status = OpenFor("submit", args, &q); status != kExitOk) return status;
  for (const queue::JobSpec& job : jobs) {
    std::string id;
    if (Error err = q->Submit(job, &id); !err.ok()) {
      std::cerr << "tether-worker submit: " << job.pipeline_file << ": " << err.message() << "\n";
      return kExitInfrastructure;
    }
    std::cout << id << "\n" << std::flush;
  }
  return kExitOk;
}

int StatusCommand(int argc, char** argv) {
  ClientArgs args;
  std::string error;
  if (!ParseClient(argc, argv, &args, &error, /*json_flag=*/true) ||
      (!args.help && args.args.size() != 1)) {
    std::cerr << "tether-worker status: " << (error.empty() ? "give exactly one job id" : error)
              << "\n"
              << kStatusUsage;
    return kExitUsage;
  }
  if (args.help) {
    std::cout << kStatusUsage;
    return kExitOk;
  }
  std::unique_ptr<queue::Queue> q;
  if (int status = OpenFor("status", args, &q); status != kExitOk) return status;
  queue::JobStatus st;
  bool found = false;
  if (Error err = q->Status(args.args[0], &st, &found); !err.ok()) {
    std::cerr << "tether-worker status: " << err.message() << "\n";
    return err.Is(ErrorCode::kInvalidArgument) ? kExitCorrupt : kExitInfrastructure;
  }
  if (!found) {
    std::cerr << "tether-worker status: no job " << args.args[0] << " in " << args.queue << "\n";
    return kExitNoSuchJob;
  }
  if (args.json) {
    std::cout << StatusJson(st).dump() << "\n";
    return kExitOk;
  }
  std::cout << "job: " << st.id << "\n"
            << "state: " << st.state << "\n"
            << "pipeline: " << st.pipeline_file << "\n"
            << "attempts: " << st.attempts << "\n";
  if (!st.worker.empty()) std::cout << "worker: " << st.worker << "\n";
  if (st.result) {
    std::cout << "status: " << BuildStatusName(st.result->status) << "\n";
    if (!st.result->reason.empty()) std::cout << "reason: " << st.result->reason << "\n";
    std::cout << "started: " << When(st.result->started) << "\n"
              << "finished: " << When(st.result->finished) << "\n";
    if (!st.result->result_dir.empty()) std::cout << "results: " << st.result->result_dir << "\n";
  }
  return kExitOk;
}

int CancelCommand(int argc, char** argv) {
  ClientArgs args;
  std::string error;
  if (!ParseClient(argc, argv, &args, &error) || (!args.help && args.args.size() != 1)) {
    std::cerr << "tether-worker cancel: " << (error.empty() ? "give exactly one job id" : error)
              << "\n"
              << kCancelUsage;
    return kExitUsage;
  }
  if (args.help) {
    std::cout << kCancelUsage;
    return kExitOk;
  }
  std::unique_ptr<queue::Queue> q;
  if (int status = OpenFor("cancel", args, &q); status != kExitOk) return status;
  const std::string& id = args.args[0];
  queue::CancelOutcome outcome;
  if (Error err = q->Cancel(id, &outcome); !err.ok()) {
    std::cerr << "tether-worker cancel: " << err.message() << "\n";
    return err.Is(ErrorCode::kInvalidArgument) ? kExitCorrupt : kExitInfrastructure;
  }
  switch (outcome) {
    case queue::CancelOutcome::kQueued:
      std::cout << id << ": canceled before it started\n";
      return kExitOk;
    case queue::CancelOutcome::kRunning:
      std::cout << id << ": running; its worker was asked to cancel it\n";
      return kExitOk;
    case queue::CancelOutcome::kDone:
      std::cerr << "tether-worker cancel: " << id << " has already ended; nothing to cancel\n";
      return kExitAlreadyDone;
    case queue::CancelOutcome::kNoSuchJob:
      break;
  }
  std::cerr << "tether-worker cancel: no job " << id << " in " << args.queue << "\n";
  return kExitNoSuchJob;
}

std::vector<CommandHelp> ClientHelps() {
  auto scratch = std::make_shared<ClientArgs>();
  auto declare = [scratch](bool json) {
    return [scratch, json](cli::Options* cli) { DeclareClientOptions(cli, scratch.get(), json); };
  };
  return {{"submit", kSubmitUsage, declare(false)},
          {"status", kStatusUsage, declare(true)},
          {"cancel", kCancelUsage, declare(false)}};
}

}  // namespace tether::worker::cmd
