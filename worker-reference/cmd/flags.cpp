#include "cmd/flags.hpp"

#include <cctype>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>

#include "tether/worker/pipeline.hpp"

namespace tether::worker::cmd {

namespace {

Error Invalid(std::string message) {
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

}  // namespace

const char kRunUsage[] =
    "usage: tether-worker run [options] PIPELINE.yml...\n"
    "\n"
    "Runs each pipeline as a build (steps and services are local process groups),\n"
    "writes <results>/<build-id>/build.json and one log file per step and service.\n"
    "\n"
    "options:\n"
    "  --results DIR                where results go (default: tether-results)\n"
    "  --build-limit N              builds run at once (default: 1)\n"
    "  --build-timeout D            a build's timeout unless its pipeline sets one (default: 30m)\n"
    "  --kill-grace D               SIGTERM to SIGKILL when a step is stopped (default: 10s)\n"
    "  --log-streaming-timeout D    how long step logs may drain after a build ended (default: "
    "5m)\n"
    "  --shutdown-grace D           after SIGINT/SIGTERM, time running builds get before they\n"
    "                               are cancelled; a second signal cancels at once (default: 1m)\n"
    "  --max-log-size SIZE          per step or service; 0 = unlimited (default: 100MiB)\n"
    "  --workspace-root DIR         where build workspaces are created (default: a temporary dir)\n"
    "  --runtime process|bwrap      how steps run: process groups here, or each in bubblewrap\n"
    "                               (own pid namespace, read-only root, rw workspace, tmpfs /tmp)\n"
    "  --network host|none          bwrap only: none gives each step a loopback-only network\n"
    "  -q, --quiet                  no live log lines on stdout\n"
    "  --strict                     every pipeline warning (a setting Vela drops or\n"
    "                               overrides) is an error: nothing runs\n"
    "\n"
    "Durations as Go writes them (30m, 2s, 500ms, 1h30m); sizes as 10MiB, 512KiB, 100B.\n"
    "Exit status: 0 every build succeeded, 1 a build failed or was canceled,\n"
    "2 usage or pipeline validation error (nothing ran), 3 infrastructure error.\n";

CLI::Option* DurationOption(cli::Options* cli, const std::string& name, Duration* into,
                            cli::DurationBounds bounds) {
  // Every duration option ends up in a deadline (now + d) in some clock: past
  // kMaxTimeout that sum no longer fits 64 bits of nanoseconds.
  bounds.max = kMaxTimeout;
  bounds.max_text = kMaxTimeoutText;
  return cli->DurationValue(name, into, bounds);
}

void DeclareRunOptions(cli::Options* cli, RunOptions* out) {
  // Made one level deep, never with their parents: a missing parent is a typo
  // (`/nonexistent/ws`), refused before anything is created.
  cli->OutputDirectory("--results", &out->results_dir, io::Parents::kMustExist);
  cli->OutputDirectory("--workspace-root", &out->workspace_root, io::Parents::kMustExist);
  cli->Count("--build-limit", &out->build_limit, 1, 1024);
  DurationOption(cli, "--build-timeout", &out->build_timeout, cli::DurationBounds::AboveZero());
  DurationOption(cli, "--kill-grace", &out->kill_grace);
  DurationOption(cli, "--log-streaming-timeout", &out->log_streaming_timeout);
  DurationOption(cli, "--shutdown-grace", &out->shutdown_grace);
  cli->Choice("--runtime", &out->runtime, {"process", "bwrap"});
  cli->Choice("--network", &out->network, {"host", "none"});
  cli->Size("--max-log-size", &out->max_log_size);
  cli->Flag("--quiet,-q", &out->quiet);
  cli->Flag("--strict", &out->strict);
  cli->Operands(&out->files);
}

CommandHelp RunHelp() {
  auto scratch = std::make_shared<RunOptions>();
  return {"run", kRunUsage,
          [scratch](cli::Options* cli) { DeclareRunOptions(cli, scratch.get()); }};
}

Error ParseDeclared(cli::Options* cli, int argc, char** argv, RunOptions* out) {
  if (std::string problem = cli->Parse(argc, argv); !problem.empty()) {
    out->usage_helps = cli->UsageHelps();
    return Invalid(problem);
  }
  out->help = cli->Help();
  out->bwrap = out->runtime == "bwrap";
  out->network_none = out->network == "none";
  if (out->network_none && !out->bwrap) return Invalid("--network none needs --runtime bwrap");
  return Error();
}

Error ParseRunOptions(int argc, char** argv, RunOptions* out) {
  cli::Options cli;
  DeclareRunOptions(&cli, out);
  Error err = ParseDeclared(&cli, argc, argv, out);
  if (err.ok() && !out->help && out->files.empty()) return Invalid("no pipeline files given");
  return err;
}

}  // namespace tether::worker::cmd
