#include "api/build_logs.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

namespace tether::worker::api {

namespace {

// When the file was made (statx birth time where the file system has one,
// else its change time): logs are created in the order the build starts them.
std::pair<std::int64_t, std::string> CreationKey(const std::string& dir, const std::string& name) {
  struct statx st {};
  const std::string path = dir + "/" + name;
  if (::statx(AT_FDCWD, path.c_str(), 0, STATX_BTIME | STATX_CTIME, &st) == 0) {
    const statx_timestamp& t = (st.stx_mask & STATX_BTIME) ? st.stx_btime : st.stx_ctime;
    return {static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec, name};
  }
  return {0, name};
}

}  // namespace

std::string BuildLogReader::ReadNew(bool last) {
  std::error_code ec;
  std::vector<std::string> fresh;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0 && !offsets_.count(name) &&
        entry.is_regular_file(ec))
      fresh.push_back(name);
  }
  std::sort(fresh.begin(), fresh.end(), [&](const std::string& a, const std::string& b) {
    return CreationKey(dir_, a) < CreationKey(dir_, b);
  });
  for (std::string& name : fresh) {
    offsets_[name] = 0;
    files_.push_back(std::move(name));
  }
  std::string out;
  for (const std::string& name : files_) {
    std::ifstream in(dir_ + "/" + name, std::ios::binary);
    if (!in) continue;
    std::uint64_t& offset = offsets_[name];
    in.seekg(static_cast<std::streamoff>(offset));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t end = last ? text.size() : text.rfind('\n');
    if (end == std::string::npos) continue;
    if (!last) ++end;  // through the newline
    const std::string prefix = "[" + name.substr(0, name.size() - 4) + "] ";
    std::size_t start = 0;
    while (start < end) {
      std::size_t nl = text.find('\n', start);
      if (nl == std::string::npos || nl >= end) nl = end;
      out += prefix;
      out.append(text, start, nl - start);
      out += '\n';
      start = nl + 1;
    }
    offset += end;
  }
  return out;
}

}  // namespace tether::worker::api
