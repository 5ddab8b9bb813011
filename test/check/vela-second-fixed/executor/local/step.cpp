// executor/local/step.go, fixed: the stream runs on ctx_ and is waited for.
#include "vela.hpp"

namespace vela::local_executor {

tether::Error Client::ExecStep(const Container& ctn) {
  auto [streams, sctx] = tether::TaskGroup::WithContext(ctx_);
  streams.Go([this, c = sctx, ctn] { return StreamStep(c, ctn); });
  return streams.Wait();
}

}  // namespace vela::local_executor
