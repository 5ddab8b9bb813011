#include "runtime/clone_spawn.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace tether::worker::runtime {
namespace {

// The kernel's struct sigaction (rt_sigaction), not glibc's.
struct KernelSigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)();
  std::uint64_t mask;
};

// Moves fd to target, without O_CLOEXEC on target.
[[gnu::always_inline]] inline bool MoveFd(int fd, int target) {
  if (fd == target) return ::syscall(SYS_fcntl, fd, F_SETFD, 0) == 0;
  return ::syscall(SYS_dup3, fd, target, 0) == target;
}

// The child: a copy of the worker with one thread. Raw system calls only
// (no allocation, no lock, no sanitizer runtime); on any failure, the errno
// goes to error_fd and the child exits 127.
[[noreturn]] __attribute__((noinline, no_sanitize("address", "thread", "undefined"))) void RunChild(
    const SpawnPlan& plan, int error_fd) {
  int err = 0;
  do {
    if (::syscall(SYS_setsid) < 0) break;
    std::uint64_t empty_mask = 0;
    if (::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &empty_mask, nullptr, sizeof empty_mask) != 0)
      break;
    KernelSigaction dfl{SIG_DFL, 0, nullptr, 0};
    for (int sig = 1; sig < 65; ++sig) {
      if (sig != SIGKILL && sig != SIGSTOP)
        ::syscall(SYS_rt_sigaction, sig, &dfl, nullptr, sizeof dfl.mask);
    }
    long devnull = ::syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) break;
    if (!MoveFd(static_cast<int>(devnull), 0)) break;
    if (!MoveFd(plan.output_fd, 1) || !MoveFd(plan.output_fd, 2)) break;
    if (::syscall(SYS_chdir, plan.cwd) != 0) break;
    // Every other descriptor of the worker closes on exec (error_fd too,
    // which is how the parent learns that the exec succeeded).
    if (::syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) break;
    ::syscall(SYS_execve, plan.path, plan.argv, plan.envp);
  } while (false);
  err = errno;
  ::syscall(SYS_write, error_fd, &err, sizeof err);
  ::syscall(SYS_exit_group, 127);
  __builtin_unreachable();
}

}  // namespace

Error SpawnIntoCgroup(const SpawnPlan& plan, int cgroup_fd, pid_t* pid, int* pidfd) {
  int errors[2];
  if (::pipe2(errors, O_CLOEXEC) != 0) {
    return Error(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  }
  int child_pidfd = -1;
  clone_args args{};
  args.flags = CLONE_PIDFD | CLONE_INTO_CGROUP;
  args.pidfd = reinterpret_cast<std::uint64_t>(&child_pidfd);
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<std::uint64_t>(cgroup_fd);
  long child = ::syscall(SYS_clone3, &args, sizeof args);
  if (child == 0) RunChild(plan, errors[1]);
  int clone_errno = errno;
  ::close(errors[1]);
  if (child < 0) {
    ::close(errors[0]);
    return Error(ErrorCode::kFailed, std::string("clone3: ") + std::strerror(clone_errno));
  }
  int child_errno = 0;
  ssize_t n;
  while ((n = ::read(errors[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  ::close(errors[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {  // the exec failed: reap the child
    siginfo_t info{};
    while (::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED) < 0 && errno == EINTR) {
    }
    ::close(child_pidfd);
    return Error(ErrorCode::kIo,
                 std::string("cannot start ") + plan.path + ": " + std::strerror(child_errno));
  }
  *pid = static_cast<pid_t>(child);
  *pidfd = child_pidfd;
  return Error();
}

}  // namespace tether::worker::runtime
