// `tether-worker run`: validates every pipeline first (nothing runs if one
// is invalid), reserves a result directory per build, and hands the builds
// to the Worker.
#include "cmd/run.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cmd/build_id.hpp"
#include "cmd/exit_codes.hpp"
#include "cmd/flags.hpp"
#include "cmd/worker.hpp"
#include "executor/live_output.hpp"
#include "queue/memory_queue.hpp"
#include "runtime/process.hpp"
#include "tether/worker/pipeline.hpp"

extern char** environ;

namespace tether::worker::cmd {

namespace {

// A directory the worker makes for the user (--results, --workspace-root)
// is made one level deep, never with its parents: a parent that does not
// exist is a typo
// (`/nonexistent/ws`), refused before anything is created. A parent that is
// not a directory is left to the creation, an infrastructure error (exit 3).
bool ParentMissing(const char* command, const char* option, const std::string& dir) {
  if (dir.empty()) return false;
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) return false;
  std::filesystem::path parent = std::filesystem::path(dir).lexically_normal().parent_path();
  if (parent.empty() || std::filesystem::exists(parent, ec)) return false;
  std::cerr << "tether-worker " << command << ": " << option << " " << dir << ": its parent "
            << parent.string() << " does not exist (only the last part is created)\n";
  return true;
}

}  // namespace

bool RefuseMissingParents(const char* command, const RunOptions& options) {
  return ParentMissing(command, "--results", options.results_dir) ||
         ParentMissing(command, "--workspace-root", options.workspace_root);
}

int PrepareWorkerProcess(const char* command, RunOptions* options, bool* own_workspace_root,
                         std::unique_ptr<WorkspaceLedger>* ledger) {
  if (RefuseMissingParents(command, *options))
    return kExitUsage;  // a usage error: nothing created, nothing started
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

  std::error_code ec;
  std::filesystem::create_directories(options->results_dir, ec);
  if (ec) {
    std::cerr << "tether-worker " << command << ": cannot create " << options->results_dir << ": "
              << ec.message() << "\n";
    return kExitInfrastructure;
  }
  *own_workspace_root = options->workspace_root.empty();
  if (*own_workspace_root) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/tether-worker-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) {
      std::cerr << "tether-worker " << command << ": cannot create a workspace root in " << templ
                << "\n";
      return kExitInfrastructure;
    }
    options->workspace_root = templ;
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
    std::cerr << "tether-worker run: " << err.message() << "\n"
              << "run 'tether-worker run --help' for usage\n";
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
