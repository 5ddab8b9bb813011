// api/build.go (newest): site 8 is STILL present, Engine.CancelBuild() takes
// no context and destroys the build on an unexplained root (site 9).
#include "vela.hpp"

namespace vela {

extern Worker* worker;

void CancelBuild(gin::Context& c) {
  linux_executor::Client* e = worker->executors[std::stoi(c.Param("executor"))];
  tether::Error err = e->CancelBuild();
  // CHECK: api/build.cpp:[[@LINE-1]]:26: warning: call to 'vela::linux_executor::Client::CancelBuild' drops the context: {{.*}} [tether-context-not-forwarded]
  // CHECK: executor/linux/api.cpp:{{[0-9]+}}:{{[0-9]+}}: note: root context 'tether::Background()' created here, via vela::linux_executor::Client::CancelBuild
  if (!err.ok()) Log(err.message());
}

}  // namespace vela
