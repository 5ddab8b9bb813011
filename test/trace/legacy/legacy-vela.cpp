// The legacy fixture: the PRE-FIX Vela worker flow (go-vela/worker d0b714d,
// /work/shared/research/vela.md section 2) rebuilt on libtether, running
// real builds of real processes. `tether trace` must find every zombie at
// its spawn line; with --fixed (the flow after go-vela/worker#317/#304) it
// must find none.
//
// RUN: %python %S/../Inputs/exit_code.py %tether trace -- %testbin/trace/legacy-vela --builds 4 > %t.txt 2> %t.err
// RUN: FileCheck %s --check-prefix=ZOMBIE < %t.txt
// RUN: FileCheck %s --check-prefix=GROUP < %t.txt
// RUN: FileCheck %s --check-prefix=SITES < %t.txt
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.txt
//
// SUMMARY: program: {{.*}}legacy-vela --builds 4: exited with status 0
// SUMMARY-NEXT: SUMMARY: 24 zombie tasks at 4 spawn sites, 0 leaked tasks at 0 spawn sites, 12 task groups destroyed without Wait (grace 0s)
// SUMMARY-NEXT: exit-code: 1
//
// The build: a service whose worker process outlives its main process, a
// quick step, and a step that leaves a daemon behind (like `dockerd &`). The
// daemons keep writing to the container's log for 2s after the build
// completed: exactly the seed's "go routines still printing logs after the
// build has completed".
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tether/tether.hpp"

namespace {

using namespace std::chrono_literals;
using tether::Context;
using tether::Error;

bool g_fixed = false;  // --fixed: the flow after the fix

void Log(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

// A container is a local process: `/bin/sh -c command` in its own process
// group, stdout and stderr on one pipe.
struct Container {
  std::string name;
  std::string command;
  pid_t pid = -1;
  int output = -1;
  bool reaped = false;
};

// runtime/: how containers run.
class Runtime {
 public:
  Error RunContainer(const Context& ctx, Container& ctn) {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return Error(tether::ErrorCode::kIo, "pipe");
    pid_t pid = fork();
    if (pid < 0) return Error(tether::ErrorCode::kIo, "fork");
    if (pid == 0) {
      setpgid(0, 0);
      dup2(out[1], 1);
      dup2(out[1], 2);
      execl("/bin/sh", "sh", "-c", ctn.command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    ctn.pid = pid;
    ctn.output = out[0];
    return Error();
  }

  int WaitContainer(const Context& ctx, Container& ctn) {
    int status = 0;
    waitpid(ctn.pid, &status, 0);
    ctn.reaped = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  // Returns the read end of a pipe that a copier task fills with the
  // container's output. (vela runtime/docker/container.go:262-268)
  int TailContainer(const Context& ctx, Container& ctn, tether::TaskGroup* owner) {
    int logs[2];
    if (pipe2(logs, O_CLOEXEC) != 0) return -1;
    int src = ctn.output, dst = logs[1];
    if (!g_fixed) {
      // PRE-FIX: a bare goroutine that never looks at ctx; it ends only at EOF.
      // ZOMBIE: ZOMBIE: task "copy logs {{cache|test}}" outlived its scope "build {{[0-9]}}" by
      // ZOMBIE-NEXT: spawned at {{.*}}legacy-vela.cpp:[[@LINE+7]] in {anonymous}::Runtime::TailContainer
      // ZOMBIE-NEXT: scope "build {{[0-9]}}" began at {{.*}}legacy-vela.cpp:{{[0-9]+}} in {anonymous}::Worker::Exec
      // ZOMBIE-NEXT: detached: spawned with a root context while scope "build {{[0-9]}}" was running
      // ZOMBIE: group {{.*}}legacy-vela.cpp:{{[0-9]+}} in {anonymous}::Executor::Exec{{Service|Step}}
      // ZOMBIE-NEXT: deadline {{.*}}legacy-vela.cpp:{{[0-9]+}} in {anonymous}::Worker::Exec
      // ZOMBIE-NEXT: ^ chain cut here: derived from a root context (Background/TODO), so the task is not tied to scope "build {{[0-9]}}"
      // ZOMBIE: 7 more like this (4 scopes: "build 1", "build 2", "build 3", "build 4")
      tether::Go(ctx, "copy logs " + ctn.name, [src, dst] { Copy(src, dst, tether::Context()); });
    } else {
      // FIXED: the copier belongs to the caller's group and stops when ctx is done.
      owner->Go("copy logs " + ctn.name, [ctx, src, dst] { Copy(src, dst, ctx); });
    }
    return logs[0];
  }

  void RemoveContainer(const Context& ctx, Container& ctn) {
    if (!g_fixed) {
      // PRE-FIX: kill the main process if it still runs; its children live on.
      if (!ctn.reaped && waitpid(ctn.pid, nullptr, WNOHANG) == 0) kill(ctn.pid, SIGKILL);
    } else {
      kill(-ctn.pid, SIGKILL);  // FIXED: the whole process group
    }
    if (!ctn.reaped) waitpid(ctn.pid, nullptr, 0);
    ctn.reaped = true;
  }

 private:
  // Copies src to dst until EOF, or until ctx is done (never, for Background).
  static void Copy(int src, int dst, const Context& ctx) {
    int wake[2] = {-1, -1};
    std::function<bool()> stop_wake;
    if (ctx.Done().CanFire() && pipe2(wake, O_CLOEXEC) == 0) {
      int w = wake[1];
      stop_wake = tether::AfterFunc(ctx, [w] { (void)!write(w, "x", 1); });
    }
    char buf[4096];
    for (;;) {
      pollfd fds[2] = {{src, POLLIN, 0}, {wake[0], POLLIN, 0}};
      if (poll(fds, wake[0] >= 0 ? 2 : 1, -1) < 0) continue;
      if (wake[0] >= 0 && fds[1].revents != 0) break;
      ssize_t n = read(src, buf, sizeof buf);
      if (n <= 0 || write(dst, buf, static_cast<size_t>(n)) != n) break;
    }
    if (stop_wake) stop_wake();
    if (wake[0] >= 0) close(wake[0]), close(wake[1]);
    close(src);
    close(dst);
  }
};

// Log lines waiting to be uploaded, shared by a stream and its uploader.
struct LogBuffer {
  std::mutex mu;
  std::string pending;  // guarded by mu
  tether::Signal done = tether::Signal::Make();
  void Upload(const std::string& key) {
    std::string chunk;
    {
      std::lock_guard<std::mutex> lock(mu);
      chunk.swap(pending);
    }
    if (!chunk.empty()) Log("upload " + key + ": " + chunk.substr(0, chunk.size() - 1));
  }
};

struct StreamRequest {
  Container* ctn;
  std::string key;
};

// executor/: what a build is.
class Executor {
 public:
  Executor(std::string build, Runtime& runtime) : build_(std::move(build)), runtime_(runtime) {
    // The daemons outlive the build by about 2s; the clone step's output ends
    // 1s before the build does (the test step runs in between).
    services_.push_back({"cache", "echo cache: ready; (sleep 3; echo cache: flushed) & exec sleep 30"});
    steps_.push_back({"clone", "echo " + build_ + ": clone; sleep 0.2"});
    steps_.push_back({"test", "echo " + build_ + ": test; (sleep 3; echo " + build_ +
                                  ": test daemon still logging) & sleep 1"});
  }

  Error ExecBuild(const Context& ctx) {
    for (Container& svc : services_) {
      if (Error err = ExecService(ctx, svc); !err.ok()) return err;
    }
    for (Container& step : steps_) {
      if (Error err = ExecStep(ctx, step); !err.ok()) return err;
    }
    Log(build_ + ": completed (status uploaded)");
    return Error();
  }

  Error ExecService(const Context& ctx, Container& svc) {
    if (Error err = runtime_.RunContainer(ctx, svc); !err.ok()) return err;
    if (g_fixed) return requests_.Send(ctx, StreamRequest{&svc, "service " + svc.name});
    // PRE-FIX (vela executor/linux/service.go:149): a log group nobody waits for.
    // GROUP: UNWAITED GROUP: a task group was destroyed without Wait()
    // GROUP-NEXT: created at {{.*}}legacy-vela.cpp:[[@LINE+5]] in {anonymous}::Executor::ExecService
    // GROUP: 3 more like this
    // ZOMBIE: ZOMBIE: task "stream service cache" outlived its scope "build {{[0-9]}}" by
    // ZOMBIE-NEXT: spawned at {{.*}}legacy-vela.cpp:[[@LINE+3]] in {anonymous}::Executor::ExecService
    // ZOMBIE: 3 more like this
    auto [logs, logCtx] = tether::TaskGroup::WithContext(ctx);
    logs.Go("stream service " + svc.name, [this, logCtx = logCtx, &svc] { return StreamLogs(logCtx, svc, "service " + svc.name); });
    dropped_.push_back(std::move(logs));  // like Go's errgroup going out of scope unwaited
    return Error();
  }

  Error ExecStep(const Context& ctx, Container& step) {
    if (Error err = runtime_.RunContainer(ctx, step); !err.ok()) return err;
    if (g_fixed) {
      if (Error err = requests_.Send(ctx, StreamRequest{&step, "step " + step.name}); !err.ok()) return err;
    } else {
      // PRE-FIX (vela executor/linux/step.go:161): a log group nobody waits for.
      // GROUP: UNWAITED GROUP: a task group was destroyed without Wait()
      // GROUP-NEXT: created at {{.*}}legacy-vela.cpp:[[@LINE+6]] in {anonymous}::Executor::ExecStep
      // GROUP: 7 more like this
      // ZOMBIE: ZOMBIE: task "stream step test" outlived its scope "build {{[0-9]}}" by
      // ZOMBIE-NEXT: spawned at {{.*}}legacy-vela.cpp:[[@LINE+4]] in {anonymous}::Executor::ExecStep
      // ZOMBIE: 3 more like this
      // ZOMBIE-NOT: stream step clone
      auto [logs, logCtx] = tether::TaskGroup::WithContext(ctx);
      logs.Go("stream step " + step.name, [this, logCtx = logCtx, &step] { return StreamLogs(logCtx, step, "step " + step.name); });
      dropped_.push_back(std::move(logs));
    }
    int code = runtime_.WaitContainer(ctx, step);
    return code == 0 ? Error() : Error::Failed(step.name + " exited with " + std::to_string(code));
  }

  // FIXED (vela #317): one owner streams every container's logs.
  Error StreamBuild(const Context& ctx) {
    auto [streams, streamCtx] = tether::TaskGroup::WithContext(ctx);
    while (auto req = requests_.Recv(ctx)) {
      streams.Go("stream " + req->key, [this, streamCtx = streamCtx, req = *req] { return StreamLogs(streamCtx, *req.ctn, req.key); });
    }
    return streams.Wait();
  }
  void CloseStreamRequests() { requests_.Close(); }

  // vela StreamStep/StreamService: tail the container, upload in chunks.
  Error StreamLogs(const Context& ctx, Container& ctn, const std::string& key) {
    auto buffer = std::make_shared<LogBuffer>();
    std::string upload_key = build_ + "/" + key;
    auto [owned, ownedCtx] = tether::TaskGroup::WithContext(ctx);
    int rc = runtime_.TailContainer(ctx, ctn, &owned);
    if (!g_fixed) {
      // PRE-FIX (vela step.go:281-295): the time-chunks uploader ignores ctx.
      // ZOMBIE: ZOMBIE: task "upload log chunks {{service cache|step test}}" outlived its scope
      // ZOMBIE-NEXT: spawned at {{.*}}legacy-vela.cpp:[[@LINE+3]] in {anonymous}::Executor::StreamLogs
      // ZOMBIE: context: Background() or TODO() itself
      // ZOMBIE: 7 more like this (4 scopes: "build 1", "build 2", "build 3", "build 4")
      tether::Go(tether::Background(), "upload log chunks " + key, [buffer, upload_key] { while (!buffer->done.WaitFor(1s)) buffer->Upload(upload_key); buffer->Upload(upload_key); });
    } else {
      owned.Go("upload log chunks " + key, [buffer, upload_key, ownedCtx = ownedCtx] {
        tether::Select().OnDone(ownedCtx, [] {}).OnSignal(buffer->done, [] {}).Wait();
        buffer->Upload(upload_key);
      });
    }
    char chunk[4096];
    ssize_t n;
    while ((n = read(rc, chunk, sizeof chunk)) > 0) {
      std::lock_guard<std::mutex> lock(buffer->mu);
      buffer->pending.append(chunk, static_cast<size_t>(n));
    }
    close(rc);
    buffer->done.Fire();
    return owned.Wait();
  }

  void DestroyBuild(const Context& ctx) {
    for (Container& step : steps_) runtime_.RemoveContainer(ctx, step);
    for (Container& svc : services_) runtime_.RemoveContainer(ctx, svc);
  }

 private:
  std::string build_;
  Runtime& runtime_;
  std::vector<Container> services_;
  std::vector<Container> steps_;
  std::vector<tether::TaskGroup> dropped_;  // PRE-FIX: log groups never waited
  tether::Channel<StreamRequest> requests_{16};
};

// cmd/: the worker.
class Worker {
 public:
  void Exec(const Context& ctx, int id) {
    std::string name = "build " + std::to_string(id);
    // SITES: scope "build {{[0-9]}}" began at {{.*}}legacy-vela.cpp:[[@LINE+1]] in {anonymous}::Worker::Exec
    tether::Scope build(ctx, name);
    auto executor = std::make_shared<Executor>(name, runtime_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      executors_[id] = executor;  // vela's w.Executors map: it outlives the build
    }
    if (!g_fixed) {
      // PRE-FIX (vela cmd/vela-worker/exec.go:97): the build context is a fresh root.
      // SITES: deadline {{.*}}legacy-vela.cpp:[[@LINE+2]] in {anonymous}::Worker::Exec
      // SITES-NEXT: ^ chain cut here: derived from a root context
      auto [timeoutCtx, timeout] = tether::WithTimeout(tether::Background(), 30min);
      if (Error err = executor->ExecBuild(timeoutCtx); !err.ok()) Log(name + ": " + err.ToString());
      timeout();
      executor->DestroyBuild(tether::Background());  // PRE-FIX (exec.go:104-107)
      return;
    }
    // FIXED: everything derives from the build's own context.
    auto [buildCtx, done] = tether::WithCancel(build.context());
    auto [timeoutCtx, timeout] = tether::WithTimeout(buildCtx, 30min);
    auto [streaming, streamCtx] = tether::TaskGroup::WithContext(buildCtx);
    streaming.Go("stream build", [&executor, streamCtx = streamCtx] { return executor->StreamBuild(streamCtx); });
    if (Error err = executor->ExecBuild(timeoutCtx); !err.ok()) Log(name + ": " + err.ToString());
    timeout();
    // tether:detached(cleanup must finish even when the build timed out)
    executor->DestroyBuild(tether::WithoutCancel(buildCtx));
    executor->CloseStreamRequests();
    if (Error err = streaming.Wait(); !err.ok()) Log(name + ": streaming: " + err.ToString());
    done();
  }

 private:
  Runtime runtime_;
  std::mutex mu_;
  std::map<int, std::shared_ptr<Executor>> executors_;  // guarded by mu_
};

}  // namespace

int main(int argc, char** argv) {
  int builds = 3;
  int limit = 2;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--fixed") {
      g_fixed = true;
    } else if (arg == "--builds" && i + 1 < argc) {
      builds = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: legacy-vela [--fixed] [--builds N]\n");
      return 2;
    }
  }
  Worker worker;
  Context root = tether::Background();
  tether::Channel<int> queue(static_cast<std::size_t>(builds));
  for (int id = 1; id <= builds; ++id) (void)queue.Send(root, id);
  queue.Close();
  // vela operate(): build-limit executor loops in one waited group.
  auto [executors, gctx] = tether::TaskGroup::WithContext(root);
  for (int slot = 0; slot < limit; ++slot) {
    executors.Go("executor " + std::to_string(slot), [&worker, &queue, gctx = gctx, fixed = g_fixed] {
      while (auto id = queue.Recv(gctx)) {
        // PRE-FIX (vela operate.go:108): exec does not get gctx.
        // FIXED: tether:detached(a build must not be cancelled by a sibling's error, vela #304)
        worker.Exec(fixed ? tether::WithoutCancel(gctx) : tether::Background(), *id);
      }
    });
  }
  if (Error err = executors.Wait(); !err.ok()) Log("operate: " + err.ToString());
  return 0;
}
