// Build ids: `<stem>-<n>`, where each build reserves its result directory
// `<results>/<stem>-<n>` by creating it (mkdir is atomic, so workers sharing
// a results directory never share an id).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "tether/error.hpp"

namespace tether::worker::cmd {

// The build-id stem of a pipeline file: its name without .yml/.yaml, with
// every character that is not [A-Za-z0-9._-] replaced by '_'.
std::string BuildIdStem(const std::string& file);

// Hands out build ids for one results directory. The first id of a stem is
// one more than the highest `<stem>-<n>` already there (one directory scan
// per stem); later ids count on from the last one handed out, so n builds
// of one pipeline cost n mkdir calls, not n^2/2 (a probe from 1). An id
// another worker took in the meantime is skipped (mkdir fails with EEXIST).
// Thread-safe.
class BuildIdAllocator {
 public:
  explicit BuildIdAllocator(std::string results_dir) : results_dir_(std::move(results_dir)) {}
  // Creates <results>/<id> and sets *id. Error kIo when it cannot.
  Error Reserve(const std::string& stem, std::string* id);

 private:
  std::uint64_t HighestExisting(const std::string& stem) const;

  const std::string results_dir_;
  std::mutex mu_;
  std::map<std::string, std::uint64_t> next_;  // guarded by mu_: by stem
};

}  // namespace tether::worker::cmd
