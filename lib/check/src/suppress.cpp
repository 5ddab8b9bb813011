// Justification markers and check globs.
#include "tether/check/suppress.hpp"

#include <algorithm>
#include <cctype>

namespace tether::check {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The reason after a NOLINT marker: "NOLINT(x): because" -> "because".
std::string_view ReasonAfter(std::string_view rest) {
  rest = Trim(rest);
  while (!rest.empty() && (rest.front() == ':' || rest.front() == '-' || rest.front() == ',' ||
                           std::isspace(static_cast<unsigned char>(rest.front()))))
    rest.remove_prefix(1);
  // A trailing "*/" is not part of the reason.
  if (rest.size() >= 2 && rest.substr(rest.size() - 2) == "*/") rest.remove_suffix(2);
  return Trim(rest);
}

bool CommentOnly(std::string_view line) {
  line = Trim(line);
  return line.substr(0, 2) == "//" || line.substr(0, 2) == "/*" || line.substr(0, 1) == "*";
}

bool GlobMatch(std::string_view glob, std::string_view name) {
  if (glob.empty()) return name.empty();
  if (glob.front() == '*') {
    for (size_t i = 0; i <= name.size(); ++i)
      if (GlobMatch(glob.substr(1), name.substr(i))) return true;
    return false;
  }
  return !name.empty() && glob.front() == name.front() && GlobMatch(glob.substr(1), name.substr(1));
}

bool ListNames(std::string_view list, std::string_view check) {
  if (Trim(list).empty()) return true;  // NOLINT without a list: every check
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string_view glob = Trim(list.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (!glob.empty() && glob.front() != '-' && GlobMatch(glob, check)) return true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return false;
}

// clang-tidy pairs an END with the latest open BEGIN whose check list is the
// same text; anything left over on either side is unmatched.
void PairRegions(std::vector<Justification>* markers) {
  std::vector<Justification*> open;
  for (Justification& j : *markers) {
    if (j.marker == "NOLINTBEGIN") {
      open.push_back(&j);
    } else if (j.marker == "NOLINTEND") {
      auto it = std::find_if(open.rbegin(), open.rend(), [&](const Justification* b) {
        return Trim(b->checks) == Trim(j.checks);
      });
      if (it == open.rend()) {
        j.unmatched = true;
        continue;
      }
      (*it)->end_line = j.line;
      open.erase(std::next(it).base());
    }
  }
  for (Justification* b : open) b->unmatched = true;
}

}  // namespace

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    std::string_view line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = nl + 1;
  }
  return lines;
}

std::vector<Justification> ScanJustifications(std::string_view text) {
  std::vector<Justification> out;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    size_t comment = line.find("//");
    if (comment == std::string_view::npos) comment = line.find("/*");
    if (comment == std::string_view::npos) continue;
    std::string_view body = line.substr(comment);
    static constexpr std::string_view kDetached = "tether:detached(";
    if (size_t at = body.find(kDetached); at != std::string_view::npos) {
      Justification j;
      j.line = static_cast<unsigned>(i + 1);
      j.col = static_cast<unsigned>(comment + at + 1);
      j.marker = "tether:detached";
      std::string_view rest = body.substr(at + kDetached.size());
      // The reason may go on over the next comment lines: then the text up
      // to the end of this line is (the start of) it.
      size_t close = rest.rfind(')');
      if (close == std::string_view::npos && rest.size() >= 2 &&
          rest.substr(rest.size() - 2) == "*/")
        rest.remove_suffix(2);
      j.reason = std::string(Trim(close == std::string_view::npos ? rest : rest.substr(0, close)));
      out.push_back(std::move(j));
    }
    for (std::string_view marker : {"NOLINTNEXTLINE", "NOLINTBEGIN", "NOLINTEND", "NOLINT"}) {
      size_t at = body.find(marker);
      if (at == std::string_view::npos) continue;
      std::string_view after = body.substr(at + marker.size());
      if (marker == "NOLINT" && (after.substr(0, 8) == "NEXTLINE" ||
                                 after.substr(0, 5) == "BEGIN" || after.substr(0, 3) == "END"))
        continue;
      Justification j;
      j.line = static_cast<unsigned>(i + 1);
      j.col = static_cast<unsigned>(comment + at + 1);
      j.marker = std::string(marker);
      if (!after.empty() && after.front() == '(') {
        size_t close = after.find(')');
        j.checks = std::string(
            after.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
        after = close == std::string_view::npos ? "" : after.substr(close + 1);
      }
      j.reason = std::string(ReasonAfter(after));
      if (j.marker == "NOLINTEND") j.reason.clear();  // an END closes, it explains nothing
      out.push_back(std::move(j));
      break;
    }
  }
  PairRegions(&out);
  return out;
}

bool NamesTetherCheck(const Justification& j) {
  return j.marker == "tether:detached" || j.checks.find("tether-") != std::string::npos;
}

std::optional<Justification> FindJustification(const std::vector<std::string_view>& lines,
                                               const std::vector<Justification>& markers,
                                               unsigned line, std::string_view check) {
  auto applies = [&](const Justification& j, bool same_line) {
    if (j.marker == "NOLINTBEGIN" || j.marker == "NOLINTEND") return false;  // regions, below
    if (j.marker == "tether:detached") return true;
    if (j.marker == "NOLINT" && !same_line) return false;
    if (j.marker == "NOLINTNEXTLINE" && same_line) return false;
    return ListNames(j.checks, check);
  };
  for (const auto& j : markers)
    if (j.line == line && applies(j, true)) return j;
  // The comment block directly above the line.
  for (unsigned above = line - 1; above >= 1 && above <= lines.size(); --above) {
    if (!CommentOnly(lines[above - 1])) break;
    for (const auto& j : markers)
      if (j.line == above && applies(j, false)) return j;
  }
  // The innermost BEGIN...END suppression region around the line. (Prose
  // must not spell the markers: the scanner, like clang-tidy's, reads them
  // in any comment.)
  const Justification* region = nullptr;
  for (const auto& j : markers)
    if (j.marker == "NOLINTBEGIN" && !j.unmatched && j.line <= line && line <= j.end_line &&
        ListNames(j.checks, check) && (!region || j.line > region->line))
      region = &j;
  if (region) return *region;
  return std::nullopt;
}

bool CheckEnabled(std::string_view globs, std::string_view check) {
  bool enabled = false;
  size_t start = 0;
  while (start <= globs.size()) {
    size_t comma = globs.find(',', start);
    std::string_view glob = Trim(globs.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (!glob.empty()) {
      bool negative = glob.front() == '-';
      if (negative) glob.remove_prefix(1);
      if (GlobMatch(glob, check)) enabled = !negative;
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return enabled;
}

}  // namespace tether::check
