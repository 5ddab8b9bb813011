// `tether-worker serve`, `submit` and `status`: the worker as a service that
// takes builds from a durable queue (queue/queue.hpp), and the two client
// commands of that queue.
//
//   serve --queue Q [run's options] [--queue-key K] [--heartbeat-ttl D]
//         [--worker-name N] [--api ADDR [--api-token-file F]]
//       Registers with Q, then runs builds until SIGINT/SIGTERM with run's
//       drain-then-cancel shutdown; every build is acknowledged to Q with
//       its result after its build.json is written.
//   submit --queue Q PIPELINE.yml...   validates every file, then queues each;
//                                      prints one job id (= build id) a line
//   status --queue Q JOB               prints the job's state and result
//
// Exit status (all three): 0 ok, 2 usage error (bad option, bad queue URL,
// invalid pipeline: nothing queued), 3 the queue is unreachable or unusable,
// 4 (status) no such job, 5 (status) the job's record is corrupt.
#pragma once

#include <memory>
#include <string>

#include "api/control.hpp"
#include "cmd/exit_codes.hpp"
#include "cmd/flags.hpp"
#include "tether/context.hpp"
#include "tether/error.hpp"

namespace tether::worker::cmd {

struct ServeOptions {
  RunOptions run;
  std::string queue = "dir:tether-spool";
  std::string queue_key = "tether";
  Duration heartbeat_ttl = std::chrono::seconds(30);
  std::string worker_name;  // empty: host-pid-random
  std::string api;          // --api ADDR; empty: no HTTP API
  std::string api_token_file;
};

// The HTTP API of `serve --api` (worker-reference/api/, issue 10 item 3).
// NewApiServer binds options.api before any build runs (kInvalidArgument: a
// bad address or token file, exit 2; kIo: cannot listen, exit 3); Run serves
// `control` until ctx is done (the executor loops returned) and then returns.
class ApiServer {
 public:
  virtual ~ApiServer() = default;
  virtual Error Run(const Context& ctx) = 0;
};
Error NewApiServer(const ServeOptions& options, api::WorkerControl& control,
                   std::unique_ptr<ApiServer>* out);

Error ParseServeOptions(int argc, char** argv, ServeOptions* out);
void DeclareServeOptions(cli::Options* cli, ServeOptions* out);
CommandHelp ServeHelp();
extern const char kServeUsage[];

// argv[0] is the command name. Return the process exit status.
int ServeCommand(int argc, char** argv);
int SubmitCommand(int argc, char** argv);
int StatusCommand(int argc, char** argv);
int CancelCommand(int argc, char** argv);
// submit, status and cancel (queue_cmds.cpp) as their --help shows them.
std::vector<CommandHelp> ClientHelps();

}  // namespace tether::worker::cmd
