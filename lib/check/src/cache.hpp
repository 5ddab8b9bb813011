// The result cache of `tether check --cache-dir DIR`: one entry per
// translation unit, so an unchanged TU costs no parse on the next run.
//
// Key (the entry's file name): BLAKE3 of the cache and facts schema versions,
// the tether executable's own content (any rebuilt tool is a new tool), the
// API model, the enabled checks, and the TU's compile commands (directory and
// arguments, with the extra arguments given after `--`).
// Entry: the TU's dependency list (the main file and every file the
// preprocessor entered, each with the BLAKE3 of the content that was parsed),
// then the TU's facts, findings, justified count and whether a type of the
// model is declared in it (FactsToJson, and the header). An entry
// is used only if every dependency still has that content.
//
// Phase 1 of a TU never sees another TU's facts (the TUs are analysed
// independently, in parallel); everything cross-TU is decided in phase 2 from
// the merged facts, which is recomputed on every run from the cached and the
// fresh facts. So a TU's findings and facts depend only on its key and its
// dependencies, and reusing them is exact. (A check that read other TUs'
// facts during phase 1 would have to add the merged facts' hash to the entry.)
//
// One entry per translation unit: a distinct compile command of a file (a
// file the database lists with two commands has two entries; identical
// entries are one unit, so one run never writes an entry twice).
//
// Writes go to a temporary file of the writer's own, renamed over the entry
// (atomic: concurrent runs may share DIR); the temporary is removed on every
// error path and, through LLVM's signal handlers, when the run dies; one left
// by a killed run is removed by a later run once it is an hour old. An entry
// that cannot be read or parsed (corrupt, truncated) is never trusted: the TU
// is parsed again and the entry rewritten, with a note. An entry that cannot
// be written (a source line that is not UTF-8 cannot be JSON) is not
// written, with a note; the run's results are the same.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tether/check/facts.hpp"
#include "tether/check/finding.hpp"
#include "tether/check/model.hpp"

namespace tether::check {

struct CachedUnit {
  std::vector<Finding> findings;
  Facts facts;
  unsigned suppressed = 0;
  bool model_types = false;  // a type of the model is declared in the TU (runner.cpp)
  std::vector<std::pair<std::string, std::string>> deps;  // path, content hash
};

class ResultCache {
 public:
  // run_key: what applies to every TU (model, checks); the tool's identity
  // and the schema versions are added here.
  ResultCache(std::string dir, const ApiModel& model, const std::string& checks);

  // Creates the directory and removes stale temporaries; false with *error
  // when it cannot be created.
  bool Prepare(std::string* error);
  std::string UnitKey(const std::string& file, const std::vector<std::string>& command_parts) const;
  // True when a usable entry exists; *note is set when one existed but was
  // corrupt or stale in a way worth saying.
  bool Lookup(const std::string& key, CachedUnit* out, std::string* note);
  // Writes the entry atomically; false with *error on I/O failure.
  bool Store(const std::string& key, const std::vector<Finding>& findings, const Facts& facts,
             unsigned suppressed, bool model_types,
             const std::vector<std::pair<std::string, std::string>>& deps, std::string* error);
  // BLAKE3 of a file's current content ("" when unreadable), memoized per run.
  std::string FileHash(const std::string& path);

  static std::string HashText(std::string_view text);

 private:
  std::string EntryPath(const std::string& key) const;
  void RemoveStaleTemporaries();

  std::string dir_;
  std::string run_key_;
  std::mutex mu_;
  std::map<std::string, std::string> file_hashes_;  // under mu_
};

}  // namespace tether::check
