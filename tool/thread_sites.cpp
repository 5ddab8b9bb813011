// SymbolizeThreadSites: see thread_sites.hpp.
//
// A frame is the program's own when its object is not the C or C++ runtime,
// the unwinder, the loader or the shim, and (with debug info) its line is not
// in a system header: std::thread's constructor and vector::emplace_back are
// compiled into the program, but their lines are in <thread> and <vector>.
#include "thread_sites.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#ifdef TETHER_HAVE_LLVM_SYMBOLIZER
#include <llvm/DebugInfo/Symbolize/Symbolize.h>
#endif

#include "tether/trace_writer/site_rules.hpp"

namespace tether::tool {
namespace {

using trace::detail::IsRuntimeObject;
using trace::detail::IsSystemHeader;

std::string Hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

struct Frame {
  std::string file;  // "" without debug info
  int line = 0;
  std::string function;
};

class Symbolizer {
 public:
  // The frames at (object, file address), innermost inlined frame first.
  std::vector<Frame> At(const std::string& object, std::uint64_t address) {
    std::vector<Frame> frames;
#ifdef TETHER_HAVE_LLVM_SYMBOLIZER
    auto info = symbolizer_.symbolizeInlinedCode(
        object, {address, llvm::object::SectionedAddress::UndefSection});
    if (!info) {
      llvm::consumeError(info.takeError());
      return frames;
    }
    for (std::uint32_t i = 0; i < info->getNumberOfFrames(); ++i) {
      const llvm::DILineInfo& f = info->getFrame(i);
      Frame frame;
      if (f.FileName != llvm::DILineInfo::BadString) frame.file = f.FileName;
      frame.line = static_cast<int>(f.Line);
      if (f.FunctionName != llvm::DILineInfo::BadString) frame.function = f.FunctionName;
      frames.push_back(std::move(frame));
    }
#else
    (void)object;
    (void)address;
#endif
    return frames;
  }

 private:
#ifdef TETHER_HAVE_LLVM_SYMBOLIZER
  llvm::symbolize::LLVMSymbolizer symbolizer_;
#endif
};

// The object at pc in the address space of process (0: the program; a child
// process the program started has objects of its own).
const trace::ModuleRecord* ModuleOf(const trace::Trace& t, std::int64_t process, std::uint64_t pc) {
  for (const trace::ModuleRecord& m : t.modules) {
    if (m.process == process && pc >= m.lo && pc < m.hi) return &m;
  }
  return nullptr;
}

// How many frames of the program's own code a thread's report shows: its site
// and the callers above it (a pool's threads are made in the pool's
// constructor; the callers say which code made the pool).
constexpr std::size_t kOwnFramesShown = 5;

bool SameSite(const trace::Site& a, const trace::Site& b) {
  return a.file == b.file && a.line == b.line && a.function == b.function;
}

// The frames of one stack in the program's own code, innermost first: the
// first is the site, the next its callers. Without any (no debug info, or
// only system headers) the first object and function + offset of the
// program's own objects.
std::vector<trace::Site> OwnFramesOf(const trace::Trace& t, std::int64_t process,
                                     const std::vector<std::uint64_t>& pcs,
                                     Symbolizer& symbolizer) {
  std::vector<trace::Site> own;
  trace::Site fallback;
  for (std::uint64_t pc : pcs) {
    const trace::ModuleRecord* m = ModuleOf(t, process, pc);
    if (m == nullptr || IsRuntimeObject(m->path)) continue;
    // A return address points after the call: look up the call itself.
    const std::uint64_t address = pc - m->bias - 1;
    std::vector<Frame> frames = symbolizer.At(m->path, address);
    for (const Frame& f : frames) {
      if (f.file.empty() || IsSystemHeader(f.file)) continue;
      trace::Site site{std::filesystem::path(f.file).lexically_normal().string(), f.line,
                       f.function};
      if (own.empty() || !SameSite(own.back(), site)) own.push_back(std::move(site));
      if (own.size() == kOwnFramesShown) return own;
    }
    if (own.empty() && fallback.file.empty()) {
      const std::string object = m->path.substr(m->path.find_last_of('/') + 1);
      fallback.file = object;
      fallback.function = !frames.empty() && !frames.back().function.empty()
                              ? frames.back().function + " (" + object + "+" + Hex(address) + ")"
                              : object + "+" + Hex(address);
    }
  }
  if (own.empty()) own.push_back(std::move(fallback));
  return own;
}

}  // namespace

void SymbolizeThreadSites(trace::Trace* trace) {
  Symbolizer symbolizer;
  // A program creates its threads from a few places: each distinct stack is
  // symbolized once (100k threads from one line are one lookup).
  // A stack is read in the address space of the process that recorded it:
  // a child's own records are the child's (their ids say which), and where
  // a child was started is its parent's.
  std::map<std::pair<std::int64_t, std::vector<std::uint64_t>>, std::vector<trace::Site>> resolved;
  auto frames_in = [&](std::int64_t process,
                       const std::vector<std::uint64_t>& stack) -> const std::vector<trace::Site>& {
    auto [it, fresh] = resolved.try_emplace({process, stack});
    if (fresh) it->second = OwnFramesOf(*trace, process, stack, symbolizer);
    return it->second;
  };
  auto frames_of = [&](std::uint64_t id,
                       const std::vector<std::uint64_t>& stack) -> const std::vector<trace::Site>& {
    auto t = trace->tasks.find(id);
    return frames_in(
        t != trace->tasks.end() ? trace::RanIn(*trace, t->second) : trace::ProcessOfTask(id),
        stack);
  };
  for (const auto& [id, stack] : trace->stacks) {
    if (auto t = trace->tasks.find(id); t != trace->tasks.end() && t->second.site.file.empty()) {
      const std::vector<trace::Site>& own = frames_of(id, stack);
      t->second.site = own.front();
      t->second.callers.assign(own.begin() + 1, own.end());
    }
    if (auto s = trace->scopes.find(id); s != trace->scopes.end() && s->second.site.file.empty()) {
      s->second.site = frames_of(id, stack).front();
    }
  }
  for (const auto& [id, stack] : trace->detach_stacks) {
    if (auto t = trace->tasks.find(id); t != trace->tasks.end()) {
      t->second.detach_site = frames_of(id, stack).front();
    }
  }
  for (const auto& [id, running] : trace->running_stacks) {
    // A thread asked before it reached the program's code (still in the
    // thread library's start) has no frame to show.
    const std::vector<trace::Site>& own = frames_in(trace::ProcessOfTask(id), running.pcs);
    if (auto t = trace->tasks.find(id); t != trace->tasks.end() && !own.front().file.empty()) {
      t->second.running_at = own;
      t->second.running_ns = running.ns;
    }
  }
}

}  // namespace tether::tool
