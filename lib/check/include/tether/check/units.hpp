// The translation units of a `tether check` run and how the units of one
// file are told apart and merged (runner.cpp). A compile database may list a
// file more than once: CMake's static and shared library built from the same
// sources (the shared one with -fPIC and -D<lib>_EXPORTS), or the same command
// twice. Each distinct command is a translation unit of its own: its own
// parse, its own TuContext, its own cache entry. Entries whose commands are
// the same once adjusted for the checker (the output path and dependency-file
// options stripped: compdb.hpp) are one unit, checked once. The results of a
// file's units are merged into one before the run's merge. Plain C++ (no
// Clang), so that it is unit-tested on its own (test/unit/check).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tether/check/facts.hpp"
#include "tether/check/finding.hpp"

namespace tether::check {

// A compile command as the checker runs it: after the argument adjusters.
struct UnitCommand {
  std::string file;       // absolute (as the database names it)
  std::string directory;  // the working directory of the command
  std::vector<std::string> arguments;
  bool operator==(const UnitCommand&) const = default;
  auto operator<=>(const UnitCommand&) const = default;
};

// The indices of the commands to check, in order: the first of each group of
// equal ones (same file, directory and arguments).
std::vector<std::size_t> DistinctUnits(const std::vector<UnitCommand>& units);

// What checking one unit gave (from a parse or from the cache).
struct UnitResult {
  std::vector<Finding> findings;
  Facts facts;
  unsigned suppressed = 0;
  bool failed = false;       // errors: exit 2, never cached
  bool partial = false;      // failed, but its recovered AST was checked: findings and facts hold
  bool analysed = false;     // has findings and facts (checked, or read from the cache)
  bool model_types = false;  // a type of the model is declared in the TU
  std::vector<std::string> errors;
  std::vector<std::string> notes;                         // said on stderr, in file order
  std::vector<std::pair<std::string, std::string>> deps;  // with --cache-dir: path, content hash
};

// The results of one file's units (its distinct commands, in database order)
// as one: each finding once (same check, file, line, column and message),
// the facts in unit order (a function both saw keeps the first unit's fact,
// as Facts::Merge does across files), each cross-TU candidate once, errors
// and notes once each in order. The justified count is the largest of the
// units' (the same marker seen by two commands is one justification). The
// file failed when any unit did; partial when, failed, some unit was still
// analysed (its findings are reported). deps are dropped: the cache keeps
// them per unit.
UnitResult MergeFileUnits(std::vector<UnitResult> units);

}  // namespace tether::check
