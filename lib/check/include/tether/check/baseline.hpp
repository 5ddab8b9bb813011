// Baselines: adopt tether check on an old codebase and fail only on new
// findings. A baseline is a JSON or SARIF report of an earlier run; each
// finding carries a fingerprint that survives line moves, and a finding whose
// fingerprint is in the baseline is not reported again.
//
// The fingerprint (format "tether/v1"): FNV-1a 64 of
//   check "\n" path relative to the root "\n" enclosing function "\n"
//   the flagged line with all whitespace removed
// (the function's qualified name, with a lambda's "<lambda@LINE>" as "<lambda>")
// in hex, then ":" and the occurrence index (1, 2, ...) among the findings with
// the same hash, in output order. Lines moving, re-indenting or a function
// moving to another place in its file keep it; editing the flagged line,
// renaming the function or the file, or a new identical finding above an old
// one in the same function change it (the new one is then reported).
// It is the only recipe: SARIF's primaryLocationLineHash (code scanning's
// identity of an alert) carries the same value.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tether/check/writers.hpp"

namespace tether::check {

// Sets Finding::fingerprint on every finding (they must be in output order).
// root: the directory paths are made relative to (the SARIF root).
void AssignFingerprints(const std::string& root, std::vector<Finding>* findings);

struct Baseline {
  std::map<std::string, unsigned> fingerprints;  // fingerprint -> how many times listed
};

// Reads a `tether check --format json` or `--format sarif` report. On error
// returns false and sets *error to "<path>:<line>:<col>: error: <problem>".
bool LoadBaseline(const std::string& path, Baseline* baseline, std::string* error);
bool ParseBaseline(const std::string& text, const std::string& source, Baseline* baseline,
                   std::string* error);

// Removes from run->findings those in the baseline (counted in
// run->baselined); returns how many baseline entries matched nothing.
unsigned ApplyBaseline(const Baseline& baseline, RunSummary* run);

}  // namespace tether::check
