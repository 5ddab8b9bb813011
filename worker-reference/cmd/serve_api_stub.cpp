// Until worker-reference/api/ provides the HTTP API (issue 10 item 3),
// `serve --api` is refused before anything runs.
#include "cmd/serve.hpp"

namespace tether::worker::cmd {

Error NewApiServer(const ServeOptions& options, WorkerControl&, std::unique_ptr<ApiServer>*) {
  return Error(ErrorCode::kInvalidArgument,
               "--api " + options.api + ": this tether-worker was built without the HTTP API");
}

}  // namespace tether::worker::cmd
