// DescribeSite: see thread_site.hpp. It runs only when a test has already
// failed (a thread outlived it), so it may start a process; it must not
// start a thread (the shim would record it).
#include "thread_site.hpp"

#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tether/trace_writer/loaded_range.hpp"
#include "tether/trace_writer/site_rules.hpp"

extern char** environ;

namespace tether::threads {
namespace {

using tether::trace::detail::FrameNamed;
using tether::trace::detail::IsRuntimeObject;
using tether::trace::detail::IsSystemHeader;

struct Frame {
  std::string module;         // the loaded object's path
  std::uint64_t address = 0;  // pc - 1 (the call instruction), as in the object's file
};

// The loaded object holding pc, with pc's address in that object's file.
bool FindFrame(std::uint64_t pc, Frame* frame) {
  struct Query {
    std::uint64_t pc;
    Frame* frame;
    bool found;
  } query{pc, frame, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* q = static_cast<Query*>(data);
        const auto range = tether::trace::detail::RangeOf(*info);
        if (q->pc < range.lo || q->pc >= range.hi) return 0;
        std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        if (path.empty()) {  // the main program
          char exe[4096];
          ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
          if (n > 0) path.assign(exe, static_cast<std::size_t>(n));
        }
        q->frame->module = path;
        q->frame->address = q->pc - info->dlpi_addr;
        q->found = true;
        return 1;
      },
      &query);
  return query.found;
}

// addr2line -a -f -C -i -e module addresses...: its output, or empty.
// Spawns addr2line itself rather than through lib/io's RunProgram: this runs
// inside the traced program, whose preloaded shim links the tracer and
// nothing more (each library it adds is loaded into every traced program).
std::string RunAddr2line(const std::string& module, const std::vector<std::uint64_t>& addresses) {
  std::vector<std::string> args = {"addr2line", "-a", "-f", "-C", "-i", "-e", module};
  for (std::uint64_t a : addresses) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(a));
    args.emplace_back(hex);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, "addr2line", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string text;
  if (rc == 0) {
    char buf[4096];
    for (ssize_t n; (n = read(out[0], buf, sizeof buf)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      text.append(buf, static_cast<std::size_t>(n));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) text.clear();
  }
  close(out[0]);
  return text;
}

struct OwnFrame {
  std::string function;
  std::string file;  // lexically normal: "/src/build/../pool.cpp" reads "/src/pool.cpp"
  int line = 0;      // 0 when addr2line gave none
};

// From addr2line -a -f -i output: for each address line ("0x..."), pairs of
// function and file:line lines, innermost inlined frame first. The pairs
// whose file is the program's own (and known), in that order.
std::vector<OwnFrame> OwnFramesOf(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  std::vector<OwnFrame> own;
  for (std::size_t i = 0; i < lines.size();) {
    if (lines[i].rfind("0x", 0) == 0) {
      ++i;
      continue;
    }
    if (i + 1 >= lines.size()) break;
    OwnFrame frame{lines[i], {}, 0};
    std::string where = lines[i + 1];
    i += 2;
    if (const std::size_t note = where.find(" (discriminator"); note != std::string::npos) {
      where.erase(note);
    }
    if (where.rfind("??", 0) == 0 || IsSystemHeader(where)) continue;
    const std::size_t colon = where.rfind(':');
    frame.file = std::filesystem::path(where.substr(0, colon)).lexically_normal().string();
    if (colon != std::string::npos) frame.line = std::atoi(where.c_str() + colon + 1);
    own.push_back(std::move(frame));
  }
  return own;
}

// The program's frames among pcs, each with its address in its object's file.
std::vector<Frame> ProgramFrames(const std::uint64_t* pcs, int count) {
  std::vector<Frame> frames;
  for (int i = 0; i < count; ++i) {
    Frame frame;
    if (pcs[i] == 0 || !FindFrame(pcs[i] - 1, &frame)) continue;
    if (frame.module.empty() || IsRuntimeObject(frame.module)) continue;
    frames.push_back(frame);
  }
  return frames;
}

// The addresses of frames in module, in stack order.
std::vector<std::uint64_t> AddressesIn(const std::vector<Frame>& frames,
                                       const std::string& module) {
  std::vector<std::uint64_t> addresses;
  for (const Frame& f : frames) {
    if (f.module == module) addresses.push_back(f.address);
  }
  return addresses;
}

std::size_t Emit(const std::string& text, char* out, std::size_t cap) {
  if (cap == 0) return 0;
  const std::size_t n = std::min(text.size(), cap - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
  return n;
}

}  // namespace

std::size_t DescribeSite(const std::uint64_t* pcs, int count, char* out, std::size_t cap) {
  const std::vector<Frame> frames = ProgramFrames(pcs, count);
  if (frames.empty()) return 0;
  // The program's frames in the first object that has any, symbolized at once.
  const std::string& module = frames.front().module;
  const std::vector<OwnFrame> own = OwnFramesOf(RunAddr2line(module, AddressesIn(frames, module)));
  std::string site;
  if (!own.empty()) {
    site = own.front().file + (own.front().line > 0 ? ":" + std::to_string(own.front().line) : "") +
           " in " + own.front().function;
  } else {
    char fallback[64];
    std::snprintf(fallback, sizeof fallback, "+0x%llx",
                  static_cast<unsigned long long>(frames.front().address));
    site = module.substr(module.rfind('/') + 1) + fallback;
  }
  return Emit(site, out, cap);
}

namespace {

// The program's own frames among pcs, innermost first, as the tool reads them
// (tool/thread_sites.cpp): each object symbolized once, then the frames in
// stack order, kOwnFramesConsidered distinct ones at most.
std::vector<OwnFrame> ProgramOwnFrames(const std::uint64_t* pcs, int count) {
  const std::vector<Frame> frames = ProgramFrames(pcs, count);
  constexpr std::size_t kOwnFramesConsidered = 5;
  std::map<std::pair<std::string, std::uint64_t>, std::vector<OwnFrame>> symbolized;
  for (const Frame& f : frames) {
    if (symbolized.count({f.module, f.address}) != 0) continue;
    const std::vector<std::uint64_t> addresses = AddressesIn(frames, f.module);
    const std::string text = RunAddr2line(f.module, addresses);
    // One "0x..." line per address, then its frames.
    std::size_t at = 0;
    for (std::uint64_t address : addresses) {
      const std::size_t next = text.find("\n0x", at + 1);
      const std::string block =
          text.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at);
      symbolized[{f.module, address}] = OwnFramesOf(block);
      if (next == std::string::npos) break;
      at = next + 1;
    }
  }
  std::vector<OwnFrame> own;
  for (const Frame& f : frames) {
    for (const OwnFrame& frame : symbolized[{f.module, f.address}]) {
      if (!own.empty() && own.back().file == frame.file && own.back().line == frame.line) continue;
      if (own.size() == kOwnFramesConsidered) return own;
      own.push_back(frame);
    }
  }
  return own;
}

bool Named(const OwnFrame& frame, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& pattern) {
    return FrameNamed(frame.file, frame.line, frame.function, pattern);
  });
}

}  // namespace

bool SiteIgnored(const std::uint64_t* pcs, int count, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return false;
  const std::vector<OwnFrame> own = ProgramOwnFrames(pcs, count);
  return std::any_of(own.begin(), own.end(), [&](const OwnFrame& f) { return Named(f, patterns); });
}

bool RunningIgnored(const std::uint64_t* pcs, int count, const std::vector<std::string>& top,
                    const std::vector<std::string>& any) {
  if (top.empty() && any.empty()) return false;
  const std::vector<OwnFrame> own = ProgramOwnFrames(pcs, count);
  if (!own.empty() && Named(own.front(), top)) return true;
  return std::any_of(own.begin(), own.end(), [&](const OwnFrame& f) { return Named(f, any); });
}

}  // namespace tether::threads
