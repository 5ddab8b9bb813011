#include "cmd/build_id.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "queue/job.hpp"

namespace tether::worker::cmd {

// The queues name their jobs the same way.
std::string BuildIdStem(const std::string& file) { return queue::BuildIdStem(file); }

std::uint64_t BuildIdAllocator::HighestExisting(const std::string& stem) const {
  std::uint64_t highest = 0;
  DIR* dir = ::opendir(results_dir_.c_str());
  if (dir == nullptr) return 0;
  const std::string prefix = stem + "-";
  while (dirent* entry = ::readdir(dir)) {
    const char* name = entry->d_name;
    if (std::strncmp(name, prefix.c_str(), prefix.size()) != 0) continue;
    const char* digits = name + prefix.size();
    if (*digits < '1' || *digits > '9') continue;  // ids never have leading zeros
    std::uint64_t n = 0;
    const char* p = digits;
    for (; *p >= '0' && *p <= '9' && p - digits < 18; ++p)
      n = n * 10 + static_cast<std::uint64_t>(*p - '0');
    if (*p == '\0' && n > highest) highest = n;
  }
  ::closedir(dir);
  return highest;
}

Error BuildIdAllocator::Reserve(const std::string& stem, std::string* id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = next_.find(stem);
  if (it == next_.end()) it = next_.emplace(stem, HighestExisting(stem) + 1).first;
  // Bounded: every failed mkdir is an id another worker took just now.
  for (int attempt = 0; attempt < 100000; ++attempt) {
    std::string candidate = stem + "-" + std::to_string(it->second++);
    std::string path = results_dir_ + "/" + candidate;
    if (::mkdir(path.c_str(), 0755) == 0) {
      *id = candidate;
      return Error();
    }
    if (errno != EEXIST) {
      return Error(ErrorCode::kIo, "cannot create " + path + ": " + std::strerror(errno));
    }
  }
  return Error(ErrorCode::kIo, "no free build id for " + stem + " in " + results_dir_);
}

}  // namespace tether::worker::cmd
