// The lines a run reports on, as clang-tidy's --line-filter and
// clang-tidy-diff give them: a JSON list of files with line ranges, or the
// new side of a unified diff (`git diff -U0 origin/main | tether check --diff -
// -p build`: only findings on added or changed lines, for pull requests
// without a baseline).
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tether/check/writers.hpp"

namespace tether::check {

class LineFilter {
 public:
  // clang-tidy's format: [{"name":"src/a.cpp","lines":[[1,3],[5,5]]},{"name":"b.h"}]
  // (a file without "lines" passes whole). `where` names the input in errors.
  static bool FromJson(std::string_view text, const std::string& where, LineFilter* out,
                       std::string* error);
  // The "+++ b/FILE" and "@@ -a,b +c,d @@" lines of a unified diff (git's or
  // diff -u's): lines c .. c+d-1 of FILE; a deleted file and pure deletions
  // (d = 0) add nothing.
  static bool FromUnifiedDiff(std::string_view text, const std::string& where, LineFilter* out,
                              std::string* error);

  // file (absolute, as findings hold it) ends with a listed name at a path
  // boundary, and line is in one of its ranges.
  bool Passes(const std::string& file, unsigned line) const;
  // Keeps run's findings that pass; returns how many were left out.
  unsigned Apply(RunSummary* run) const;
  std::size_t files() const { return entries_.size(); }

 private:
  struct Entry {
    std::string name;
    std::vector<std::pair<unsigned, unsigned>> lines;  // inclusive; empty: every line
  };
  std::vector<Entry> entries_;
};

// clang-tidy's --header-filter: a finding in a header (a file that is no
// checked translation unit's main file) is kept only when the header's path
// matches the regular expression (POSIX extended, found anywhere in the path,
// as clang-tidy's llvm::Regex matches). A main file's findings always stay;
// an empty expression keeps no header's, as in clang-tidy.
class HeaderFilter {
 public:
  // false with *error naming the option and the problem for a bad expression.
  static bool Make(const std::string& regex, HeaderFilter* out, std::string* error);
  // main_files: the translation units' files (real paths, as findings hold
  // them). Keeps run's findings that pass; returns how many were left out.
  unsigned Apply(const std::vector<std::string>& main_files, RunSummary* run) const;

 private:
  std::regex regex_;
  bool none_ = false;
};

}  // namespace tether::check
