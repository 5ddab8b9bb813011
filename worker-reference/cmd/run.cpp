// `tether-worker run`: validates every pipeline first (nothing runs if one
// is invalid), reserves a result directory per build, and hands the builds
// to the Worker.
#include "cmd/run.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cmd/build_id.hpp"
#include "cmd/exit_codes.hpp"
#include "cmd/flags.hpp"
#include "cmd/worker.hpp"
#include "executor/live_output.hpp"
#include "queue/memory_queue.hpp"
#include "runtime/cgroup.hpp"
#include "runtime/process.hpp"
#include "tether/io/write_file.hpp"
#include "tether/worker/pipeline.hpp"

extern char** environ;

namespace tether::worker::cmd {

int PrepareWorkerProcess(const char* command, RunOptions* options, bool* own_workspace_root,
                         std::unique_ptr<WorkspaceLedger>* ledger) {
  // Before any thread exists: SIGINT/SIGTERM are read from a signalfd by the
  // signal task, SIGCHLD by the reaper task (every thread inherits the mask;
  // children get it cleared).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  runtime::ProcessRuntime::BecomeSubreaper();
  // Now, not at the first build: what dead workers left running (their
  // steps and services) is killed before this worker takes anything.
  (void)runtime::CgroupRoot();

  std::error_code ec;
  std::filesystem::create_directories(options->results_dir, ec);
  if (ec) {
    std::cerr << "tether-worker " << command << ": cannot create " << options->results_dir << ": "
              << ec.message() << "\n";
    return kExitInfrastructure;
  }
  *own_workspace_root = options->workspace_root.empty();
  if (*own_workspace_root) {
    // Removed by the caller when the worker ends (and, after a crash, by the
    // next worker's RecoverDeadDefaultRoots), not by an io::RemovedAtExit:
    // its lifetime is the worker's, not this function's.
    std::string error;
    std::optional<std::string> root =
        io::MakeTempDirectory(io::TempDirectory(), "tether-worker-", &error);
    if (!root) {
      std::cerr << "tether-worker " << command << ": " << error << "\n";
      return kExitInfrastructure;
    }
    options->workspace_root = *root;
    WorkspaceLedger::RecoverDeadDefaultRoots();
  } else {
    std::filesystem::create_directories(options->workspace_root, ec);
    if (ec) {
      std::cerr << "tether-worker " << command << ": cannot create " << options->workspace_root
                << ": " << ec.message() << "\n";
      return kExitInfrastructure;
    }
    WorkspaceLedger::RecoverDead(options->workspace_root);
  }
  // A killed `run` leaves "worker died" records; a queue reruns its builds.
  const bool record_on_crash = std::string(command) == "run";
  if (Error err = WorkspaceLedger::Open(options->workspace_root, record_on_crash, ledger);
      !err.ok()) {
    std::cerr << "tether-worker " << command << ": " << err.message() << "\n";
    return kExitInfrastructure;
  }
  return kExitOk;
}

int RunCommand(int argc, char** argv) {
  RunOptions options;
  if (Error err = ParseRunOptions(argc, argv, &options); !err.ok()) {
    std::cerr << "tether-worker run: " << err.message() << "\n";
    if (options.usage_helps) std::cerr << "run 'tether-worker run --help' for usage\n";
    return kExitUsage;
  }
  if (options.help) {
    std::cout << kRunUsage;
    return kExitOk;
  }

  // Validate everything before running anything.
  std::vector<Pipeline> pipelines(options.files.size());
  bool invalid = false;
  for (std::size_t i = 0; i < options.files.size(); ++i) {
    std::vector<PipelineDiagnostic> diagnostics;
    Error err = LoadPipeline(options.files[i], &pipelines[i], &diagnostics, options.strict);
    if (err.ok()) err = CheckRunnable(pipelines[i], &diagnostics);
    for (const PipelineDiagnostic& w : pipelines[i].warnings) std::cerr << w.ToString() << "\n";
    for (const PipelineDiagnostic& d : diagnostics) std::cerr << d.ToString() << "\n";
    if (!err.ok()) {
      if (diagnostics.empty())
        std::cerr << options.files[i] << ": error: " << err.message() << "\n";
      invalid = true;
    }
  }
  if (invalid) {
    std::cerr << "tether-worker run: invalid pipeline; nothing was run\n";
    return kExitUsage;
  }

  bool own_workspace_root = false;
  std::unique_ptr<WorkspaceLedger> ledger;
  if (int status = PrepareWorkerProcess("run", &options, &own_workspace_root, &ledger);
      status != kExitOk)
    return status;

  std::vector<queue::BuildItem> items;
  BuildIdAllocator ids(options.results_dir);
  for (std::size_t i = 0; i < pipelines.size(); ++i) {
    queue::BuildItem item;
    if (Error err = ids.Reserve(BuildIdStem(options.files[i]), &item.id); !err.ok()) {
      std::cerr << "tether-worker run: " << err.message() << "\n";
      return kExitInfrastructure;
    }
    item.pipeline = std::move(pipelines[i]);
    items.push_back(std::move(item));
  }
  queue::MemoryQueue queue(std::move(items));

  std::vector<std::string> worker_env;
  for (char** e = environ; *e != nullptr; ++e) worker_env.emplace_back(*e);
  bool tty = ::isatty(STDOUT_FILENO) == 1;
  executor::LiveOutput live(stdout, !options.quiet, tty);
  std::string workspace_root = options.workspace_root;
  Worker worker(std::move(options), &queue, &live, std::move(worker_env));
  worker.SetLedger(ledger.get());
  int status = worker.Start(Background());
  ledger.reset();  // before its root goes
  std::error_code ec;
  if (own_workspace_root) std::filesystem::remove_all(workspace_root, ec);
  return status;
}

}  // namespace tether::worker::cmd
