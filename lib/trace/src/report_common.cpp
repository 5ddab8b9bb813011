#include "report_common.hpp"

#include <map>
#include <tuple>

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
  // Cut the parameter list (the first '(' at template depth 0) ...
  std::string s = function;
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

const char* KindWord(FindingKind kind) {
  switch (kind) {
    case FindingKind::kZombie: return "zombie";
    case FindingKind::kLeak: return "leak";
    case FindingKind::kUnwaitedGroup: return "unwaited_group";
  }
  return "unknown";
}

}  // namespace tether::trace::detail
