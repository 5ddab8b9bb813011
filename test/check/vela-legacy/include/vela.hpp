// The APIs the pre-fix Vela worker (go-vela/worker d0b714d) used, rendered on
// libtether. Only signatures: tether check needs declarations, not bodies.
#pragma once

#include <map>
#include <string>

#include <tether/context.hpp>
#include <tether/task.hpp>

namespace kube {
struct Pod {
  std::string name;
};
// client-go's PodInterface: every call takes the context.
struct Pods {
  Pod Get(const tether::Context& ctx, const std::string& name);
  Pod Create(const tether::Context& ctx, const Pod& pod);
  void Delete(const tether::Context& ctx, const std::string& name);
  Pod Patch(const tether::Context& ctx, const std::string& name, const std::string& patch);
  int Watch(const tether::Context& ctx, const std::string& name);
  int Stream(const tether::Context& ctx, const std::string& container);
};
}  // namespace kube

namespace gin {
// *gin.Context: the handler's request context is c.Request.Context().
class Context {
 public:
  tether::Context RequestContext() const;
  std::string Param(const std::string& key) const;
};
}  // namespace gin

namespace vela {

struct Container {
  std::string id;
};
struct Item {
  int build = 0;
};
// queue.Service: Pop(ctx) is a BLPOP bounded by queue.pop.timeout.
struct Queue {
  Item Pop(const tether::Context& ctx);
};

namespace linux_executor {
// The executor client. In Go it sits behind the executor.Engine interface;
// this rendering calls the concrete client, because tether check keeps silent
// on virtual calls it cannot resolve (see README.md).
class Client {
 public:
  tether::Error CreateBuild(const tether::Context& ctx);
  tether::Error PlanBuild(const tether::Context& ctx);
  tether::Error ExecBuild(const tether::Context& ctx);
  tether::Error DestroyBuild(const tether::Context& ctx);
  tether::Error CancelBuild();  // executor.Engine.CancelBuild() took no ctx
  tether::Error ExecStep(const tether::Context& ctx, const Container& ctn);
  tether::Error StreamStep(const tether::Context& ctx, const Container& ctn);
  tether::Error ExecService(const tether::Context& ctx, const Container& ctn);
  tether::Error StreamService(const tether::Context& ctx, const Container& ctn);
  tether::Error ExecSecrets(const tether::Context& ctx);
  tether::Error StreamSecret(const tether::Context& ctx, const std::string& origin);
};
}  // namespace linux_executor

namespace local_executor {
class Client {
 public:
  tether::Error DestroyBuild(const tether::Context& ctx);
  tether::Error CancelBuild();
  tether::Error ExecStep(const tether::Context& ctx, const Container& ctn);
  tether::Error StreamStep(const tether::Context& ctx, const Container& ctn);
  tether::Error ExecService(const tether::Context& ctx, const Container& ctn);
  tether::Error StreamService(const tether::Context& ctx, const Container& ctn);
};
}  // namespace local_executor

namespace kubernetes_runtime {
class Client {
 public:
  tether::Error SetupBuild(const tether::Context& ctx);
  tether::Error AssembleBuild(const tether::Context& ctx);
  tether::Error RemoveBuild(const tether::Context& ctx);
  tether::Error InspectContainer(const tether::Context& ctx, const Container& ctn);
  tether::Error RunContainer(const tether::Context& ctx, const Container& ctn);
  int TailContainer(const tether::Context& ctx, const Container& ctn);
  tether::Error WaitContainer(const tether::Context& ctx, const Container& ctn);

 private:
  kube::Pods pods_;
  kube::Pod pod_;
  std::string template_name_;
};
}  // namespace kubernetes_runtime

struct Worker {
  Queue queue;
  std::map<int, linux_executor::Client*> executors;
  int build_limit = 1;

  tether::Error Start();
  tether::Error operate(const tether::Context& ctx);
  tether::Error exec(int index);  // pre-fix: exec took no ctx
  bool WaitForSignal(const tether::Context& ctx);
  tether::Error Serve(const tether::Context& ctx);
};

void Log(const std::string& message);

}  // namespace vela
