#include "queue/job.hpp"

#include <sys/random.h>
#include <unistd.h>

#include <cctype>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace tether::worker::queue {

namespace {

using Json = nlohmann::json;

long long ToMs(WallClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
WallClock::time_point FromMs(long long ms) {
  return WallClock::time_point(
      std::chrono::duration_cast<WallClock::duration>(std::chrono::milliseconds(ms)));
}

Error Corrupt(const std::string& where, const std::string& why) {
  return Error(ErrorCode::kInvalidArgument, where + ": corrupt: " + why);
}

}  // namespace

std::string BuildIdStem(const std::string& file) {
  std::string base = std::filesystem::path(file).filename().string();
  for (const std::string e : {".yml", ".yaml"}) {
    if (base.size() > e.size() && base.compare(base.size() - e.size(), e.size(), e) == 0) {
      base.resize(base.size() - e.size());
      break;
    }
  }
  std::string stem;
  for (char c : base) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '_' || c == '.';
    stem += safe ? c : '_';
  }
  while (!stem.empty() && stem[0] == '.') stem.erase(0, 1);
  if (stem.size() > 64) stem.resize(64);
  return stem.empty() ? "build" : stem;
}

std::string RandomTag() {
  unsigned char bytes[6];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string tag;
  for (unsigned char b : bytes) {
    tag += kHex[b >> 4];
    tag += kHex[b & 15];
  }
  return tag;
}

std::string DefaultWorkerName() {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  std::string h;
  for (char c : std::string(host))
    h += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
  return (h.empty() ? "worker" : h) + "-" + std::to_string(::getpid()) + "-" +
         RandomTag().substr(0, 6);
}

std::string NewJobId(const std::string& pipeline_file) {
  return BuildIdStem(pipeline_file) + "-" + RandomTag();
}

Error MakeItem(const std::string& id, const JobSpec& spec, BuildItem* out) {
  out->id = id;
  std::vector<PipelineDiagnostic> diagnostics;
  Error err = ParsePipeline(spec.pipeline_text, spec.pipeline_file, &out->pipeline, &diagnostics);
  if (err.ok()) err = CheckRunnable(out->pipeline, &diagnostics);
  if (err.ok()) return err;
  std::string message;
  for (const PipelineDiagnostic& d : diagnostics)
    message += (message.empty() ? "" : "; ") + d.ToString();
  return Error(ErrorCode::kInvalidArgument, message.empty() ? err.message() : message);
}

std::string EncodeJob(const JobRecord& job) {
  Json j = {{"id", job.id},
            {"pipeline_file", job.spec.pipeline_file},
            {"pipeline", job.spec.pipeline_text},
            {"submitted_ms", ToMs(job.submitted)},
            {"attempts", job.attempts}};
  return j.dump();
}

Error DecodeJob(const std::string& text, const std::string& where, JobRecord* out) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Corrupt(where, "not a JSON object");
  try {
    out->id = j.at("id").get<std::string>();
    out->spec.pipeline_file = j.at("pipeline_file").get<std::string>();
    out->spec.pipeline_text = j.at("pipeline").get<std::string>();
    out->submitted = FromMs(j.at("submitted_ms").get<long long>());
    out->attempts = j.at("attempts").get<int>();
  } catch (const Json::exception& e) {
    return Corrupt(
        where,
        std::string("a job record needs id, pipeline_file, pipeline, submitted_ms, attempts (") +
            e.what() + ")");
  }
  if (out->id.empty() || out->id.find('/') != std::string::npos)
    return Corrupt(where, "bad job id");
  return Error();
}

std::string EncodeResult(const JobRecord& job, const JobResult& result) {
  Json j = {{"id", job.id},
            {"pipeline_file", job.spec.pipeline_file},
            {"attempts", job.attempts},
            {"status", BuildStatusName(result.status)},
            {"reason", result.reason},
            {"worker", result.worker},
            {"result_dir", result.result_dir}};
  if (result.started) j["started_ms"] = ToMs(*result.started);
  if (result.finished) j["finished_ms"] = ToMs(*result.finished);
  return j.dump();
}

Error DecodeResult(const std::string& text, const std::string& where, JobStatus* out) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Corrupt(where, "not a JSON object");
  JobResult r;
  try {
    out->id = j.at("id").get<std::string>();
    out->pipeline_file = j.at("pipeline_file").get<std::string>();
    out->attempts = j.at("attempts").get<int>();
    std::string status = j.at("status").get<std::string>();
    std::optional<BuildStatus> parsed = ParseBuildStatus(status);
    if (!parsed || *parsed == BuildStatus::kPending || *parsed == BuildStatus::kRunning)
      return Corrupt(
          where,
          "a result's status must be success, failure, error or canceled, not \"" + status + "\"");
    r.status = *parsed;
    r.reason = j.at("reason").get<std::string>();
    r.worker = j.at("worker").get<std::string>();
    r.result_dir = j.at("result_dir").get<std::string>();
    if (j.contains("started_ms")) r.started = FromMs(j["started_ms"].get<long long>());
    if (j.contains("finished_ms")) r.finished = FromMs(j["finished_ms"].get<long long>());
  } catch (const Json::exception& e) {
    return Corrupt(where,
                   std::string("a result record needs id, pipeline_file, attempts, status, reason, "
                               "worker, result_dir (") +
                       e.what() + ")");
  }
  out->state = "done";
  out->worker = r.worker;
  out->result = r;
  return Error();
}

}  // namespace tether::worker::queue
