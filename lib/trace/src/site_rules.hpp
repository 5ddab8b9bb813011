// Which frames of a thread's creation stack are the program's own, by one
// rule for the tool's report (tool/thread_sites.cpp, at report time) and the
// shim's in-process message (lib/threads/src/thread_site.cpp, a failing
// test): a frame is the program's when its object is not a runtime library
// and its line is not in a system header (std::thread's constructor and
// vector::emplace_back are compiled into the program, but their lines are in
// <thread> and <vector>).
#pragma once

#include <string_view>

namespace tether::trace::detail {

// path: a loaded object's path. The C and C++ runtimes, the unwinder, the
// loader, the sanitizers' runtimes and the thread shim itself.
inline bool IsRuntimeObject(std::string_view path) {
  const std::string_view base = path.substr(path.find_last_of('/') + 1);
  for (std::string_view lib :
       {"libc.so", "libc-", "libstdc++", "libgcc_s", "ld-linux", "libpthread", "libtether_threads",
        "libm.so", "libasan", "libtsan", "libubsan"}) {
    if (base.substr(0, lib.size()) == lib) return true;
  }
  return false;
}

// file: a source file named by debug info. System and standard library
// headers, and tether/trace/scope.h (TETHER_SCOPE's guard object).
inline bool IsSystemHeader(std::string_view file) {
  constexpr std::string_view kScopeHeader = "tether/trace/scope.h";
  if (file.size() >= kScopeHeader.size() &&
      file.substr(file.size() - kScopeHeader.size()) == kScopeHeader) {
    return true;
  }
  for (std::string_view prefix : {"/usr/include/", "/usr/lib/", "/usr/local/include/"}) {
    if (file.substr(0, prefix.size()) == prefix) return true;
  }
  return file.find("/include/c++/") != std::string_view::npos ||
         file.find("/bits/") != std::string_view::npos;
}

}  // namespace tether::trace::detail
