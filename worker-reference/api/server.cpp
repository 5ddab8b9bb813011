#include "api/server.hpp"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "api/build_logs.hpp"
#include "api/metrics.hpp"
#include "executor/result.hpp"
#include "tether/io/read_file.hpp"

namespace tether::worker::api {

namespace {

constexpr ApiRoute kRoutes[] = {
    {"GET", "/health"},
    {"GET", "/metrics"},
    {"GET", "/api/v1/executors"},
    {"GET", "/api/v1/executors/N"},
    {"DELETE", "/api/v1/executors/N/build"},
    {"GET", "/api/v1/builds"},
    {"GET", "/api/v1/builds/ID/logs"},
    {"DELETE", "/api/v1/builds/ID"},
};

// The httplib pattern of a declared route: N and ID become capture groups.
// A route missing from kRoutes is a programming error: it aborts at start,
// so every test of the server catches it.
std::string Route(std::string_view method, std::string_view path) {
  bool declared = false;
  for (const ApiRoute& r : kRoutes) declared |= r.method == method && r.path == path;
  if (!declared) {
    std::cerr << "tether-worker: api: route " << method << " " << path << " is not in kRoutes\n";
    std::abort();
  }
  std::string pattern;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (start > 0) pattern += '/';
    pattern += part == "N"    ? R"((\d{1,9}))"
               : part == "ID" ? R"(([A-Za-z0-9._-]{1,200}))"
                              : std::string(part);
    start = end + 1;
  }
  return pattern;
}

Error Invalid(std::string message) {
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

bool ParsePort(const std::string& text, int* port) {
  if (text.empty() || text.size() > 5) return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  if (value > 65535) return false;
  *port = value;
  return true;
}

// Compares in time independent of where a and b differ (the token must not
// leak through response times).
bool SameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i % (b.size() | 1)]);
  return diff == 0;
}

nlohmann::json BuildJson(const BuildInfo& b) {
  nlohmann::json j = {
      {"id", b.id},
      {"pipeline", b.pipeline},
      {"status", BuildStatusName(b.status)},
      {"reason", b.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.reason)},
      {"slot", b.slot >= 0 ? nlohmann::json(b.slot) : nlohmann::json(nullptr)},
      {"attempt", b.attempt},
      {"started", executor::FormatTime(b.started)},
      {"finished",
       b.finished ? nlohmann::json(executor::FormatTime(*b.finished)) : nlohmann::json(nullptr)}};
  return j;
}

nlohmann::json SlotJson(const SlotInfo& s) {
  nlohmann::json j = {{"slot", s.slot}};
  if (!s.busy) {
    j["state"] = "idle";
    j["build"] = nullptr;
    return j;
  }
  j["state"] = "running";
  j["build"] = {
      {"id", s.build_id},
      {"pipeline", s.pipeline},
      {"started", executor::FormatTime(s.started)},
      {"running_seconds", std::chrono::duration<double>(WallClock::now() - s.started).count()},
      {"attempt", s.attempt}};
  return j;
}

void Reply(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump() + "\n", "application/json");
}

void ReplyError(httplib::Response& res, int status, const std::string& message) {
  Reply(res, status, {{"error", message}});
}

}  // namespace

std::span<const ApiRoute> ApiRoutes() { return kRoutes; }

Error ParseApiAddress(const std::string& text, ApiAddress* out) {
  ApiAddress a;
  std::string host, port = text;
  if (!text.empty() && text[0] == '[') {
    std::size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return Invalid("invalid address \"" + text + "\": write an IPv6 address as [ADDR]:PORT");
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else if (std::size_t colon = text.rfind(':'); colon != std::string::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string::npos) {
      return Invalid("invalid address \"" + text + "\": write an IPv6 address as [ADDR]:PORT");
    }
  }
  if (!ParsePort(port, &a.port)) {
    return Invalid("invalid address \"" + text + "\": the port must be a number from 0 to 65535");
  }
  if (host.empty() || host == "localhost") host = "127.0.0.1";
  unsigned char buf[sizeof(in6_addr)];
  if (::inet_pton(AF_INET, host.c_str(), buf) == 1) {
    a.loopback = buf[0] == 127;
  } else if (::inet_pton(AF_INET6, host.c_str(), buf) == 1) {
    in6_addr v6;
    std::memcpy(&v6, buf, sizeof v6);
    a.loopback = IN6_IS_ADDR_LOOPBACK(&v6) || (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
  } else {
    return Invalid("invalid address \"" + text +
                   "\": the host must be a numeric IP address or localhost");
  }
  a.host = host;
  *out = a;
  return Error();
}

Error ReadApiToken(const std::string& path, std::string* token) {
  std::string t;
  if (std::optional<io::ReadError> err = io::ReadInputFile(path, &t)) {
    return Invalid("cannot read the API token file " + path + ": " + err->message);
  }
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  if (t.empty()) return Invalid("the API token file " + path + " is empty");
  for (char c : t) {
    if (c <= ' ' || c == 0x7f) {
      return Invalid("the API token in " + path +
                     " has a blank or control character (one line, no spaces)");
    }
  }
  *token = std::move(t);
  return Error();
}

// httplib's Server, with a stop that also works before the accept loop
// started: Server::stop() does nothing until listen_after_bind() has set its
// running flag, so a shutdown racing the start would be lost.
class HttpServer : public httplib::Server {
 public:
  // Takes the listening socket out of the accept loop and shuts it down: a
  // blocked accept() returns, and a loop that has not started yet never
  // runs. The socket itself is closed by CloseListener, after the loop
  // returned (closing it under a running accept() could hit a reused fd).
  void StopListening() {
    socket_t fd = svr_sock_.exchange(INVALID_SOCKET);
    if (fd != INVALID_SOCKET) {
      ::shutdown(fd, SHUT_RDWR);
      taken_ = fd;
    }
  }
  void CloseListener() {
    if (taken_ != INVALID_SOCKET) ::close(taken_);
    taken_ = INVALID_SOCKET;
    socket_t fd = svr_sock_.exchange(INVALID_SOCKET);  // never served
    if (fd != INVALID_SOCKET) ::close(fd);
  }

 private:
  socket_t taken_ = INVALID_SOCKET;  // written by StopListening, read after the loop returned
};

class HttpApi::Impl {
 public:
  Impl(ApiAddress address, std::string token, WorkerControl& worker)
      : address_(std::move(address)), token_(std::move(token)), worker_(worker) {}

  Error Bind() {
    http_.new_task_queue = [] { return new httplib::ThreadPool(4); };
    http_.set_keep_alive_timeout(1);  // bounds how long an idle client delays shutdown
    http_.set_read_timeout(5);
    http_.set_write_timeout(5);
    http_.set_payload_max_length(64 * 1024);
    // httplib's default also sets SO_REUSEPORT: a second worker could then
    // bind the same port and take half of its requests.
    http_.set_socket_options([](socket_t sock) {
      int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    Guards();
    Routes();
    if (address_.port == 0) {
      int port = http_.bind_to_any_port(address_.host);
      if (port <= 0)
        return Error(ErrorCode::kIo, "cannot listen on " + address_.host + " (any port)");
      address_.port = port;
    } else if (!http_.bind_to_port(address_.host, address_.port)) {
      return Error(ErrorCode::kIo, "cannot listen on " + url() + " (" + std::strerror(errno) + ")");
    }
    return Error();
  }

  std::string url() const {
    bool v6 = address_.host.find(':') != std::string::npos;
    return "http://" + (v6 ? "[" + address_.host + "]" : address_.host) + ":" +
           std::to_string(address_.port);
  }
  int port() const { return address_.port; }

  Error Run(const Context& ctx) {
    // The AfterFunc callback runs on libtether's thread; it may touch the
    // server only while Run has not returned: `serving` says so, under mu.
    struct StopState {
      std::mutex mu;
      HttpServer* serving = nullptr;  // guarded by mu
    };
    auto state = std::make_shared<StopState>();
    state->serving = &http_;
    auto unregister = AfterFunc(ctx, [this, state] {
      stopping_.store(true);  // log followers end their streams
      std::lock_guard<std::mutex> lock(state->mu);
      if (state->serving != nullptr) state->serving->StopListening();
    });
    // Returns after the ThreadPool of connection threads was shut down and joined.
    bool ok = http_.listen_after_bind();
    {
      std::lock_guard<std::mutex> lock(state->mu);
      state->serving = nullptr;
    }
    unregister();
    http_.CloseListener();
    if (!ok && ctx.Err().ok())
      return Error(ErrorCode::kIo, "api: the accept loop failed on " + url());
    return Error();
  }

  void Close() { http_.CloseListener(); }

 private:
  // Authentication before any route, and a 500 for an exception.
  void Guards() {
    http_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (token_.empty() || SameSecret(req.get_header_value("Authorization"), "Bearer " + token_)) {
        return httplib::Server::HandlerResponse::Unhandled;
      }
      res.set_header("WWW-Authenticate", "Bearer realm=\"tether-worker\"");
      ReplyError(
          res, 401,
          req.has_header("Authorization") ? "invalid bearer token" : "a bearer token is required");
      if (req.method != "GET") LogChange(req, res);
      return httplib::Server::HandlerResponse::Handled;
    });
    http_.set_error_handler(
        httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
          if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
          ReplyError(res, res.status, res.status == 404 ? "not found" : "request failed");
          return httplib::Server::HandlerResponse::Handled;
        }));
    http_.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
          std::string what = "internal error";
          try {
            if (ep) std::rethrow_exception(ep);
          } catch (const std::exception& e) {
            what += std::string(": ") + e.what();
          } catch (...) {
          }
          ReplyError(res, 500, what);
        });
  }

  // The routes of docs/worker.md's table (kRoutes), each with its handler.
  void Routes() {
    http_.Get(Route("GET", "/health"), [this](const httplib::Request&, httplib::Response& res) {
      int running = 0;
      std::vector<SlotInfo> slots = worker_.Slots();
      for (const SlotInfo& s : slots) running += s.busy ? 1 : 0;
      Reply(res, 200, {{"status", "ok"}, {"executors", slots.size()}, {"running", running}});
    });
    http_.Get(Route("GET", "/metrics"), [this](const httplib::Request&, httplib::Response& res) {
      MetricsInput in;
      in.stats = worker_.Stats();
      in.executors = static_cast<int>(worker_.Slots().size());
      in.api_cancels = api_cancels_.load(std::memory_order_relaxed);
      res.set_content(RenderMetrics(in), "text/plain; version=0.0.4; charset=utf-8");
    });
    http_.Get(Route("GET", "/api/v1/executors"),
              [this](const httplib::Request&, httplib::Response& res) {
                nlohmann::json list = nlohmann::json::array();
                for (const SlotInfo& s : worker_.Slots()) list.push_back(SlotJson(s));
                Reply(res, 200, {{"executors", std::move(list)}});
              });
    http_.Get(Route("GET", "/api/v1/executors/N"),
              [this](const httplib::Request& req, httplib::Response& res) {
                int n = std::stoi(req.matches[1]);
                for (const SlotInfo& s : worker_.Slots()) {
                  if (s.slot == n) return Reply(res, 200, SlotJson(s));
                }
                ReplyError(res, 404, NoSuchSlot(n));
              });
    http_.Delete(Route("DELETE", "/api/v1/executors/N/build"),
                 [this](const httplib::Request& req, httplib::Response& res) {
                   int n = std::stoi(req.matches[1]);
                   std::string build;
                   switch (worker_.CancelSlot(n, &build)) {
                     case WorkerControl::CancelResult::kCanceled:
                       api_cancels_.fetch_add(1, std::memory_order_relaxed);
                       std::cerr << "tether-worker: api: canceling build " << build << " (executor "
                                 << n << ")\n";
                       Reply(res, 202, {{"slot", n}, {"build", build}, {"state", "canceling"}});
                       break;
                     case WorkerControl::CancelResult::kNoSuchSlot:
                       ReplyError(res, 404, NoSuchSlot(n));
                       break;
                     case WorkerControl::CancelResult::kIdle:
                       ReplyError(res, 409, "executor " + std::to_string(n) + " runs no build");
                       break;
                   }
                   LogChange(req, res);
                 });
    http_.Get(Route("GET", "/api/v1/builds"),
              [this](const httplib::Request&, httplib::Response& res) {
                nlohmann::json list = nlohmann::json::array();
                for (const BuildInfo& b : worker_.Builds()) list.push_back(BuildJson(b));
                Reply(res, 200, {{"builds", std::move(list)}});
              });
    http_.Get(Route("GET", "/api/v1/builds/ID/logs"),
              [this](const httplib::Request& req, httplib::Response& res) {
                ServeLogs(req.matches[1], req.get_param_value("follow") == "1", res);
              });
    // A build by its id, wherever it is: running here, queued, or running
    // on another worker of the queue (which is asked to cancel it).
    http_.Delete(Route("DELETE", "/api/v1/builds/ID"),
                 [this](const httplib::Request& req, httplib::Response& res) {
                   const std::string id = req.matches[1];
                   WorkerControl::BuildCancelResult result;
                   if (Error err = worker_.CancelBuild(id, &result); !err.ok()) {
                     ReplyError(res, 503, "cannot cancel " + id + ": " + err.message());
                   } else {
                     CancelReply(id, result, res);
                   }
                   LogChange(req, res);
                 });
  }

  // A build's logs, "[step] line" each; with follow, streamed (chunked) as
  // they grow until the build ends or the server stops.
  void ServeLogs(const std::string& id, bool follow, httplib::Response& res) {
    std::string dir;
    bool running = false;
    for (const BuildInfo& b : worker_.Builds()) {
      if (b.id != id) continue;
      dir = b.result_dir;
      running = b.status == BuildStatus::kRunning;
      break;
    }
    if (dir.empty()) return ReplyError(res, 404, "no build " + id + " on this worker");
    auto reader = std::make_shared<BuildLogReader>(dir);
    if (!follow || !running) {
      res.set_content(reader->ReadNew(/*last=*/true), "text/plain; charset=utf-8");
      return;
    }
    res.set_chunked_content_provider(
        "text/plain; charset=utf-8", [this, reader, id](std::size_t, httplib::DataSink& sink) {
          std::string chunk = reader->ReadNew();
          if (!chunk.empty() && !sink.write(chunk.data(), chunk.size())) return false;
          bool still_running = false;
          for (const BuildInfo& b : worker_.Builds())
            still_running |= b.id == id && b.status == BuildStatus::kRunning;
          if (!still_running || stopping_.load()) {
            std::string rest = reader->ReadNew(/*last=*/true);
            if (!rest.empty() && !sink.write(rest.data(), rest.size())) return false;
            sink.done();
            return true;
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          return true;
        });
  }

  void CancelReply(const std::string& id, WorkerControl::BuildCancelResult result,
                   httplib::Response& res) {
    using R = WorkerControl::BuildCancelResult;
    switch (result) {
      case R::kRunningHere:
      case R::kRunningElsewhere:
        api_cancels_.fetch_add(1, std::memory_order_relaxed);
        std::cerr << "tether-worker: api: canceling build " << id << "\n";
        Reply(res, 202,
              {{"build", id},
               {"state", "canceling"},
               {"where", result == R::kRunningHere ? "this worker" : "another worker"}});
        break;
      case R::kQueued:
        api_cancels_.fetch_add(1, std::memory_order_relaxed);
        Reply(res, 200, {{"build", id}, {"state", "canceled"}, {"where", "queue"}});
        break;
      case R::kEnded:
        ReplyError(res, 409, "build " + id + " has already ended");
        break;
      case R::kNoSuchBuild:
        ReplyError(res, 404, "no build " + id);
        break;
    }
  }

  // Every request that may change something is logged, before its answer is
  // sent (so the log's order is the order clients saw).
  static void LogChange(const httplib::Request& req, const httplib::Response& res) {
    std::cerr << "tether-worker: api: " << req.method << " " << req.path << " " << res.status
              << "\n";
  }

  std::string NoSuchSlot(int n) const {
    return "no executor " + std::to_string(n) +
           " (executors are numbered from 0 to build-limit - 1)";
  }

  ApiAddress address_;
  const std::string token_;  // empty: no token required
  WorkerControl& worker_;
  std::atomic<std::uint64_t> api_cancels_{0};
  std::atomic<bool> stopping_{false};  // Run's ctx is done
  HttpServer http_;
};

Error HttpApi::Open(const std::string& address_text, const std::string& token_file,
                    WorkerControl& worker, std::unique_ptr<HttpApi>* out) {
  ApiAddress address;
  if (Error err = ParseApiAddress(address_text, &address); !err.ok()) return err;
  std::string token;
  if (!token_file.empty()) {
    if (Error err = ReadApiToken(token_file, &token); !err.ok()) return err;
  }
  if (!address.loopback && token.empty()) {
    return Invalid(
        "--api " + address_text +
        " is not a loopback address: a bearer token is required (--api-token-file FILE)");
  }
  auto impl = std::make_unique<Impl>(address, std::move(token), worker);
  if (Error err = impl->Bind(); !err.ok()) return err;
  out->reset(new HttpApi(std::move(impl)));
  return Error();
}

HttpApi::HttpApi(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpApi::~HttpApi() {
  if (impl_) impl_->Close();
}
std::string HttpApi::url() const { return impl_->url(); }
int HttpApi::port() const { return impl_->port(); }
Error HttpApi::Run(const Context& ctx) { return impl_->Run(ctx); }

}  // namespace tether::worker::api
