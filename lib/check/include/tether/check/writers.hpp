// The output formats: clang-style text, JSON, SARIF 2.1.0, clang-apply-
// replacements YAML, and in-place fixing.
#pragma once

#include <string>
#include <vector>

#include "tether/check/finding.hpp"

namespace tether::check {

// What a check is (written beside each check's class, lib/check/src/checks/).
struct CheckInfo {
  std::string name;         // "tether-lost-cancel"
  std::string summary;      // one sentence
  std::string description;  // a paragraph
  std::string help;         // what to do
  std::string precision;    // SARIF: "high" | "medium" | "low"
};

struct RunSummary {
  std::vector<Finding> findings;  // sorted
  std::vector<FailedUnit> failed;
  unsigned units = 0;
  unsigned suppressed = 0;
  unsigned baselined = 0;                 // findings left out because --baseline lists them
  std::vector<CheckInfo> enabled_checks;  // in registration order: the SARIF rules
  // --warnings-as-errors: the findings of the checks this glob list enables
  // are errors (text "error: ... [check,-warnings-as-errors]", level "error"
  // in JSON, SARIF and the fixes YAML). "": none.
  std::string warnings_as_errors;
};

// Whether `f` is an error of `run` (RunSummary::warnings_as_errors).
bool IsError(const RunSummary& run, const Finding& f);

std::string TextReport(const RunSummary& run);
std::string JsonReport(const RunSummary& run);
// sarif_root: the directory URIs are made relative to (repo root).
std::string SarifReport(const RunSummary& run, const std::string& sarif_root,
                        const std::string& tool_version);
std::string ExportFixesYaml(const RunSummary& run, const std::string& main_file,
                            const std::string& build_dir);
// Applies every fix; returns the number applied, errors appended to *errors.
unsigned ApplyFixes(const std::vector<Finding>& findings, std::vector<std::string>* errors);

}  // namespace tether::check
