// RunProgram and FindInPath (process.hpp).
#include "tether/io/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

extern char** environ;

namespace tether::io {

namespace {

// A pipe whose ends close themselves.
struct Pipe {
  int fd[2] = {-1, -1};
  bool Open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
  void Close(int end) {
    if (fd[end] >= 0) ::close(fd[end]);
    fd[end] = -1;
  }
  ~Pipe() {
    Close(0);
    Close(1);
  }
};

using Clock = std::chrono::steady_clock;

// Feeds `input` to in_fd and drains out_fd and err_fd (-1: none) until both
// reach end-of-file or the deadline passes. Returns false on the deadline.
bool Exchange(const std::string& input, int in_fd, int out_fd, int err_fd, std::string* out,
              std::string* err, std::optional<Clock::time_point> deadline) {
  std::size_t written = 0;
  if (in_fd >= 0) ::fcntl(in_fd, F_SETFL, O_NONBLOCK);
  if (input.empty() && in_fd >= 0) {
    ::close(in_fd);
    in_fd = -1;
  }
  char buf[65536];
  while (out_fd >= 0 || err_fd >= 0) {
    pollfd fds[3] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {in_fd, POLLOUT, 0}};
    int wait_ms = -1;
    if (deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now());
      if (left.count() <= 0) return false;
      wait_ms = static_cast<int>(left.count());
    }
    if (::poll(fds, 3, wait_ms) < 0) {
      if (errno == EINTR) continue;
      return true;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? out : err)->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        (i == 0 ? out_fd : err_fd) = -1;  // the caller's Pipe closes it
      }
    }
    if (in_fd >= 0 && fds[2].revents != 0) {
      const ssize_t n = ::write(in_fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) {
        ::close(in_fd);  // all given (or the program stopped reading): end of its input
        in_fd = -1;
      }
    }
  }
  if (in_fd >= 0) ::close(in_fd);
  return true;
}

}  // namespace

bool ProgramResult::Succeeded() const {
  return started && !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string ProgramResult::Describe() const {
  if (!started) return error;
  if (timed_out) return "timed out";
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

ProgramResult RunProgram(const std::vector<std::string>& argv, const ProgramOptions& options) {
  ProgramResult result;
  if (argv.empty()) {
    result.error = "no program to run";
    return result;
  }
  if (FindInPath(argv[0]).empty()) {
    result.not_found = true;
    result.error = "'" + argv[0] + "' was not found in PATH";
    return result;
  }
  Pipe in, out, err;
  if (!in.Open() || !out.Open() || (options.capture_err && !err.Open())) {
    result.error = std::string("cannot make a pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  if (options.capture_err) {
    posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.not_found = rc == ENOENT;
    result.error = "cannot run '" + argv[0] + "': " + std::strerror(rc);
    return result;
  }
  result.started = true;
  in.Close(0);
  out.Close(1);
  err.Close(1);
  std::optional<Clock::time_point> deadline;
  if (options.timeout.count() > 0) deadline = Clock::now() + options.timeout;
  const int in_fd = in.fd[1];
  in.fd[1] = -1;  // Exchange closes it when the input is written
  if (!Exchange(options.input, in_fd, out.fd[0], options.capture_err ? err.fd[0] : -1, &result.out,
                &result.err, deadline)) {
    result.timed_out = true;
    ::kill(pid, SIGKILL);
  }
  // Its output is closed; it may still run (until the deadline, if any).
  while (true) {
    const pid_t done = ::waitpid(pid, &result.status, deadline ? WNOHANG : 0);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (done == 0 && Clock::now() >= *deadline) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      deadline.reset();  // now wait for it to be gone
    } else if (done == 0) {
      ::poll(nullptr, 0, 1);
    }
  }
  return result;
}

namespace {
bool IsProgram(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}
}  // namespace

std::string FindInPath(std::string_view name) {
  if (name.empty()) return "";
  const std::string n(name);
  if (n.find('/') != std::string::npos) return IsProgram(n) ? n : "";
  const char* path = std::getenv("PATH");
  std::string_view dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + n;
    if (IsProgram(candidate)) return candidate;
    if (colon == std::string_view::npos) return "";
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace tether::io
