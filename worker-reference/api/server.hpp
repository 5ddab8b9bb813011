// The HTTP API of `tether-worker serve` (cpp-httplib, Debian's
// libcpp-httplib-dev):
//
//   GET    /health                  {"status":"ok", "executors":N, "running":K}
//   GET    /metrics                 Prometheus text exposition (api/metrics.hpp)
//   GET    /api/v1/executors        what every executor slot runs (JSON)
//   GET    /api/v1/executors/N      what slot N runs
//   DELETE /api/v1/executors/N/build  cancels the context of the build slot N
//                                   runs: 202; 404 no such slot; 409 it runs none
//   GET    /api/v1/builds           the builds running now, then recent ones
//   GET    /api/v1/builds/ID/logs   build ID's logs; ?follow=1 streams them
//   DELETE /api/v1/builds/ID        cancels build ID, queued or running anywhere
// ApiRoutes() is this list; docs/worker.md's table holds the answers, and a
// test holds the three (this list, the server, the table) to each other.
//
// Access: the API listens on loopback unless told otherwise. With a token
// (--api-token-file) every request needs `Authorization: Bearer <token>`,
// else 401; a non-loopback address without a token is refused at start.
//
// Threads: Run(ctx) runs the accept loop on the caller's thread (a task of
// the worker's TaskGroup) and returns once ctx is done and every connection
// thread (httplib's ThreadPool, created and joined inside the accept loop)
// was joined. An idle keep-alive connection delays that by at most 1 s.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "api/control.hpp"
#include "tether/context.hpp"
#include "tether/error.hpp"

namespace tether::worker::api {

struct ApiAddress {
  std::string host = "127.0.0.1";  // a numeric IPv4/IPv6 address
  int port = 0;                    // 0: any free port
  bool loopback = true;
};

// Parses --api's value: PORT, :PORT, HOST:PORT or [IPV6]:PORT, where HOST is
// a numeric address or `localhost`; a missing host is 127.0.0.1.
// Error: kInvalidArgument.
Error ParseApiAddress(const std::string& text, ApiAddress* out);

// One request the API answers: N stands for an executor slot number, ID for a
// build id (as docs/worker.md spells them).
struct ApiRoute {
  std::string_view method;  // GET | DELETE
  std::string_view path;
};
// Every route the server registers, no other.
std::span<const ApiRoute> ApiRoutes();

// Reads a bearer token from path: its content without the trailing newline;
// it must be non-empty and printable without blanks. Error: kInvalidArgument.
Error ReadApiToken(const std::string& path, std::string* token);

// The HTTP API of one worker. Open binds; Run serves.
class HttpApi {
 public:
  // Parses address (--api), reads the token from token_file (--api-token-file,
  // may be empty) and binds the socket, so that a taken port is an error at
  // start, before any build runs. Errors: kInvalidArgument (a bad address, an
  // unreadable token file, a non-loopback address without a token) or kIo
  // (the address cannot be bound).
  static Error Open(const std::string& address, const std::string& token_file,
                    WorkerControl& worker, std::unique_ptr<HttpApi>* out);
  ~HttpApi();
  HttpApi(const HttpApi&) = delete;
  HttpApi& operator=(const HttpApi&) = delete;

  // http://HOST:PORT, with the port actually bound.
  std::string url() const;
  int port() const;

  // Serves until ctx is done; joins every thread it started before it
  // returns. Call once.
  Error Run(const Context& ctx);

  class Impl;

 private:
  explicit HttpApi(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tether::worker::api
