// Which frames of a thread's creation stack are the program's own, by one
// rule for the tool's report (tool/thread_sites.cpp, at report time) and the
// shim's in-process message (lib/threads/src/thread_site.cpp, a failing
// test): a frame is the program's when its object is not a runtime library
// and its line is not in a system header (std::thread's constructor and
// vector::emplace_back are compiled into the program, but their lines are in
// <thread> and <vector>). And which frames an --ignore pattern names, by one
// rule for the report (tether::trace::DropIgnored) and the verdicts given in
// the process (the per-test listener through the shim, ScopeVerifier).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

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

// A function name as source_location or a demangler spells it, shortened to
// its qualified name ("void ns::F(int)" -> "ns::F").
inline std::string ShortFunction(std::string_view function) {
  // LLVM's demangler says "(anonymous namespace)" where GCC's
  // __PRETTY_FUNCTION__ (libtether's sites) says "{anonymous}": spelled as GCC
  // does, so that neither its '(' nor its space is taken for the parameter
  // list or the return type below.
  std::string s(function);
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  for (std::size_t at = s.find(kAnonymous); at != std::string::npos; at = s.find(kAnonymous, at)) {
    s.replace(at, kAnonymous.size(), "{anonymous}");
  }
  // Cut the parameter list (the first '(' at template depth 0) ...
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>') --depth;
    if (s[i] == '(' && depth == 0 && i > 0) {
      // "operator()" keeps its parentheses.
      if (s.compare(i, 3, "()(") == 0 || (i >= 8 && s.compare(i - 8, 8, "operator") == 0)) {
        continue;
      }
      s.resize(i);
      break;
    }
  }
  // ... and the return type (everything up to the last space at depth 0).
  depth = 0;
  std::size_t cut = std::string::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>') --depth;
    if (s[i] == ' ' && depth == 0) cut = i;
  }
  if (cut != std::string::npos) s = s.substr(cut + 1);
  return s.empty() ? std::string(function) : s;
}

// Whether s ends with tail at a component boundary (preceded by separator,
// or all of s).
inline bool EndsWithComponents(std::string_view s, std::string_view tail, char separator) {
  if (tail.empty() || s.size() < tail.size()) return false;
  if (s.substr(s.size() - tail.size()) != tail) return false;
  return s.size() == tail.size() || s[s.size() - tail.size() - 1] == separator;
}

// `tether trace --ignore`'s patterns as the traced program receives them
// (TETHER_IGNORE_SITES, one a line; --ignore-top's and --ignore-running's in
// TETHER_IGNORE_TOP and TETHER_IGNORE_RUNNING), for the verdicts given in the
// process; none when the variable is not set.
inline std::vector<std::string> IgnorePatternsFromEnvironment(
    const char* variable = "TETHER_IGNORE_SITES") {
  std::vector<std::string> patterns;
  const char* text = std::getenv(variable);
  for (std::string_view rest = text != nullptr ? text : ""; !rest.empty();) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    if (end > 0) patterns.emplace_back(rest.substr(0, end));
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return patterns;
}

// Whether an --ignore pattern names the frame at file:line in function:
// "FILE:LINE" (FILE the file's trailing path components: pool.cpp:42,
// src/pool.cpp:42) or a function (the trailing components of its qualified
// name: Schedule, PosixEnv::Schedule). A frame without a file is named by
// nothing.
inline bool FrameNamed(std::string_view file, int line, std::string_view function,
                       std::string_view pattern) {
  if (file.empty()) return false;
  const std::size_t colon = pattern.rfind(':');
  if (colon != std::string_view::npos && colon > 0 && colon + 1 < pattern.size() &&
      pattern.find_first_not_of("0123456789", colon + 1) == std::string_view::npos &&
      pattern[colon - 1] != ':') {
    return std::to_string(line) == pattern.substr(colon + 1) &&
           EndsWithComponents(file, pattern.substr(0, colon), '/');
  }
  const std::string short_name = ShortFunction(function);
  if (short_name == pattern) return true;
  return short_name.size() > pattern.size() + 2 &&
         short_name.compare(short_name.size() - pattern.size() - 2, 2, "::") == 0 &&
         EndsWithComponents(short_name, pattern, ':');
}

}  // namespace tether::trace::detail
