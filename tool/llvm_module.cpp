// The parts of `tether` that need LLVM and Clang (the checker, the thread
// symbolizer) live in libtether_llvm.so beside the executable (../lib when
// installed) and are loaded only when used. Linked into the executable, the
// shared libLLVM and libclang-cpp cost every run ~60 MB of resident memory
// before main (their relocations), which `tether trace --load` of a
// million-task trace must stay within 128 MB with (bench/results/trace-load.md).
#include <dlfcn.h>

#include <filesystem>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "thread_sites.hpp"

namespace tether::tool {
namespace {

constexpr const char* kModule = "libtether_llvm.so";

// Where the module was looked for, for the error when it is not there.
std::string Candidates() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / kModule).string() + " or " +
         (self.parent_path().parent_path() / "lib" / kModule).string();
}

// The module's handle (loaded once), or null with *error set.
void* Module(std::string* error) {
  static std::string load_error;
  static void* handle = [] {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) {
      load_error = "cannot find the tether executable's directory: " + ec.message();
      return static_cast<void*>(nullptr);
    }
    for (const auto& candidate :
         {self.parent_path() / kModule, self.parent_path().parent_path() / "lib" / kModule}) {
      if (!std::filesystem::is_regular_file(candidate, ec)) continue;
      if (void* h = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
      load_error = dlerror();
      return static_cast<void*>(nullptr);
    }
    load_error = std::string(kModule) + " is not installed (looked for " + Candidates() + ")";
    return static_cast<void*>(nullptr);
  }();
  if (handle == nullptr && error != nullptr) *error = load_error;
  return handle;
}

template <class Fn>
Fn Entry(const char* name, std::string* error) {
  void* handle = Module(error);
  if (handle == nullptr) return nullptr;
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

}  // namespace

int RunCheck(int argc, char** argv) {
  std::string error;
  auto run = Entry<int (*)(int, char**)>("tether_llvm_run_check", &error);
  if (run == nullptr) {
    std::cerr << "tether check: "
              << (error.empty() ? "this tether was built without the checker (configure with "
                                  "-DTETHER_BUILD_CHECKER=ON and LLVM/Clang 16)"
                                : "the checker cannot be loaded: " + error)
              << "\n";
    return kExitError;
  }
  return run(argc, argv);
}

void ResolveThreadSites(trace::Trace* trace) {
  if (trace->stacks.empty()) return;  // a libtether trace: nothing to load LLVM for
  using Symbolize = void (*)(trace::Trace*);
  if (auto symbolize = Entry<Symbolize>("tether_llvm_symbolize_thread_sites", nullptr)) {
    symbolize(trace);
  } else {
    SymbolizeThreadSites(trace);  // object and offset
  }
}

}  // namespace tether::tool
