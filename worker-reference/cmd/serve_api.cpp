// `serve --api ADDR [--api-token-file F]`: the HTTP API (api/server.hpp)
// behind the interface serve.cpp starts it through (cmd::ApiServer).
#include <iostream>

#include "api/server.hpp"
#include "cmd/serve.hpp"

namespace tether::worker::cmd {

namespace {

class ServeApi : public ApiServer {
 public:
  explicit ServeApi(std::unique_ptr<api::HttpApi> http) : http_(std::move(http)) {}
  Error Run(const Context& ctx) override { return http_->Run(ctx); }

 private:
  std::unique_ptr<api::HttpApi> http_;
};

}  // namespace

Error NewApiServer(const ServeOptions& options, api::WorkerControl& control,
                   std::unique_ptr<ApiServer>* out) {
  std::unique_ptr<api::HttpApi> http;
  if (Error err = api::HttpApi::Open(options.api, options.api_token_file, control, &http);
      !err.ok()) {
    return Error(err.code(), "--api: " + err.message());
  }
  // Scripts read the bound port from this line (with --api 127.0.0.1:0).
  std::cerr << "tether-worker serve: API on " << http->url() << "\n";
  *out = std::make_unique<ServeApi>(std::move(http));
  return Error();
}

}  // namespace tether::worker::cmd
