// OpenQueue: "dir:PATH" or "redis://[HOST][:PORT][/DB]".
#include <cstdlib>

#include "queue/queue.hpp"
#include "queue/redis_queue.hpp"
#include "queue/spool_queue.hpp"

namespace tether::worker::queue {

Error OpenQueue(const std::string& url, const QueueOptions& options, std::unique_ptr<Queue>* out) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorCode::kInvalidArgument, "invalid queue \"" + url + "\": " + why +
                                                  " (write dir:PATH or redis://HOST:PORT/DB)");
  };
  if (url.rfind("dir:", 0) == 0) {
    std::string path = url.substr(4);
    if (path.empty()) return bad("empty spool path");
    auto spool = std::make_unique<SpoolQueue>(path, options);
    if (Error err = spool->Open(); !err.ok()) return err;
    *out = std::move(spool);
    return Error();
  }
  if (url.rfind("redis://", 0) == 0) {
    RedisAddress addr;
    std::string rest = url.substr(8);
    if (rest.find('@') != std::string::npos) {
      return bad(
          "credentials do not belong in the URL; set TETHER_REDIS_PASSWORD or "
          "TETHER_REDIS_PASSWORD_FILE");
    }
    std::string hostport = rest, db;
    if (std::size_t slash = rest.find('/'); slash != std::string::npos) {
      hostport = rest.substr(0, slash);
      db = rest.substr(slash + 1);
    }
    std::string port;
    if (std::size_t colon = hostport.rfind(':'); colon != std::string::npos) {
      addr.host = hostport.substr(0, colon);
      port = hostport.substr(colon + 1);
    } else {
      addr.host = hostport;
    }
    if (addr.host.empty()) addr.host = "127.0.0.1";
    if (!port.empty()) {
      char* end = nullptr;
      long p = std::strtol(port.c_str(), &end, 10);
      if (*end != '\0' || p < 1 || p > 65535) return bad("bad port \"" + port + "\"");
      addr.port = static_cast<int>(p);
    }
    if (!db.empty()) {
      char* end = nullptr;
      long d = std::strtol(db.c_str(), &end, 10);
      if (*end != '\0' || d < 0 || d > 1000000) return bad("bad database number \"" + db + "\"");
      addr.db = static_cast<int>(d);
    }
    if (Error err = ReadRedisPassword(&addr.password); !err.ok()) return err;
    auto redis = std::make_unique<RedisQueue>(addr, options);
    if (Error err = redis->Open(); !err.ok()) return err;
    *out = std::move(redis);
    return Error();
  }
  return bad("unknown scheme");
}

}  // namespace tether::worker::queue
