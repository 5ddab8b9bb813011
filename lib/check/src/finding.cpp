#include "tether/check/finding.hpp"

#include <algorithm>
#include <tuple>

namespace tether::check {

bool FindingLess(const Finding& a, const Finding& b) {
  return std::tie(a.file, a.line, a.col, a.check, a.message) <
         std::tie(b.file, b.line, b.col, b.check, b.message);
}

void SortAndDedupe(std::vector<Finding>* findings) {
  std::stable_sort(findings->begin(), findings->end(), FindingLess);
  auto same = [](const Finding& a, const Finding& b) {
    // The message may name the instantiation or the function a macro was
    // expanded in; one report per written location is enough.
    return a.file == b.file && a.line == b.line && a.col == b.col && a.check == b.check;
  };
  findings->erase(std::unique(findings->begin(), findings->end(), same), findings->end());
}

}  // namespace tether::check
