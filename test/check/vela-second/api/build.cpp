// api/build.go (pre-fix), the CancelBuild gin handler. The executor is the
// class template's docker instantiation; CancelBuild is defined in another
// translation unit (executor/linux/api.cpp).
#include "vela.hpp"

namespace vela {

extern Worker* worker;

void CancelBuild(gin::Context& c) {
  Executor* e = worker->executor(std::stoi(c.Param("executor")));
  // Site 8 (NF): the request context c.Request.Context() is not passed;
  // Engine.CancelBuild() has none, and destroys the build on a root (site 9).
  tether::Error err = e->CancelBuild();
  // CHECK: api/build.cpp:[[@LINE-1]]:26: warning: call to 'vela::linux_executor::Client<vela::docker_runtime::Runtime>::CancelBuild' drops the context: {{.*}} creates a root context itself; give it a context parameter and pass 'c.RequestContext()' [tether-context-not-forwarded]
  // CHECK: executor/linux/api.cpp:10:23: note: root context 'tether::Background()' created here, via vela::linux_executor::Client::CancelBuild
  if (!err.ok()) Log(err.message());
}

}  // namespace vela
