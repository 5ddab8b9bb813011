// The command lines of `tether check`, `trace` and `report` (command_args.hpp).
#include "command_args.hpp"

#include <iterator>

namespace tether::tool {

const char kCheckUsage[] =
    "usage: tether check [-p BUILD_DIR] [--model FILE]... [--checks GLOB,...]\n"
    "                    [--format text|json|sarif] [--output F] [--export-fixes F] [--fix]\n"
    "                    [-j N] [--graph F.json] [--sarif-root DIR] [--exclude SUBSTR]...\n"
    "                    [--max-chain-depth N] [--baseline F] [--cache-dir DIR] [--quiet]\n"
    "                    [--warnings-as-errors GLOB,...] [--header-filter REGEX]\n"
    "                    [--line-filter JSON] [--diff F]\n"
    "                    [--list-checks]\n"
    "                    [FILES...] [-- COMPILER ARGS]\n"
    "\n"
    "Finds detached contexts and unwaited tasks (see docs/checker.md).\n"
    "  -p, --build-dir BUILD_DIR\n"
    "                     directory with compile_commands.json (all its files unless FILES are\n"
    "                     given)\n"
    "  --model FILE       an API model (JSON); repeat to merge several; replaces the default,\n"
    "                     builtin:libtether and builtin:std-stop-token "
    "(std::thread/jthread/stop_token)\n"
    "  --checks GLOBS     clang-tidy style, e.g. -*,tether-lost-cancel (default tether-*);\n"
    "                     a list that enables no check is an error\n"
    "  --format F         text (default), json or sarif\n"
    "  --output F         write the report to F instead of stdout\n"
    "  --export-fixes F   write fix-its as YAML for clang-apply-replacements\n"
    "  --fix              apply the fix-its in place\n"
    "  -j, --jobs N       analyse N translation units in parallel (1 to 1024)\n"
    "  --graph F          write the static context-flow graph (docs/static-graph-format.md)\n"
    "  --sarif-root DIR   make SARIF URIs relative to DIR (default: the git toplevel, or .)\n"
    "  --exclude SUBSTR   skip translation units whose path contains SUBSTR\n"
    "  --max-chain-depth N\n"
    "                     how many calls deep context-not-forwarded follows a context that is\n"
    "                     not passed on (default 3)\n"
    "  --baseline F       a JSON or SARIF report of an earlier run: its findings are known and\n"
    "                     not reported again (matched by fingerprint, so line moves don't matter)\n"
    "  --cache-dir DIR    reuse the results of translation units whose files, flags and model\n"
    "                     are unchanged since an earlier run with the same DIR\n"
    "  --warnings-as-errors GLOBS\n"
    "                     the findings of the checks GLOBS enables are errors, and only they\n"
    "                     make the run exit 1 (the others are reported and exit 0)\n"
    "  --header-filter REGEX\n"
    "                     report findings in headers only when the header's path matches REGEX\n"
    "                     (POSIX extended, as clang-tidy's); a main file's always (default: every\n"
    "                     header that is not a system header)\n"
    "  --line-filter JSON report only on these lines, as clang-tidy's option:\n"
    "                     [{\"name\":\"src/a.cpp\",\"lines\":[[1,3],[5,5]]},{\"name\":\"b.h\"}]\n"
    "  --diff F           report only on the lines a unified diff adds or changes (F, or - for\n"
    "                     stdin): git diff -U0 origin/main | tether check --diff - -p build\n"
    "  --quiet            no progress lines on stderr (the summary line stays)\n"
    "  --list-checks      list the checks --checks enables, with what each finds, and exit\n"
    "--output, --export-fixes and --graph are checked before the analysis: a file that\n"
    "cannot be written is an error at once.\n"
    "Exit: 0 no findings, 1 findings (with --warnings-as-errors: findings of its checks),\n"
    "2 analysis failed, or a usage or input error (options, models, compile database).\n";

const char kTraceUsage[] =
    "usage: tether trace [--out F] [--grace D] [--format text|json] [--fail-on zombie|leak|none]\n"
    "                    [--threads on|off] [--ignore P]... -- PROG [ARGS...]\n"
    "       tether trace --load F [--grace D] [--format text|json] [--fail-on ...]\n"
    "\n"
    "Runs PROG with tracing on, then reports tasks still running after their scope ended\n"
    "(zombies), tasks and threads running at exit (leaks) and task groups destroyed without\n"
    "Wait. A program linked with tether_runtime traces its libtether tasks; any dynamically\n"
    "linked program gets libtether_threads.so preloaded, which traces its threads.\n"
    "\n"
    "  --out F        keep the trace in F (default: a temporary file, removed afterwards)\n"
    "  --load F       analyse an existing trace file instead of running a program\n"
    "  --grace D      a task may end up to D after its scope (Go duration: 500ms, 2s; default 0)\n"
    "  --format FMT   text (default) or json\n"
    "  --fail-on K    zombie: exit 1 on zombies only; leak (default): on zombies, leaks and\n"
    "                 unwaited groups; none: report only\n"
    "  --threads M    on: trace PROG's threads (preload libtether_threads.so); off: do not.\n"
    "                 Default: on for every dynamically linked PROG, libtether or not\n"
    "  --ignore P     drop zombies and leaks spawned at or called from the frame P names: a\n"
    "                 function (PosixEnv::Schedule) or FILE:LINE; may be repeated. For threads\n"
    "                 that live as long as the process by design\n"
    "  --ignore-top P drop a zombie or leaked thread whose innermost frame of the program's\n"
    "                 own code, where it was running when found (\"running at\"), P names\n"
    "                 (goleak's IgnoreTopFunction); may be repeated\n"
    "  --ignore-running P  the same for any frame where it was running (IgnoreAnyFunction)\n"
    "\n"
    "exit: 0 clean, 1 findings, 2 usage or tool error, 3 PROG failed (and no findings)\n";

const char kReportUsage[] =
    "usage: tether report INPUT [--format json|dot|svg|html|perfetto|timeline-svg|text]\n"
    "                           [-o OUT] [--grace DURATION] [--group-above N]\n"
    "                           [--static GRAPH.json]\n"
    "\n"
    "INPUT is a trace (TETHER_TRACE=..., docs/trace-format.md) or a static graph\n"
    "(tether check --graph F.json); the kind is detected from the first record.\n"
    "  --format F        json (default), dot, svg, html (one self-contained file), perfetto,\n"
    "                    timeline-svg (traces: a lane per scope, zombie overhangs in red),\n"
    "                    text (with --static: the static and runtime findings joined)\n"
    "  -o, --output OUT  where to write (default: standard output)\n"
    "  --grace D         traces: a task ending within D after its scope is not a zombie\n"
    "                    (e.g. 50ms, 2s; default 0)\n"
    "  --group-above N   above N tasks (default 500), group the graph's nodes and fold the\n"
    "                    timeline's tasks by spawn site\n"
    "  --static G        traces: join the checker's findings (tether check --graph G) to the\n"
    "                    runtime findings by source line, in the json, html and text formats\n"
    "Exit: 0 no findings, 1 findings, 2 usage or input error.\n";

CheckOptionHandles DeclareCheckOptions(cli::Options* cli, CheckArgs* args) {
  check::RunOptions& options = args->options;
  cli->Text("-p,--build-dir", &options.build_dir, "a directory");
  cli->Repeated("--model", &args->models, "a file");
  cli->Text("--checks", &options.checks, "a glob list");
  cli->Choice("--format", &args->format, {"text", "json", "sarif"});
  cli->OutputFile("--output", &args->output);
  cli->OutputFile("--export-fixes", &args->export_fixes);
  cli->Flag("--fix", &args->fix);
  cli->Count("-j,--jobs", &options.jobs, 1, 1024);
  cli->OutputFile("--graph", &args->graph);
  cli->Text("--sarif-root", &args->sarif_root, "a directory");
  cli->Repeated("--exclude", &options.exclude_substrings, "a substring");
  cli->Count("--max-chain-depth", &options.max_chain_depth);
  cli->OutputDirectory("--cache-dir", &options.cache_dir);
  cli->InputFile("--baseline", &args->baseline_file);
  cli->Flag("--quiet", &args->quiet);
  cli->Flag("--list-checks", &args->list_checks);
  CheckOptionHandles handles;
  handles.warnings_as_errors =
      cli->Text("--warnings-as-errors", &args->warnings_as_errors, "a glob list");
  handles.header_filter =
      cli->Text("--header-filter", &args->header_filter, "a regular expression");
  cli->Text("--line-filter", &args->line_filter, "a JSON list");
  cli->InputFile("--diff", &args->diff, cli::Dash::kStdin);
  cli->Operands(&options.files);
  cli->AfterDashes(&options.extra_args, &options.have_fixed_args);
  return handles;
}

void DeclareTraceOptions(cli::Options* cli, TraceArgs* args) {
  cli->OutputFile("--out", &args->out, {.regular_only = true});
  cli->InputFile("--load", &args->load);
  cli->DurationValue("--grace", &args->grace);
  cli->Choice("--format", &args->format, {"text", "json"});
  cli->Choice("--fail-on", &args->fail_on, {"zombie", "leak", "none"});
  cli->Choice("--threads", &args->threads, {"on", "off"});
  cli->Repeated("--ignore", &args->ignore, "a function or FILE:LINE");
  cli->Repeated("--ignore-top", &args->ignore_top, "a function or FILE:LINE");
  cli->Repeated("--ignore-running", &args->ignore_running, "a function or FILE:LINE");
  cli->Command(&args->command);
}

void DeclareReportOptions(cli::Options* cli, ReportArgs* args) {
  cli->Choice(
      "--format", &args->format,
      std::vector<std::string>(std::begin(kReportFormatNames), std::end(kReportFormatNames)));
  cli->OutputFile("--output,-o", &args->output);
  cli->DurationValue("--grace", &args->grace);
  cli->Count("--group-above", &args->group_above);
  cli->InputFile("--static", &args->static_path);
  cli->Operands(&args->inputs);
}

}  // namespace tether::tool
