// Runs the enabled checks over a set of translation units: phase 1 parses
// each TU once (N worker threads, one ClangTool each), runs the local checks
// and gathers per-function facts; phase 2 resolves the cross-TU findings.
// A TU is one distinct compile command of a file: a file the compile database
// lists with two different commands is checked twice, its results merged
// (tether/check/units.hpp).
#pragma once

#include <string>
#include <vector>

#include "tether/check/facts.hpp"
#include "tether/check/model.hpp"
#include "tether/check/writers.hpp"

namespace tether::check {

struct RunOptions {
  std::string build_dir;                // -p: holds compile_commands.json
  std::vector<std::string> files;       // restrict to these (or the TUs to check with extra_args)
  std::vector<std::string> extra_args;  // after `--`
  bool have_fixed_args = false;         // `--` was given
  std::string checks = "tether-*";
  unsigned jobs = 1;
  bool progress = true;
  unsigned max_chain_depth = 3;
  std::vector<std::string> exclude_substrings;  // skip TUs whose path contains one
  std::string cache_dir;  // --cache-dir: reuse unchanged TUs' results (cache.hpp)
};

struct RunResult {
  RunSummary summary;
  Facts facts;
  std::string error;                    // set when nothing could run (no compile DB, ...)
  unsigned parsed = 0;                  // TUs parsed in this run (summary.units counts TUs too)
  unsigned reused = 0;                  // TUs whose results came from the cache
  std::vector<std::string> notes;       // cache notes (a corrupt entry, a failed write)
  std::vector<std::string> unit_files;  // the units' main files, real paths (--header-filter)
};

RunResult RunChecks(const RunOptions& options, const ApiModel& model);
// Every check tether knows, in registration order (registry.cpp).
std::vector<CheckInfo> AllCheckInfos();

}  // namespace tether::check
