// TETHER_TRACE=<path>: start the trace file before main. This file is linked
// into every program that links tether_runtime (as an object, so the linker
// keeps its static initialiser even though nothing refers to it).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tether/trace/runtime.hpp"

namespace tether::trace {
namespace {

bool StartFromEnvironment() {
  const char* path = std::getenv("TETHER_TRACE");
  if (path == nullptr || *path == '\0') return false;
  std::string where = path;
  // Child processes (steps, helpers) must not write into this file too.
  unsetenv("TETHER_TRACE");
  if (Error err = StartFileTrace(where); !err.ok()) {
    std::fprintf(stderr, "tether: TETHER_TRACE: %s; running untraced\n", err.message().c_str());
    return false;
  }
  return true;
}

[[maybe_unused]] const bool g_started_from_environment = StartFromEnvironment();

}  // namespace
}  // namespace tether::trace
