// api/build.go, fixed: the request context is passed.
#include "vela.hpp"

namespace vela {

extern Worker* worker;

void CancelBuild(gin::Context& c) {
  Executor* e = worker->executor(std::stoi(c.Param("executor")));
  tether::Error err = e->CancelBuild(c.RequestContext());
  if (!err.ok()) Log(err.message());
}

}  // namespace vela
