// --fix: applies the fix-its in place, file by file, back to front so that
// earlier offsets stay valid. Overlapping replacements are skipped (the
// first one in file order wins), like clang-apply-replacements' conflicts.
#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "tether/check/writers.hpp"
#include "tether/io/write_file.hpp"

namespace tether::check {

unsigned ApplyFixes(const std::vector<Finding>& findings, std::vector<std::string>* errors) {
  std::map<std::string, std::vector<Replacement>> by_file;
  for (const Finding& f : findings)
    for (const Replacement& r : f.fixes) by_file[r.file].push_back(r);
  unsigned applied = 0;
  for (auto& [file, reps] : by_file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      errors->push_back(file + ": cannot read the file to fix");
      continue;
    }
    std::stringstream buf;
    buf << in.rdbuf();
    std::string text = buf.str();
    in.close();
    std::sort(reps.begin(), reps.end(), [](const Replacement& a, const Replacement& b) {
      return a.offset < b.offset || (a.offset == b.offset && a.length < b.length);
    });
    reps.erase(std::unique(reps.begin(), reps.end(),
                           [](const Replacement& a, const Replacement& b) {
                             return a.offset == b.offset && a.length == b.length &&
                                    a.text == b.text;
                           }),
               reps.end());
    std::vector<Replacement> kept;
    unsigned end = 0;
    for (const Replacement& r : reps) {
      if (r.offset + r.length > text.size()) {
        errors->push_back(file + ": a fix lies outside the file (was it changed?)");
        continue;
      }
      if (!kept.empty() && r.offset < end) {
        errors->push_back(file + ":" + std::to_string(r.offset) + ": conflicting fix skipped");
        continue;
      }
      kept.push_back(r);
      end = r.offset + r.length;
    }
    for (auto it = kept.rbegin(); it != kept.rend(); ++it)
      text.replace(it->offset, it->length, it->text);
    // Whole or not at all: a full disk or a kill never leaves a user's
    // source half-written, and its mode and symbolic link stay.
    if (std::optional<io::WriteError> e = io::WriteFileAtomically(file, text)) {
      errors->push_back(file + ": cannot write the fixed file: " + e->message);
      continue;
    }
    applied += static_cast<unsigned>(kept.size());
  }
  return applied;
}

}  // namespace tether::check
