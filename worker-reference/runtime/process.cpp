#include "runtime/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "runtime/cgroup.hpp"
#include "runtime/clone_spawn.hpp"
#include "runtime/proc_scan.hpp"
#include "runtime/reaper.hpp"
#include "runtime/wake_fd.hpp"
#include "tether/io/process.hpp"
#include "tether/io/write_file.hpp"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

namespace tether::worker::runtime {
namespace {

Error Errno(const std::string& what) {
  return Error(ErrorCode::kIo, what + ": " + std::strerror(errno));
}

int ToMillis(Duration d) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  if (ms < 0) return 0;
  if (ms > 24 * 3600 * 1000) return 24 * 3600 * 1000;
  return static_cast<int>(ms);
}

}  // namespace

// One started container: its session/process-group leader (pid == pgid),
// a pidfd to wait on it, and the read end of its output pipe until a
// LogTail takes it. One caller at a time (the executor's phases are ordered:
// Exec, then Destroy), so no lock.
class Process {
 public:
  // cgroup (may be null): the container's own cgroup, which the process
  // starts in and which is killed as a whole when the container ends.
  static Error Spawn(const ProcessSpec& spec, const std::string& cwd,
                     std::unique_ptr<Cgroup> cgroup, std::unique_ptr<Process>* out);
  ~Process() {
    if (!status_.exited) KillAndReap();
    if (pidfd_ >= 0) ::close(pidfd_);
    if (output_fd_ >= 0) ::close(output_fd_);
  }

  int TakeOutput() { return std::exchange(output_fd_, -1); }

  // Ok once the main process has exited (not yet reaped); ctx.Err() or
  // DeadlineExceeded (timeout_ms) otherwise. A readable kill_now_fd (>= 0)
  // ends the wait at once, as kFailed.
  Error WaitExited(const Context& ctx, int timeout_ms, int kill_now_fd = -1) {
    if (status_.exited) return Error();
    int fds[2] = {pidfd_, kill_now_fd};
    PollResult ready = PollWithContext(ctx, fds, 2, timeout_ms);
    if (ready.err.ok() && !ready.ready[0]) return Error(ErrorCode::kFailed, "killed now");
    return ready.err;
  }

  // SIGTERMs the group. A main process that has already exited (a zombie:
  // exited is set only once it is reaped) ended on its own, so its status
  // stays its own: a service that failed by itself is a failure, not
  // "stopped when the build ended".
  void Terminate() {
    if (status_.exited || term_sent_) return;
    term_sent_ = true;
    term_sent_at_ = Clock::now();
    if (!MainExited()) status_.stopped_by_worker = true;
    if (!main_is_wrapper_) {
      ::kill(-pid_, SIGTERM);
      return;
    }
    // bwrap would die of SIGTERM itself (143, whatever the step does about
    // it): the step's processes get it, bwrap passes on their exit status.
    for (const ProcInfo& member : ProcessesInGroup(pid_)) {
      if (member.pid != pid_) ::kill(member.pid, SIGTERM);
    }
  }
  // The main process only wraps the container's own (bwrap): SIGTERM goes
  // to the rest of the group.
  void set_main_is_wrapper() { main_is_wrapper_ = true; }
  bool term_sent() const { return term_sent_; }
  TimePoint term_sent_at() const { return term_sent_at_; }

  // SIGKILLs whatever is left of the group, reaps the main process (keeping
  // its own exit status if it had already exited) and every member of the
  // group that is (or becomes, through the subreaper) our child.
  void KillAndReap() {
    if (status_.exited) return;
    if (!MainExited()) status_.stopped_by_worker = true;
    // The main process still holds the group id (alive or a zombie), so the
    // id cannot have been reused: killing the group is safe.
    ::kill(-pid_, SIGKILL);
    // And everything in the container's cgroup, also what left the group.
    if (cgroup_) cgroup_->KillAll();
    siginfo_t info{};
    while (::waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(pidfd_), &info, WEXITED) <
               0 &&
           errno == EINTR) {
    }
    status_.exited = true;
    ForgetMain(pid_);
    if (info.si_code == CLD_EXITED) {
      status_.code = info.si_status;
    } else {
      status_.signal = info.si_status;
      status_.code = 128 + info.si_status;
    }
    ReapProcessGroup(pid_);
    ReapOrphans();  // what left the group and has exited by now
  }

  const ExitStatus& status() const { return status_; }

 private:
  // True once the main process has exited (reaped or not): its pidfd is
  // readable then. Never blocks.
  bool MainExited() {
    if (status_.exited) return true;
    pollfd pfd{pidfd_, POLLIN, 0};
    while (::poll(&pfd, 1, 0) < 0 && errno == EINTR) {
    }
    return (pfd.revents & POLLIN) != 0;
  }

  Process(pid_t pid, int pidfd, int output_fd, std::unique_ptr<Cgroup> cgroup)
      : pid_(pid), pidfd_(pidfd), output_fd_(output_fd), cgroup_(std::move(cgroup)) {}

  pid_t pid_;
  int pidfd_;
  int output_fd_;
  std::unique_ptr<Cgroup> cgroup_;  // null: a process group only; removed after the process
  ExitStatus status_;
  bool term_sent_ = false;
  bool main_is_wrapper_ = false;
  TimePoint term_sent_at_{};
};

namespace {

// posix_spawnp's search: argv0 in the worker's PATH, done before the fork
// (the child of a multi-threaded process may not allocate).
// A path with a slash is run as it is: its exec says why it cannot be (EACCES
// for a file without the x bit, which the search would call not found).
bool FindProgram(const std::string& argv0, std::string* path) {
  *path = argv0.find('/') != std::string::npos ? argv0 : io::FindInPath(argv0);
  return !path->empty();
}

}  // namespace

Error Process::Spawn(const ProcessSpec& spec, const std::string& cwd,
                     std::unique_ptr<Cgroup> cgroup, std::unique_ptr<Process>* out) {
  if (spec.argv.empty()) return Error(ErrorCode::kInvalidArgument, "nothing to run");
  std::string program;
  if (cgroup && !FindProgram(spec.argv[0], &program)) {
    return Error(ErrorCode::kIo, "cannot start " + spec.argv[0] + ": " + std::strerror(ENOENT));
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Errno("pipe");
  ::fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);  // fewer wake-ups for chatty steps; best effort

  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  if (cgroup) {
    SpawnPlan plan{program.c_str(), argv.data(), envp.data(), cwd.c_str(), fds[1]};
    pid_t pid = -1;
    int pidfd = -1;
    std::unique_lock<std::mutex> spawn_lock = SpawnLock();  // see reaper.hpp
    Error err = SpawnIntoCgroup(plan, cgroup->fd(), &pid, &pidfd);
    if (err.ok()) RegisterMain(pid);
    spawn_lock.unlock();
    if (err.ok() || !err.Is(ErrorCode::kFailed)) {
      ::close(fds[1]);
      if (!err.ok()) {
        ::close(fds[0]);
        return Error(ErrorCode::kIo, "cannot start " + spec.argv[0] + ": " +
                                         err.message().substr(err.message().rfind(": ") + 2));
      }
      out->reset(new Process(pid, pidfd, fds[0], std::move(cgroup)));
      return Error();
    }
    cgroup.reset();  // clone3 refused (seccomp, old kernel): a process group only
  }

  // A step is not io::RunProgram's helper: it runs in its own process group
  // (or cgroup, above), its output goes to the log pipe the executor streams,
  // and the executor waits for, signals and reaps it through its pidfd.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  // No descriptor of the worker (other steps' pipes, log files) leaks into
  // a step: a leaked pipe end would keep another step's log open.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A new session makes the step a process group of its own that the worker
  // can signal as a whole. The worker blocks SIGINT/SIGTERM (it reads them
  // from a signalfd), so the child gets an empty mask and default handlers.
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attr, &empty);
  sigset_t defaults;
  sigfillset(&defaults);
  sigdelset(&defaults, SIGKILL);
  sigdelset(&defaults, SIGSTOP);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  pid_t pid = -1;
  std::unique_lock<std::mutex> spawn_lock = SpawnLock();  // see reaper.hpp
  int rc = spec.argv[0].find('/') != std::string::npos
               ? ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data())
               : ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  if (rc == 0) RegisterMain(pid);
  spawn_lock.unlock();
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return Error(ErrorCode::kIo, "cannot start " + spec.argv[0] + ": " + std::strerror(rc));
  }
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    Error err = Errno("pidfd_open");
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    ForgetMain(pid);
    ::close(fds[0]);
    return err;
  }
  out->reset(new Process(pid, pidfd, fds[0], nullptr));
  return Error();
}

PipeTail::~PipeTail() {
  if (fd_ >= 0) ::close(fd_);
}

Error PipeTail::Read(const Context& ctx, char* buf, std::size_t cap, std::size_t* n) {
  *n = 0;
  if (fd_ < 0) return Error::Closed();
  for (;;) {
    if (Error err = ctx.Err(); !err.ok()) return err;
    ssize_t got = ::read(fd_, buf, cap);  // the fd is non-blocking
    if (got > 0) {
      *n = static_cast<std::size_t>(got);
      return Error();
    }
    if (got == 0) return Error::Closed();
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return Errno("read");
    PollResult ready = PollWithContext(ctx, &fd_, 1, -1);
    if (!ready.err.ok()) return ready.err;
  }
}

ProcessRuntime::ProcessRuntime(Options options) : options_(std::move(options)) {}

ProcessRuntime::~ProcessRuntime() {
  std::lock_guard<std::mutex> lock(mu_);
  processes_.clear();  // ~Process kills and reaps what still runs
}

void ProcessRuntime::BecomeSubreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

Error ProcessRuntime::SetupBuild(const Context& ctx, const std::string& build_id) {
  if (Error err = ctx.Err(); !err.ok()) return err;
  std::error_code ec;
  std::filesystem::create_directories(options_.workspace_root, ec);
  if (ec) {
    return Error(ErrorCode::kIo, "workspace root " + options_.workspace_root + ": " + ec.message());
  }
  // Removed by RemoveBuild (the build's lifetime, not this function's).
  std::string error;
  std::optional<std::string> workspace = io::MakeTempDirectory(
      options_.workspace_root,
      build_id + "-" + (options_.workspace_owner.empty() ? "" : options_.workspace_owner + "-"),
      &error);
  if (!workspace) return Error(ErrorCode::kIo, "workspace: " + error);
  workspace_ = *workspace;
  // Containment: one cgroup per build, one per container inside it. Without
  // a cgroup hierarchy the worker may write to, containers are process
  // groups only (cgroup.hpp).
  if (!CgroupRoot().empty()) {
    std::string name = std::filesystem::path(workspace_).filename().string();
    if (Error err = Cgroup::Create(CgroupRoot(), name, &build_cgroup_); !err.ok()) return err;
  }
  return Error();
}

Process* ProcessRuntime::Find(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = processes_.find(name);
  return it == processes_.end() ? nullptr : it->second.get();
}

Error ProcessRuntime::RunContainer(const Context& ctx, const ProcessSpec& spec) {
  if (Error err = ctx.Err(); !err.ok()) return err;
  if (workspace_.empty()) return Error(ErrorCode::kFailed, "RunContainer before SetupBuild");
  std::unique_ptr<Cgroup> cgroup;
  if (build_cgroup_) {
    int n;
    {
      std::lock_guard<std::mutex> lock(mu_);
      n = ++containers_;
    }
    if (Error err = Cgroup::Create(build_cgroup_->path(), "c" + std::to_string(n), &cgroup);
        !err.ok()) {
      return err;
    }
  }
  std::unique_ptr<Process> process;
  Error err;
  if (std::vector<std::string> confined = ConfinedArgv(spec.argv); !confined.empty()) {
    ProcessSpec wrapped = spec;
    wrapped.argv = std::move(confined);
    err = Process::Spawn(wrapped, workspace_, std::move(cgroup), &process);
    if (err.ok()) process->set_main_is_wrapper();
  } else {
    err = Process::Spawn(spec, workspace_, std::move(cgroup), &process);
  }
  if (!err.ok()) return err;
  std::lock_guard<std::mutex> lock(mu_);
  processes_[spec.name] = std::move(process);
  return Error();
}

Error ProcessRuntime::TailContainer(const Context& ctx, const std::string& name,
                                    std::unique_ptr<LogTail>* out) {
  Process* p = Find(name);
  if (p == nullptr) return Error(ErrorCode::kFailed, "no container " + name);
  int fd = p->TakeOutput();
  if (fd < 0) return Error(ErrorCode::kFailed, "the output of " + name + " is already tailed");
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  *out = std::make_unique<PipeTail>(fd);
  return Error();
}

Error ProcessRuntime::WaitContainer(const Context& ctx, const std::string& name,
                                    ExitStatus* status) {
  Process* p = Find(name);
  if (p == nullptr) return Error(ErrorCode::kFailed, "no container " + name);
  Error err = p->WaitExited(ctx, -1);
  if (!err.ok() && !err.IsContextError()) return err;
  if (!err.ok()) {
    // ctx ended first: stop the group gently, then for good after the grace.
    p->Terminate();
    // tether:detached(ctx is already done; the step still gets its kill grace before SIGKILL,
    // bounded by the timeout)
    p->WaitExited(WithoutCancel(ctx), ToMillis(options_.kill_grace), kill_now_.fd());
  }
  p->KillAndReap();
  *status = p->status();
  return err;
}

void ProcessRuntime::KillNow() { kill_now_.Fire(); }

void ProcessRuntime::StopContainer(const std::string& name) {
  if (Process* p = Find(name)) p->Terminate();
}

Error ProcessRuntime::RemoveContainer(const Context& ctx, const std::string& name,
                                      ExitStatus* status) {
  Process* p = Find(name);
  if (p == nullptr) return Error();
  if (!p->status().exited) {
    p->Terminate();
    Duration left = p->term_sent_at() + options_.kill_grace - Clock::now();
    // ctx ending early, or KillNow, means: SIGKILL now.
    p->WaitExited(ctx, ToMillis(left), kill_now_.fd());
    p->KillAndReap();
  }
  if (status != nullptr) *status = p->status();
  return Error();
}

Error ProcessRuntime::RemoveBuild(const Context& ctx) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [name, p] : processes_) p->KillAndReap();
  }
  // Whatever of the build still runs anywhere in its cgroup dies now.
  if (build_cgroup_) build_cgroup_->KillAll();
  ReapOrphans();
  if (workspace_.empty()) return Error();
  std::error_code ec;
  std::filesystem::remove_all(workspace_, ec);
  if (ec) return Error(ErrorCode::kIo, "remove workspace " + workspace_ + ": " + ec.message());
  return Error();
}

}  // namespace tether::worker::runtime
