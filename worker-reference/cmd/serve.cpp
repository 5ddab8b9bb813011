// `tether-worker serve`: a Worker whose executor loops pop a durable queue.
#include "cmd/serve.hpp"

#include <memory>

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "cmd/run.hpp"
#include "cmd/worker.hpp"
#include "executor/live_output.hpp"
#include "queue/queue.hpp"
#include "runtime/cgroup.hpp"
#include "tether/select.hpp"

extern char** environ;

namespace tether::worker::cmd {

const char kServeUsage[] =
    "usage: tether-worker serve [options]\n"
    "\n"
    "Takes builds from a durable queue and runs them until SIGINT/SIGTERM (the first\n"
    "signal stops intake and drains running builds for --shutdown-grace, then cancels\n"
    "them; a second signal cancels at once). Each build's result is written to\n"
    "<results>/<build-id>/ and acknowledged to the queue.\n"
    "\n"
    "options:\n"
    "  --queue Q                    dir:PATH (a spool directory, default dir:tether-spool)\n"
    "                               or redis://HOST:PORT/DB (password from\n"
    "                               TETHER_REDIS_PASSWORD or TETHER_REDIS_PASSWORD_FILE)\n"
    "  --queue-key K                redis: the queue's key and key prefix (default: tether)\n"
    "  --heartbeat-ttl D            redis: a worker silent this long is dead and its\n"
    "                               builds are run again elsewhere (default: 30s)\n"
    "  --worker-name N              this worker's name in the queue (default: host-pid-random)\n"
    "  --api ADDR                   serve the HTTP API on ADDR (host:port)\n"
    "  --api-token-file F           bearer token of the API (required off loopback)\n"
    "  and the options of run: --results, --build-limit, --build-timeout, --kill-grace,\n"
    "  --log-streaming-timeout, --shutdown-grace, --max-log-size, --workspace-root, --runtime,\n"
    "  --network, --strict, -q/--quiet (see: tether-worker run --help)\n"
    "\n"
    "Exit status: 0 after a shutdown, 2 usage error, 3 the queue is unreachable or unusable.\n";

namespace {

// Removes a workspace root this process made (empty: none), after closing
// the ledger kept in it.
struct OwnedWorkspaceRoot {
  std::unique_ptr<WorkspaceLedger>* ledger;
  std::string root;
  ~OwnedWorkspaceRoot() {
    if (root.empty()) return;
    ledger->reset();
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
};

}  // namespace

void DeclareServeOptions(cli::Options* cli, ServeOptions* out) {
  DeclareRunOptions(cli, &out->run);
  cli->Text("--queue", &out->queue, "a queue (dir:PATH or redis://HOST:PORT/DB)",
            cli::Empty::kRefused);
  cli->Text("--queue-key", &out->queue_key, "a key", cli::Empty::kRefused);
  cli->Text("--worker-name", &out->worker_name, "a name", cli::Empty::kRefused);
  cli->Text("--api", &out->api, "an address (HOST:PORT)", cli::Empty::kRefused);
  cli->InputFile("--api-token-file", &out->api_token_file);
  DurationOption(cli, "--heartbeat-ttl", &out->heartbeat_ttl,
                 cli::DurationBounds::AtLeast(std::chrono::milliseconds(100)));
}

CommandHelp ServeHelp() {
  auto scratch = std::make_shared<ServeOptions>();
  return {"serve", kServeUsage,
          [scratch](cli::Options* cli) { DeclareServeOptions(cli, scratch.get()); }};
}

Error ParseServeOptions(int argc, char** argv, ServeOptions* out) {
  cli::Options cli;
  DeclareServeOptions(&cli, out);
  if (Error err = ParseDeclared(&cli, argc, argv, &out->run); !err.ok()) return err;
  if (!out->run.files.empty()) {
    return Error(ErrorCode::kInvalidArgument, "unexpected argument " + out->run.files[0] +
                                                  " (serve takes builds from --queue; use submit)");
  }
  for (char c : out->worker_name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return Error(ErrorCode::kInvalidArgument, "--worker-name: only [A-Za-z0-9._-] allowed");
    }
  }
  return Error();
}

queue::QueueOptions QueueOptionsOf(const ServeOptions& options) {
  queue::QueueOptions q;
  q.key = options.queue_key;
  q.heartbeat_ttl = options.heartbeat_ttl;
  q.worker_name = options.worker_name;
  q.slots = options.run.build_limit;
  return q;
}

// A worker SIGKILLed beside this one leaves its steps running in its cgroup
// tree: swept every kDeadWorkerSweep while this worker serves, not only
// when some worker starts (runtime/cgroup.hpp).
static Error SweepDeadWorkersUntil(const Context& ctx) {
  if (runtime::CgroupRoot().empty()) return Error();
  for (;;) {
    bool done = false;
    Select wait;
    wait.OnDone(ctx, [&] { done = true; });
    wait.OnTimer(runtime::kDeadWorkerSweep, [] {});
    wait.Wait();
    if (done) return Error();
    runtime::SweepDeadWorkers();
  }
}

int ExitStatusOf(const Error& err) {
  return err.Is(ErrorCode::kInvalidArgument) ? kExitUsage : kExitInfrastructure;
}

int ServeCommand(int argc, char** argv) {
  ServeOptions options;
  if (Error err = ParseServeOptions(argc, argv, &options); !err.ok()) {
    std::cerr << "tether-worker serve: " << err.message() << "\n";
    if (options.run.usage_helps) std::cerr << "run 'tether-worker serve --help' for usage\n";
    return kExitUsage;
  }
  if (options.run.help) {
    std::cout << kServeUsage;
    return kExitOk;
  }
  std::unique_ptr<queue::Queue> q;
  if (Error err = queue::OpenQueue(options.queue, QueueOptionsOf(options), &q); !err.ok()) {
    std::cerr << "tether-worker serve: " << err.message() << "\n";
    return ExitStatusOf(err);
  }
  bool own_workspace_root = false;
  std::unique_ptr<WorkspaceLedger> ledger;
  if (int status = PrepareWorkerProcess("serve", &options.run, &own_workspace_root, &ledger);
      status != kExitOk) {
    return status;
  }
  // The temporary workspace root this process made goes on every return (a
  // refused --api too), after the ledger that lives in it; declared before
  // the Worker, so it goes after the Worker too.
  OwnedWorkspaceRoot owned{&ledger, own_workspace_root ? options.run.workspace_root : ""};
  if (Error err = q->Register(); !err.ok()) {
    std::cerr << "tether-worker serve: " << err.message() << "\n";
    return ExitStatusOf(err);
  }

  std::vector<std::string> worker_env;
  for (char** e = environ; *e != nullptr; ++e) worker_env.emplace_back(*e);
  bool tty = ::isatty(STDOUT_FILENO) == 1;
  executor::LiveOutput live(stdout, !options.run.quiet, tty);
  Worker worker(options.run, q.get(), &live, std::move(worker_env), q->worker_name());
  worker.SetLedger(ledger.get());

  std::vector<SideTask> side;
  side.push_back({"queue", [&q](const Context& ctx) { return q->Serve(ctx); }});
  side.push_back({"cancels", [&worker](const Context& ctx) { return worker.WatchCancels(ctx); }});
  side.push_back({"dead-worker sweep", SweepDeadWorkersUntil});
  std::unique_ptr<ApiServer> api;
  if (!options.api.empty()) {
    if (Error err = NewApiServer(options, worker, &api); !err.ok()) {
      std::cerr << "tether-worker serve: " << err.message() << "\n";
      return ExitStatusOf(err);
    }
    side.push_back({"api", [&api](const Context& ctx) { return api->Run(ctx); }});
  }
  std::cerr << "tether-worker serve: worker " << q->worker_name() << " on " << options.queue << ", "
            << options.run.build_limit << " slot(s)\n";
  worker.Start(Background(), std::move(side));
  return worker.InfrastructureFailed() ? kExitInfrastructure : kExitOk;
}

}  // namespace tether::worker::cmd
