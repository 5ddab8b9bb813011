// `tether trace`: run a program with tracing on, then report the tasks that
// outlived their scope (zombies), were still running at exit (leaks), and the
// task groups destroyed without Wait.
//
// Exit: 0 clean, 1 findings (per --fail-on), 2 usage or tool error, 3 the
// program itself failed (non-zero status or a signal) and there were no
// findings to fail on.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tether/duration.hpp"
#include "tether/trace/model.hpp"
#include "tether/trace/report.hpp"

namespace tether::tool {
namespace {

constexpr int kClean = 0;
constexpr int kFindings = 1;
constexpr int kToolError = 2;
constexpr int kProgramFailed = 3;

constexpr const char* kUsage =
    "usage: tether trace [--out F] [--grace D] [--format text|json] [--fail-on zombie|leak|none]\n"
    "                    -- PROG [ARGS...]\n"
    "       tether trace --load F [--grace D] [--format text|json] [--fail-on ...]\n"
    "\n"
    "Runs PROG (a program linked with tether_runtime) with TETHER_TRACE set, then reports\n"
    "tasks still running after their scope ended (zombies), tasks running at exit (leaks)\n"
    "and task groups destroyed without Wait.\n"
    "\n"
    "  --out F        keep the trace in F (default: a temporary file, removed afterwards)\n"
    "  --load F       analyse an existing trace file instead of running a program\n"
    "  --grace D      a task may end up to D after its scope (Go duration: 500ms, 2s; default 0)\n"
    "  --format FMT   text (default) or json\n"
    "  --fail-on K    zombie: exit 1 on zombies only; leak (default): on zombies, leaks and\n"
    "                 unwaited groups; none: report only\n"
    "\n"
    "exit: 0 clean, 1 findings, 2 usage or tool error, 3 PROG failed (and no findings)\n";

struct Options {
  std::string out;
  std::string load;
  std::int64_t grace_ns = 0;
  std::string format = "text";
  std::string fail_on = "leak";
  std::vector<std::string> command;
};

int Usage(const std::string& problem) {
  std::cerr << "tether trace: " << problem << "\n" << kUsage;
  return kToolError;
}

// Returns kClean when parsed, else the exit code to return.
int ParseArgs(int argc, char** argv, Options* opt) {
  SeenFlags seen;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      std::string prefix = std::string(flag) + "=";
      if (arg.rfind(prefix, 0) == 0) return argv[i] + prefix.size();
      if (arg == flag && i + 1 < argc) return argv[++i];
      return nullptr;
    };
    auto is = [&](const char* flag) {
      return arg == flag || arg.rfind(std::string(flag) + "=", 0) == 0;
    };
    if (arg == "--") {
      for (++i; i < argc; ++i) opt->command.emplace_back(argv[i]);
      break;
    }
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return -1;
    }
    const char* v = nullptr;
    if (is("--out")) {
      if (!seen.First("--out")) return Usage("--out given twice");
      if (!(v = value("--out"))) return Usage("--out needs a file");
      opt->out = v;
    } else if (is("--load")) {
      if (!seen.First("--load")) return Usage("--load given twice");
      if (!(v = value("--load"))) return Usage("--load needs a file");
      opt->load = v;
    } else if (is("--grace")) {
      if (!seen.First("--grace")) return Usage("--grace given twice");
      if (!(v = value("--grace"))) return Usage("--grace needs a duration");
      Duration grace{};
      if (Error err = ParseDuration(v, &grace); !err.ok()) {
        return Usage("--grace: " + err.message());
      }
      if (grace < Duration::zero()) return Usage("--grace must not be negative");
      opt->grace_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(grace).count();
    } else if (is("--format")) {
      if (!seen.First("--format")) return Usage("--format given twice");
      if (!(v = value("--format"))) return Usage("--format needs text or json");
      opt->format = v;
      if (opt->format != "text" && opt->format != "json") {
        return Usage("--format must be text or json, not '" + opt->format + "'");
      }
    } else if (is("--fail-on")) {
      if (!seen.First("--fail-on")) return Usage("--fail-on given twice");
      if (!(v = value("--fail-on"))) return Usage("--fail-on needs zombie, leak or none");
      opt->fail_on = v;
      if (opt->fail_on != "zombie" && opt->fail_on != "leak" && opt->fail_on != "none") {
        return Usage("--fail-on must be zombie, leak or none, not '" + opt->fail_on + "'");
      }
    } else if (!arg.empty() && arg[0] == '-') {
      return Usage("unknown option '" + arg + "'");
    } else {
      // The program without "--": accept it, everything after is its args.
      for (; i < argc; ++i) opt->command.emplace_back(argv[i]);
      break;
    }
  }
  if (opt->load.empty() && opt->command.empty()) return Usage("no program to run (give -- PROG ARGS)");
  if (!opt->load.empty() && !opt->command.empty()) {
    return Usage("--load and a program to run are exclusive");
  }
  return kClean;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

// Runs the command with TETHER_TRACE=trace_path and waits for it. Returns
// false (with *error) when it could not be started.
bool RunProgram(const std::vector<std::string>& command, const std::string& trace_path,
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
  std::string env_entry = "TETHER_TRACE=" + trace_path;

  // Like system(3): while the program runs, Ctrl-C is its to handle; we
  // stay to report what it left behind.
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);

  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    close(exec_pipe[0]);
    putenv(env_entry.data());
    execvp(argv[0], argv.data());
    int err = errno;
    ssize_t ignored = write(exec_pipe[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
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
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    *error = "cannot run '" + command[0] + "': " + std::strerror(exec_errno);
    return false;
  }
  if (WIFEXITED(status)) outcome->status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome->signal = WTERMSIG(status);
  return true;
}

// --out is checked before the program runs: a build that ran for ten
// minutes must not lose its trace to a typo in the path. The file may exist
// (it is replaced) but must then be a regular file; its directory must exist
// and be writable.
bool CheckTraceOut(const std::string& path, std::string* error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      *error = path + ": error: is a directory; --out names the trace file to write";
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      *error = path + ": error: is not a regular file (a FIFO, device or socket); --out names the trace file to write";
      return false;
    }
    if (::access(path.c_str(), W_OK) != 0) {
      *error = path + ": error: cannot write: " + std::strerror(errno);
      return false;
    }
    return true;
  }
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = path + ": error: the directory " + dir + " does not exist";
    return false;
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    *error = path + ": error: cannot write in " + dir + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

// A fresh temporary file for the trace.
bool MakeTempTrace(std::string* path, std::string* error) {
  const char* dir = std::getenv("TMPDIR");
  std::string templ = std::string(dir && *dir ? dir : "/tmp") + "/tether-trace-XXXXXX.jsonl";
  int fd = mkstemps(templ.data(), 6);
  if (fd < 0) {
    *error = "cannot create a temporary trace file in " + templ + ": " + std::strerror(errno);
    return false;
  }
  close(fd);
  *path = templ;
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

}  // namespace

int RunTrace(int argc, char** argv) {
  Options opt;
  if (int rc = ParseArgs(argc, argv, &opt); rc != kClean) return rc < 0 ? kClean : rc;

  trace::ReportInput input;
  input.grace_ns = opt.grace_ns;
  std::error_code ec;
  input.relative_to = std::filesystem::current_path(ec).string();

  std::string trace_path = !opt.load.empty() ? opt.load : opt.out;
  bool remove_after = false;
  std::string error;
  if (opt.load.empty()) {
    if (!trace_path.empty() && !CheckTraceOut(trace_path, &error)) {
      std::cerr << "tether trace: " << error << "\n";
      return kToolError;
    }
    if (trace_path.empty()) {
      if (!MakeTempTrace(&trace_path, &error)) {
        std::cerr << "tether trace: " << error << "\n";
        return kToolError;
      }
      remove_after = true;
    }
    input.program.command = Joined(opt.command);
    if (!RunProgram(opt.command, trace_path, &input.program, &error)) {
      std::cerr << "tether trace: " << error << "\n";
      if (remove_after) std::remove(trace_path.c_str());
      return kToolError;
    }
  }

  trace::AnalysisOptions analysis;
  analysis.grace_ns = opt.grace_ns;
  trace::Trace loaded;
  std::vector<trace::Finding> findings;
  // One pass, memory bounded by the tasks alive at a time (not the trace).
  Error err = trace::LoadAndAnalyze(trace_path, analysis, &loaded, &findings);
  if (remove_after) std::remove(trace_path.c_str());
  if (!err.ok()) {
    std::cerr << "tether trace: " << err.message() << "\n";
    if (opt.load.empty()) {
      std::cerr << "tether trace: is '" << opt.command[0]
                << "' linked with tether_runtime? (the trace is written by the program itself)\n";
    }
    return kToolError;
  }
  if (!opt.load.empty()) {
    input.program.command = loaded.program;
    input.program.status = loaded.exit_status;
  }
  input.trace = &loaded;
  input.trace_path = remove_after ? std::string() : trace_path;

  input.findings = &findings;
  if (opt.format == "json") {
    trace::WriteJsonReport(std::cout, input);
  } else {
    trace::WriteTextReport(std::cout, input);
  }
  std::cout.flush();

  if (Fails(opt.fail_on, findings)) return kFindings;
  if (input.program.failed()) return kProgramFailed;
  return kClean;
}

}  // namespace tether::tool
