// The units of one file: which are distinct, and their results merged
// (tether/check/units.hpp).
#include "tether/check/units.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace tether::check {
namespace {

// What makes two findings the same report: a finding both commands of a file
// produce is one finding (its notes and fixes are the first unit's).
auto FindingKey(const Finding& f) { return std::tie(f.check, f.file, f.line, f.col, f.message); }

template <class T, class Key>
void AppendOnce(std::vector<T>* into, std::vector<T>&& from, Key key) {
  for (T& item : from) {
    bool seen = std::any_of(into->begin(), into->end(),
                            [&](const T& have) { return key(have) == key(item); });
    if (!seen) into->push_back(std::move(item));
  }
}

}  // namespace

std::vector<std::size_t> DistinctUnits(const std::vector<UnitCommand>& units) {
  std::vector<std::size_t> keep;
  auto less = [&units](std::size_t a, std::size_t b) { return units[a] < units[b]; };
  std::set<std::size_t, decltype(less)> seen(less);
  for (std::size_t i = 0; i < units.size(); ++i)
    if (seen.insert(i).second) keep.push_back(i);
  return keep;
}

UnitResult MergeFileUnits(std::vector<UnitResult> units) {
  if (units.empty()) return {};
  UnitResult out = std::move(units.front());
  out.deps.clear();
  for (std::size_t i = 1; i < units.size(); ++i) {
    UnitResult& u = units[i];
    // A file has few findings and fewer units: the quadratic scans stay small.
    AppendOnce(&out.findings, std::move(u.findings), FindingKey);
    for (auto& [id, fact] : u.facts.functions) out.facts.functions.emplace(id, std::move(fact));
    AppendOnce(&out.facts.candidates, std::move(u.facts.candidates), [](const ForwardCandidate& c) {
      return std::tuple_cat(FindingKey(c.finding), std::tie(c.callee_id, c.context_name));
    });
    AppendOnce(&out.facts.block_candidates, std::move(u.facts.block_candidates),
               [](const BlockCandidate& c) {
                 return std::tuple_cat(FindingKey(c.finding), std::tie(c.callee_id));
               });
    out.suppressed = std::max(out.suppressed, u.suppressed);
    out.failed |= u.failed;
    out.analysed |= u.analysed;
    out.model_types |= u.model_types;
    AppendOnce(&out.errors, std::move(u.errors),
               [](const std::string& s) -> const std::string& { return s; });
    AppendOnce(&out.notes, std::move(u.notes),
               [](const std::string& s) -> const std::string& { return s; });
  }
  // A unit that failed without an AST leaves the file's findings to the
  // others: they are reported, marked as possibly incomplete.
  out.partial = out.failed && out.analysed;
  return out;
}

}  // namespace tether::check
