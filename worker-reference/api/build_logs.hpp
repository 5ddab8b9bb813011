// The logs of one build, as GET /api/v1/builds/{id}/logs serves them: every
// step and service log of its result directory (masked, as the worker wrote
// them), each line prefixed "[name] " as on the live output. One reader per
// request; it remembers how far it read each file, so a follower gets only
// what was added since.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tether::worker::api {

class BuildLogReader {
 public:
  explicit BuildLogReader(std::string result_dir) : dir_(std::move(result_dir)) {}

  // The complete lines added since the last call, from every log (files in
  // the order they were first seen; new ones sorted by creation time). With
  // last = true, a final line without a newline is returned too.
  std::string ReadNew(bool last = false);

 private:
  std::string dir_;
  std::vector<std::string> files_;                // *.log names, in the order first seen
  std::map<std::string, std::uint64_t> offsets_;  // bytes read of each
};

}  // namespace tether::worker::api
