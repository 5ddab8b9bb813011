// The APIs of the pre-fix Vela worker (go-vela/worker d0b714d), rendered on
// libtether a second way (see README.md): the worker and the local executor
// hold their context in a member (ctx_), the linux executor is a class
// template instantiated for two runtimes, roots come from context factories
// defined in another translation unit, and most callees live in other TUs.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include <tether/context.hpp>
#include <tether/task.hpp>

namespace kube {
struct Pod {
  std::string name;
};
struct Event {
  bool terminated = false;
};
// client-go's watch.Interface: Next() blocks until the next event; the
// overload that takes a context gives up when it is done.
struct Watcher {
  std::optional<Event> Next();
  std::optional<Event> Next(const tether::Context& ctx);
};
struct Pods {
  Pod Get(const tether::Context& ctx, const std::string& name);
  Pod Create(const tether::Context& ctx, const Pod& pod);
  void Delete(const tether::Context& ctx, const std::string& name);
  Pod Patch(const tether::Context& ctx, const std::string& name, const std::string& patch);
  Watcher Watch(const tether::Context& ctx, const std::string& name);
  int Stream(const tether::Context& ctx, const std::string& container);
};
}  // namespace kube

// k8s.io/apimachinery/pkg/util/wait: a backoff loop, and its sibling that
// stops when the context is done.
namespace wait {
struct Backoff {
  int steps = 10;
  double factor = 2.0;
  std::chrono::milliseconds cap{120000};
};
bool ExponentialBackoff(const Backoff& backoff, const std::function<bool()>& condition);
bool ExponentialBackoffWithContext(const tether::Context& ctx, const Backoff& backoff,
                                   const std::function<bool()>& condition);
}  // namespace wait

namespace gin {
class Context {
 public:
  tether::Context RequestContext() const;
  std::string Param(const std::string& key) const;
};
}  // namespace gin

namespace vela {

// internal/context: the worker's context factories (internal/context.cpp).
tether::Context NewBuildContext();  // a build's root, not tied to shutdown
tether::Context NoTimeout();        // for API calls "that must not time out"

// A deferred call (Go's defer).
class Defer {
 public:
  explicit Defer(std::function<void()> f) : f_(std::move(f)) {}
  ~Defer() { f_(); }
  Defer(const Defer&) = delete;
  Defer& operator=(const Defer&) = delete;

 private:
  std::function<void()> f_;
};

struct Container {
  std::string id;
};
struct Item {
  int build = 0;
};
struct Queue {
  Item Pop(const tether::Context& ctx);
};
void Log(const std::string& message);
void UploadLogs(const std::string& logs);

namespace docker_runtime {
class Runtime {
 public:
  int TailContainer(const tether::Context& ctx, const Container& ctn);
  tether::Error WaitContainer(const tether::Context& ctx, const Container& ctn);

 private:
  int ContainerLogs(const tether::Context& ctx, const std::string& id);
  std::thread copier_;  // TailContainer's log copier
};
}  // namespace docker_runtime

namespace kubernetes_runtime {
class Runtime {
 public:
  tether::Error SetupBuild(const tether::Context& ctx);
  tether::Error AssembleBuild(const tether::Context& ctx);
  tether::Error RemoveBuild(const tether::Context& ctx);
  tether::Error InspectContainer(const tether::Context& ctx, const Container& ctn);
  tether::Error RunContainer(const tether::Context& ctx, const Container& ctn);
  int TailContainer(const tether::Context& ctx, const Container& ctn);
  tether::Error WaitContainer(const tether::Context& ctx, const Container& ctn);

 private:
  kube::Pod Lookup(const std::string& name);  // runtime/kubernetes/pods.cpp
  kube::Pods pods_;
  kube::Pod pod_;
  std::string template_name_;
};
}  // namespace kubernetes_runtime

namespace linux_executor {
// The executor, one class template for every runtime (instantiated for
// docker and kubernetes at the end of each executor/linux/*.cpp).
template <class Runtime>
class Client {
 public:
  tether::Error DestroyBuild(const tether::Context& ctx);
  tether::Error CancelBuild();  // executor.Engine.CancelBuild() took no ctx
  tether::Error ExecStep(const tether::Context& ctx, const Container& ctn);
  tether::Error StreamStep(const tether::Context& ctx, const Container& ctn);
  tether::Error ExecService(const tether::Context& ctx, const Container& ctn);
  tether::Error StreamService(const tether::Context& ctx, const Container& ctn);
  tether::Error ExecSecrets(const tether::Context& ctx);
  tether::Error StreamSecret(const tether::Context& ctx, const std::string& origin);
  tether::Error CreateBuild(const tether::Context& ctx);
  tether::Error ExecBuild(const tether::Context& ctx);

 private:
  Runtime runtime_;
  std::string logs_;
};
}  // namespace linux_executor

namespace local_executor {
// The local executor keeps the build's context from CreateBuild in ctx_.
class Client {
 public:
  tether::Error CreateBuild(const tether::Context& ctx);
  tether::Error DestroyBuild(const tether::Context& ctx);
  tether::Error CancelBuild();
  tether::Error ExecStep(const Container& ctn);
  tether::Error ExecService(const Container& ctn);
  tether::Error StreamStep(const tether::Context& ctx, const Container& ctn);
  tether::Error StreamService(const tether::Context& ctx, const Container& ctn);

 private:
  tether::Context ctx_;
};
}  // namespace local_executor

using Executor = linux_executor::Client<docker_runtime::Runtime>;

// The worker keeps its shutdown context (Start's) in ctx_.
class Worker {
 public:
  tether::Error Start();
  tether::Error operate();
  tether::Error exec(int index);  // pre-fix: exec took no ctx
  Executor* executor(int index) { return executors_[index]; }

 private:
  tether::Error CheckInLoop();
  tether::Error CheckIn();
  bool WaitForSignal();
  tether::Error Serve();

  tether::Context ctx_;
  Queue queue_;
  std::map<int, Executor*> executors_;
  std::chrono::seconds check_in_{900};
  int build_limit_ = 1;
};

}  // namespace vela
