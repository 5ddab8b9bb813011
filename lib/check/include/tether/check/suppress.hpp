// Justifications: `// tether:detached(<why>)` and NOLINT(tether-<check>) /
// NOLINTNEXTLINE(...). A finding is suppressed by a marker on its own line
// or in the comment block directly above it, or by a NOLINTBEGIN(...) /
// NOLINTEND(...) region around it (clang-tidy's rules: an END closes the
// latest open BEGIN with the same check list). A marker without a reason is
// itself a finding (tether-justification): a detach must say why; so is an
// unmatched NOLINTBEGIN or NOLINTEND.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tether::check {

struct Justification {
  unsigned line = 0, col = 0;  // 1-based position of the marker
  std::string marker;          // "tether:detached", "NOLINT", "NOLINTNEXTLINE",
                               // "NOLINTBEGIN", "NOLINTEND"
  std::string checks;          // the (...) glob list of NOLINT; empty: all checks
  std::string reason;          // trimmed; empty is a finding (NOLINTEND needs none)
  unsigned end_line = 0;       // NOLINTBEGIN: the line of its NOLINTEND; 0 while unmatched
  bool unmatched = false;      // a NOLINTBEGIN without END, or an END without BEGIN
};

// All markers in a file's text, with NOLINTBEGIN/NOLINTEND paired.
std::vector<Justification> ScanJustifications(std::string_view text);

// The marker that suppresses check (e.g. "tether-lost-cancel") at 1-based
// line, if any. lines[i] is line i+1 of the file.
std::optional<Justification> FindJustification(const std::vector<std::string_view>& lines,
                                               const std::vector<Justification>& markers,
                                               unsigned line, std::string_view check);

std::vector<std::string_view> SplitLines(std::string_view text);

// clang-tidy style globs: "-*,tether-lost-cancel", "tether-*".
bool CheckEnabled(std::string_view globs, std::string_view check);

}  // namespace tether::check
