#include "report_common.hpp"

#include <map>
#include <tuple>
#include <vector>

namespace tether::trace::detail {

Site SiteOf(const Trace& trace, const Finding& f) {
  if (f.kind == FindingKind::kUnwaitedGroup) {
    auto g = trace.groups.find(f.group);
    return g != trace.groups.end() ? g->second.site : Site{};
  }
  auto t = trace.tasks.find(f.task);
  return t != trace.tasks.end() ? t->second.site : Site{};
}

std::vector<FindingGroup> GroupBySite(const Trace& trace, const std::vector<Finding>& findings) {
  std::vector<FindingGroup> groups;
  std::map<std::tuple<int, std::string, int>, std::size_t> index;
  for (const Finding& f : findings) {
    Site site = SiteOf(trace, f);
    auto key = std::make_tuple(static_cast<int>(f.kind), site.file, site.line);
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) groups.push_back(FindingGroup{f.kind, site, {}});
    groups[it->second].members.push_back(&f);
  }
  return groups;
}

std::string DisplayPath(const std::string& file, const std::string& dir) {
  if (dir.empty() || file.size() <= dir.size() + 1) return file;
  if (file.compare(0, dir.size(), dir) == 0 && file[dir.size()] == '/') {
    return file.substr(dir.size() + 1);
  }
  return file;
}

std::string ShortFunction(const std::string& function) {
  // LLVM's demangler says "(anonymous namespace)" where GCC's
  // __PRETTY_FUNCTION__ (libtether's sites) says "{anonymous}": spelled as GCC
  // does, so that neither its '(' nor its space is taken for the parameter
  // list or the return type below.
  std::string s = function;
  static const std::string kAnonymous = "(anonymous namespace)";
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
  return s.empty() ? function : s;
}

bool EndsWithComponents(const std::string& s, const std::string& tail, char separator) {
  if (tail.empty() || s.size() < tail.size()) return false;
  if (s.compare(s.size() - tail.size(), tail.size(), tail) != 0) return false;
  return s.size() == tail.size() || s[s.size() - tail.size() - 1] == separator;
}

const char* KindWord(FindingKind kind) {
  switch (kind) {
    case FindingKind::kZombie:
      return "zombie";
    case FindingKind::kLeak:
      return "leak";
    case FindingKind::kUnwaitedGroup:
      return "unwaited_group";
    case FindingKind::kUnjoinedThread:
      return "unjoined_thread";
  }
  return "unknown";
}

const TaskRecord* CreatingTask(const Trace& trace, const TaskRecord& thread) {
  if (thread.kind != "thread" || thread.parent_task == 0) return nullptr;
  auto parent = trace.tasks.find(thread.parent_task);
  if (parent == trace.tasks.end() || parent->second.kind == "thread") return nullptr;
  return &parent->second;
}

}  // namespace tether::trace::detail

namespace tether::trace {

bool SiteMatches(const Site& site, const std::string& pattern) {
  if (site.file.empty()) return false;
  const std::size_t colon = pattern.rfind(':');
  if (colon != std::string::npos && colon > 0 && colon + 1 < pattern.size() &&
      pattern.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
      pattern[colon - 1] != ':') {
    return std::to_string(site.line) == pattern.substr(colon + 1) &&
           detail::EndsWithComponents(site.file, pattern.substr(0, colon), '/');
  }
  const std::string function = detail::ShortFunction(site.function);
  if (function == pattern) return true;
  return function.size() > pattern.size() + 2 &&
         function.compare(function.size() - pattern.size() - 2, 2, "::") == 0 &&
         detail::EndsWithComponents(function, pattern, ':');
}

std::size_t DropIgnored(const Trace& trace, const std::vector<std::string>& patterns,
                        std::vector<Finding>* findings) {
  if (patterns.empty()) return 0;
  auto named = [&](const Site& site) {
    for (const std::string& p : patterns) {
      if (SiteMatches(site, p)) return true;
    }
    return false;
  };
  auto ignored = [&](const Finding& f) {
    if (f.kind == FindingKind::kUnwaitedGroup) return false;
    auto t = trace.tasks.find(f.task);
    if (t == trace.tasks.end()) return false;
    if (named(t->second.site)) return true;
    for (const Site& caller : t->second.callers) {
      if (named(caller)) return true;
    }
    return false;
  };
  const std::size_t before = findings->size();
  std::erase_if(*findings, ignored);
  return before - findings->size();
}

}  // namespace tether::trace
