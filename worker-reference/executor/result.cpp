#include "executor/result.hpp"

#include <cstdio>
#include <ctime>
#include <optional>

#include <nlohmann/json.hpp>

#include "tether/io/write_file.hpp"

namespace tether::worker::executor {

std::string_view StatusName(Status s) {
  switch (s) {
    case Status::kPending:
      return "pending";
    case Status::kRunning:
      return "running";
    case Status::kSuccess:
      return "success";
    case Status::kFailure:
      return "failure";
    case Status::kKilled:
      return "killed";
    case Status::kCanceled:
      return "canceled";
    case Status::kSkipped:
      return "skipped";
    case Status::kError:
      return "error";
  }
  return "unknown";
}

std::string_view ContainerKindName(ContainerKind k) {
  return k == ContainerKind::kService ? "service" : "step";
}

std::string FormatTime(WallClock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

namespace {

nlohmann::json Time(const std::optional<WallClock::time_point>& t) {
  return t ? nlohmann::json(FormatTime(*t)) : nlohmann::json(nullptr);
}

nlohmann::json ToJson(const ContainerRecord& c) {
  nlohmann::json j = {
      {"name", c.name},
      {"status", StatusName(c.status)},
      {"exit_code", c.exit_code ? nlohmann::json(*c.exit_code) : nlohmann::json(nullptr)},
      {"started", Time(c.started)},
      {"finished", Time(c.finished)},
      {"image", c.image},
      {"log", c.log_file},
      {"log_bytes", c.log_bytes},
  };
  if (!c.stage.empty()) j["stage"] = c.stage;
  if (c.detach) j["detach"] = true;
  if (c.continue_on_failure) j["continue"] = true;
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (c.log_truncated) j["log_truncated"] = true;
  return j;
}

}  // namespace

Error WriteBuildJson(const BuildRecord& build, const std::string& path) {
  nlohmann::json j = {
      {"id", build.id},
      {"pipeline", build.pipeline_file},
      {"status", BuildStatusName(build.status)},
      {"started", Time(build.started)},
      {"finished", Time(build.finished)},
      {"deadline", Time(build.deadline)},
      {"services", nlohmann::json::array()},
      {"steps", nlohmann::json::array()},
  };
  if (!build.reason.empty()) j["reason"] = build.reason;
  if (!build.notes.empty()) j["notes"] = build.notes;
  for (const ContainerRecord& s : build.services) j["services"].push_back(ToJson(s));
  for (const ContainerRecord& s : build.steps) j["steps"].push_back(ToJson(s));
  // Any text may reach here (a step name, a reason quoting a file name, a
  // note): bytes that are not UTF-8 become U+FFFD instead of a type_error
  // that left no build.json. The file appears whole or not at all, and the
  // temporary never stays behind (io::WriteFileAtomically).
  std::string text;
  try {
    text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } catch (const std::exception& e) {  // std::bad_alloc and the like
    return Error(ErrorCode::kIo, "cannot write " + path + ": " + e.what());
  }
  if (std::optional<io::WriteError> e = io::WriteFileAtomically(path, text))
    return Error(ErrorCode::kIo, "cannot write " + path + ": " + e->message);
  return Error();
}

}  // namespace tether::worker::executor
