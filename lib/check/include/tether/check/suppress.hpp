// Justifications: `// tether:detached(<why>)` and NOLINT(tether-<check>) /
// NOLINTNEXTLINE(...). A finding is suppressed by a marker on its own line
// or in the comment block directly above it, or by a BEGIN(...) / END(...)
// region of clang-tidy's NOLINT markers around it (clang-tidy's rules: an END
// closes the latest open BEGIN with the same check list). A marker without a
// reason is itself a finding (tether-justification): a detach must say why;
// so is an unmatched region marker. (This prose never spells the region
// markers whole: the scanner, like clang-tidy's, reads them in any comment.)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tether::check {

struct Justification {
  unsigned line = 0, col = 0;  // 1-based position of the marker
  std::string marker;          // "tether:detached", "NOLINT", "NOLINTNEXTLINE", or
                               // the region markers ("NOLINT" + "BEGIN" / "END")
  std::string checks;          // the (...) glob list of NOLINT; empty: all checks
  std::string reason;          // trimmed; empty is a finding (a region's END needs none)
  unsigned end_line = 0;       // a region's BEGIN: the line of its END; 0 while unmatched
  bool unmatched = false;      // a region BEGIN without END, or an END without BEGIN
};

// The marker is tether's to police (tether-justification reports it when it
// gives no reason): a detached marker, or a NOLINT family marker whose list
// names a tether check. A bare NOLINT, or one naming only other tools'
// checks, is clang-tidy's.
bool NamesTetherCheck(const Justification& j);

// All markers in a file's text, with region BEGIN/END markers paired.
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
