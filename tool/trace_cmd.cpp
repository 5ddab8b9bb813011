// `tether trace`: run a program with tracing on, then report the tasks that
// outlived their scope (zombies), were still running at exit (leaks), and the
// task groups destroyed without Wait.
//
// Exit: 0 clean, 1 findings (per --fail-on), 2 usage or tool error, 3 the
// program itself failed (non-zero status or a signal) and there were no
// findings to fail on.
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "command_args.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "tether/cli/options.hpp"
#include "tether/duration.hpp"
#include "tether/io/process.hpp"
#include "tether/io/write_file.hpp"
#include "tether/trace/model.hpp"
#include "tether/trace/report.hpp"
#include "thread_sites.hpp"

namespace tether::tool {
namespace {

int Usage(const std::string& problem) {
  std::cerr << "tether trace: " << problem << "\n" << kTraceUsage;
  return kExitError;
}

// Returns kExitClean when parsed, -1 after --help, else the exit code to return.
int ParseArgs(int argc, char** argv, TraceArgs* opt) {
  cli::Options cli;
  DeclareTraceOptions(&cli, opt);
  if (std::string problem = cli.Parse(argc, argv); !problem.empty()) {
    if (cli.UsageHelps()) return Usage(problem);
    std::cerr << "tether trace: error: " << problem << "\n";
    return kExitError;
  }
  if (cli.Help()) {
    std::cout << kTraceUsage;
    return -1;
  }
  if (opt->load.empty() && opt->command.empty())
    return Usage("no program to run (give -- PROG ARGS)");
  if (!opt->load.empty() && !opt->command.empty()) {
    return Usage("--load and a program to run are exclusive");
  }
  return kExitClean;
}

std::int64_t GraceNs(const TraceArgs& opt) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(opt.grace).count();
}

std::string Joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

// The program being traced, for the forwarding signal handler (0: not yet
// started), and a termination signal that arrived before it was.
volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_pending_signal = 0;

// SIGTERM/SIGHUP to the tool go to the program: the tool stays to report
// what the program left behind and to remove its temporary trace (a tool
// that died here would leave both the program and the file behind). Before
// the program starts the signal waits for it; after it ended, the signal is
// only noted: `timeout` and CI runners signal the whole process group, and
// the copy that reaches the tool after the program died must not cut the
// report short.
void ForwardToProgram(int sig) {
  const pid_t child = g_child;
  if (child > 0) {
    kill(child, sig);
  } else {
    g_pending_signal = sig;
  }
}

// The tool's dispositions from before its temporary trace is made until it
// exits (never restored: a signal between a restore and the exit would still
// kill the tool after its report): like system(3), SIGINT and SIGQUIT are the
// program's to handle (the tool ignores them); SIGTERM and SIGHUP are
// forwarded (above). The program itself starts with the defaults.
void HoldTerminationSignals() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, nullptr);
  sigaction(SIGQUIT, &ignore, nullptr);
  struct sigaction forward {};
  forward.sa_handler = ForwardToProgram;
  sigemptyset(&forward.sa_mask);
  g_child = 0;
  g_pending_signal = 0;
  sigaction(SIGTERM, &forward, nullptr);
  sigaction(SIGHUP, &forward, nullptr);
}

// In the forked child, before exec: the program gets the defaults.
void DefaultSignalsInChild() {
  for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP}) signal(sig, SIG_DFL);
}

std::int64_t MonotonicNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Runs the command with TETHER_TRACE=trace_path and waits for it. Returns
// false (with *error) when it could not be started.
// Not io::RunProgram (lib/io), which waits with the pid to itself: the tool
// forwards the signals it receives to the program while it runs (g_child),
// gives it its own environment and leaves its terminal to it.
bool RunProgram(const std::vector<std::string>& command, const std::vector<std::string>& env,
                trace::ProgramOutcome* outcome, std::string* error) {
  // The child reports a failed exec through this pipe (closed on success).
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::vector<char*> argv;
  for (const std::string& w : command) argv.push_back(const_cast<char*>(w.c_str()));
  argv.push_back(nullptr);

  // The caller called HoldTerminationSignals.
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    DefaultSignalsInChild();
    close(exec_pipe[0]);
    for (const std::string& entry : env) putenv(const_cast<char*>(entry.c_str()));
    execvp(argv[0], argv.data());
    int err = errno;
    ssize_t ignored = write(exec_pipe[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  g_child = pid;
  if (g_pending_signal != 0) kill(pid, g_pending_signal);
  close(exec_pipe[1]);
  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  close(exec_pipe[0]);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  outcome->ended_ns = MonotonicNowNs();
  g_child = 0;  // from here a SIGTERM or SIGHUP is only noted
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    *error = "cannot run '" + command[0] + "': " + std::strerror(exec_errno);
    return false;
  }
  if (WIFEXITED(status)) outcome->status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome->signal = WTERMSIG(status);
  return true;
}

// The file PROG names: itself when it has a slash, else found on PATH.
std::string ProgramFile(const std::string& prog) {
  std::string found = io::FindInPath(prog);
  return found.empty() ? prog : found;
}

// What `tether trace` needs to know of PROG's file: whether the loader can
// preload into it (an ELF program with an interpreter, or a script: its
// interpreter is) and whether it carries libtether's tracer (the
// TETHER_TRACE start-up object) or the threads' recording, linked in
// (Tether::threads_wrap: lib/threads/src/wrap.cpp's marker).
struct ProgramKind {
  bool dynamic = false;
  bool links_tracer = false;
  bool wraps_threads = false;
};

ProgramKind InspectProgram(const std::string& file) {
  ProgramKind kind;
  std::string bytes;
  if (std::FILE* f = std::fopen(file.c_str(), "rb")) {
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    std::fclose(f);
  }
  kind.links_tracer = bytes.find("TETHER_TRACE") != std::string::npos;
  kind.wraps_threads = bytes.find("TETHER_THREADS_WRAP_V1") != std::string::npos;
  if (bytes.rfind("#!", 0) == 0) {
    kind.dynamic = true;
  } else if (bytes.size() >= sizeof(Elf64_Ehdr) && bytes.compare(0, 4, ELFMAG) == 0 &&
             bytes[EI_CLASS] == ELFCLASS64) {
    Elf64_Ehdr eh;
    std::memcpy(&eh, bytes.data(), sizeof eh);
    for (int i = 0; i < eh.e_phnum; ++i) {
      const std::size_t at = eh.e_phoff + static_cast<std::size_t>(i) * eh.e_phentsize;
      if (at + sizeof(Elf64_Phdr) > bytes.size()) break;
      Elf64_Phdr ph;
      std::memcpy(&ph, bytes.data() + at, sizeof ph);
      if (ph.p_type == PT_INTERP) kind.dynamic = true;
    }
  }
  return kind;
}

// libtether_threads.so: beside the tool (the build tree), or in ../lib (an
// installed tether). Empty when neither exists.
std::string ThreadsShim() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  for (const auto& candidate :
       {self.parent_path() / "libtether_threads.so",
        self.parent_path().parent_path() / "lib" / "libtether_threads.so"}) {
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
  }
  return "";
}

// The parts that the processes the traced program started wrote (each
// child's libtether_threads.so writes THREADS_PATH.PID), in the order they
// started, so that a child's part comes after the part of the process that
// started it (the reader wants its `process` task first).
std::vector<std::string> ChildParts(const std::string& threads_path) {
  const std::filesystem::path base(threads_path);
  const std::string prefix = base.filename().string() + ".";
  std::vector<std::pair<long long, std::string>> parts;
  std::error_code ec;
  const std::filesystem::path dir = base.has_parent_path() ? base.parent_path() : ".";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.find_first_not_of("0123456789", prefix.size()) != std::string::npos) {
      continue;
    }
    // The header's time: the last `"t":` of the first line.
    std::ifstream in(entry.path());
    std::string header;
    std::getline(in, header);
    const std::size_t at = header.rfind("\"t\":");
    const long long t = at == std::string::npos ? 0 : std::atoll(header.c_str() + at + 4);
    parts.emplace_back(t, entry.path().string());
  }
  std::sort(parts.begin(), parts.end());
  std::vector<std::string> paths;
  for (auto& part : parts) paths.push_back(std::move(part.second));
  return paths;
}

void RemoveFiles(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) std::remove(path.c_str());
}

// The trace is written by up to three kinds of writer, each with its own
// file, and after the run they become the one trace file, so that `--load F`
// and `tether report F` read what the live run reported:
//  - the threads' recorder (libtether_threads.so) beside a libtether
//    program's own trace (threads_path != trace_path): its records first (a
//    thread names the libtether task that created it, and the one-pass
//    analysis keeps a task that a thread read before it names);
//  - the program's own records (trace_path; none when only threads were
//    recorded: then threads_path is trace_path);
//  - the parts of the processes it started (children), last.
// A part's last line, when its writer was killed in the middle of writing it
// (no newline), is dropped; the loader takes each header for the start of a
// part. Written whole or not at all (io::AtomicFile); the other files are
// removed.
bool MergeParts(const std::string& trace_path, const std::string& threads_path,
                const std::vector<std::string>& children, std::string* error) {
  const bool separate_threads = threads_path != trace_path;
  std::ifstream threads;
  if (separate_threads) {
    threads.open(threads_path, std::ios::binary);
    if (!threads && children.empty()) return true;  // the program wrote no thread records
  } else if (children.empty()) {
    return true;  // the threads' file is the trace, and nothing to add
  }
  std::ifstream program(trace_path, std::ios::binary);  // none: only threads were recorded
  io::AtomicFile out;
  std::optional<io::WriteError> w = io::AtomicFile::Create(trace_path, &out);
  // Copies whole lines: a last line without its newline was cut short.
  auto copy = [&](std::ifstream& in, const std::string& path) {
    std::string chunk(1 << 16, '\0'), pending;
    while (!w && in) {
      in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      pending.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
      const std::size_t whole = pending.rfind('\n') + 1;  // 0 when none
      if (whole > 0) w = out.Write(std::string_view(pending).substr(0, whole));
      pending.erase(0, whole);
    }
    if (!w && in.bad()) w = io::WriteError{path, "cannot be read", errno};
  };
  if (!w && threads) copy(threads, threads_path);
  if (!w && program) copy(program, trace_path);
  for (const std::string& child : children) {
    std::ifstream part(child, std::ios::binary);
    if (!w && part) copy(part, child);
  }
  if (!w) w = out.Commit();
  if (w) {
    *error = w->ToString();
    return false;
  }
  if (separate_threads) std::remove(threads_path.c_str());
  RemoveFiles(children);
  return true;
}

bool Fails(const std::string& fail_on, const std::vector<trace::Finding>& findings) {
  if (fail_on == "none") return false;
  for (const trace::Finding& f : findings) {
    if (f.kind == trace::FindingKind::kZombie) return true;
    if (fail_on == "leak") return true;  // leaks and unwaited groups too
  }
  return false;
}

// Runs PROG with tracing on (--threads decides how), into *trace_path (a
// temporary file when --out is not given, which *temp_trace then owns). Returns
// kExitClean, or kExitError when it could not run (said on stderr).
int RunTraced(const TraceArgs& opt, std::string* trace_path_out, io::RemovedAtExit* temp_trace,
              std::string* threads_path_out, trace::ReportInput* input) {
  std::string& trace_path = *trace_path_out;
  std::string& threads_path = *threads_path_out;
  std::string error;
  // --out was checked when parsed (cli::Options::OutputFile): a build that
  // ran for ten minutes must not lose its trace to a typo in the path.
  if (trace_path.empty()) {
    std::optional<std::string> temp =
        io::MakeTempFile(io::TempDirectory(), "tether-trace-", ".jsonl", &error);
    if (!temp) {
      std::cerr << "tether trace: " << error << "\n";
      return kExitError;
    }
    trace_path = *temp;
    *temp_trace = io::RemovedAtExit(trace_path);
  }
  input->program.command = Joined(opt.command);
  const ProgramKind kind = InspectProgram(ProgramFile(opt.command[0]));
  const std::string shim = ThreadsShim();
  // A program linked with Tether::threads_wrap records its threads itself,
  // even with --threads off, and a static one is not preloaded. A dynamic one
  // still is (libstdc++.so's calls to pthread_create are not wrapped): the
  // preloaded copy records, the linked one stays off (lib/threads/src/wrap.cpp).
  const bool preload = (opt.threads == "on" && (kind.dynamic || !kind.wraps_threads)) ||
                       (opt.threads.empty() && kind.dynamic && !shim.empty());
  const bool threads = preload || kind.wraps_threads;
  if (preload && (shim.empty() || !kind.dynamic)) {
    std::cerr << "tether trace: --threads on: "
              << (shim.empty()
                      ? "libtether_threads.so is not installed beside tether"
                      : "'" + opt.command[0] + "' is statically linked (nothing can be preloaded)")
              << "\n";
    return kExitError;
  }
  std::vector<std::string> env;
  if (!threads || kind.links_tracer) env.push_back("TETHER_TRACE=" + trace_path);
  // The per-test listener's and ScopeVerifier's grace and ignore rules are
  // the report's (gtest_threads.hpp, verify.hpp).
  env.push_back(
      "TETHER_GRACE_MS=" +
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(opt.grace).count()));
  for (const auto& [variable, list] : {std::pair{"TETHER_IGNORE_SITES", &opt.ignore},
                                       std::pair{"TETHER_IGNORE_TOP", &opt.ignore_top},
                                       std::pair{"TETHER_IGNORE_RUNNING", &opt.ignore_running}}) {
    if (list->empty()) continue;
    std::string patterns;
    for (const std::string& p : *list) patterns += (patterns.empty() ? "" : "\n") + p;
    env.push_back(std::string(variable) + "=" + patterns);
  }
  if (threads) {
    // Beside a libtether trace the threads go to a file of their own,
    // merged after the run; alone, the threads' file is the trace.
    threads_path = kind.links_tracer ? trace_path + ".threads" : trace_path;
    env.push_back("TETHER_THREADS_TRACE=" + threads_path);
  }
  if (preload) {
    const char* preloaded = std::getenv("LD_PRELOAD");
    env.push_back("LD_PRELOAD=" + shim +
                  (preloaded && *preloaded ? ":" + std::string(preloaded) : ""));
  }
  const bool ran = RunProgram(opt.command, env, &input->program, &error);
  if (!ran) {
    std::cerr << "tether trace: " << error << "\n";
    if (threads_path != trace_path && !threads_path.empty()) std::remove(threads_path.c_str());
    if (!threads_path.empty()) RemoveFiles(ChildParts(threads_path));
    return kExitError;
  }
  return kExitClean;
}

}  // namespace

int RunTrace(int argc, char** argv) {
  TraceArgs opt;
  if (int rc = ParseArgs(argc, argv, &opt); rc != kExitClean) return rc < 0 ? kExitClean : rc;

  trace::ReportInput input;
  input.grace_ns = GraceNs(opt);
  std::error_code ec;
  input.relative_to = std::filesystem::current_path(ec).string();

  std::string trace_path = !opt.load.empty() ? opt.load : opt.out;
  io::RemovedAtExit temp_trace;  // the trace when --out and --load are not given
  std::string threads_path;      // where libtether_threads.so wrote (empty: not preloaded)
  // From before the temporary trace exists until the tool exits.
  if (opt.load.empty()) HoldTerminationSignals();
  if (opt.load.empty()) {
    if (int rc = RunTraced(opt, &trace_path, &temp_trace, &threads_path, &input); rc != kExitClean)
      return rc;
  }

  trace::AnalysisOptions analysis;
  analysis.grace_ns = GraceNs(opt);
  trace::Trace loaded;
  std::vector<trace::Finding> findings;
  analysis.program_end_ns = input.program.ended_ns;
  if (!threads_path.empty()) {
    std::string error;
    const std::vector<std::string> children = ChildParts(threads_path);
    if (!MergeParts(trace_path, threads_path, children, &error)) {
      std::cerr << "tether trace: cannot add the threads' records to the trace: " << error << "\n";
      if (threads_path != trace_path) std::remove(threads_path.c_str());
      RemoveFiles(children);
      return kExitError;
    }
  }
  // One pass, memory bounded by the tasks alive at a time (not the trace):
  // the same analysis as `--load` of the same file.
  Error err = trace::LoadAndAnalyze(trace_path, analysis, &loaded, &findings);
  const bool trace_kept = temp_trace.path().empty();
  temp_trace.Remove();
  if (!err.ok()) {
    std::cerr << "tether trace: " << err.message() << "\n";
    if (opt.load.empty()) {
      std::cerr
          << "tether trace: is '" << opt.command[0]
          << "' linked with tether_runtime? (without --threads on, the trace is written by the "
             "program itself)\n";
    }
    return kExitError;
  }
  if (!opt.load.empty()) {
    input.program.command = loaded.program;
    input.program.status = loaded.exit_status;
  }
  ResolveThreadSites(&loaded);
  input.ignored = trace::DropIgnored(
      loaded, {.created = opt.ignore, .running_top = opt.ignore_top, .running = opt.ignore_running},
      &findings);
  input.trace = &loaded;
  input.trace_path = trace_kept ? trace_path : std::string();

  input.findings = &findings;
  if (opt.format == "json") {
    trace::WriteJsonReport(std::cout, input);
  } else {
    trace::WriteTextReport(std::cout, input);
  }
  std::cout.flush();

  if (Fails(opt.fail_on, findings)) return kExitFindings;
  if (input.program.failed()) return kExitProgramFailed;
  return kExitClean;
}

}  // namespace tether::tool
