// Reads the corpus MANIFEST.md (shared/data/vela-pipelines) at test time: one
// row per saved pipeline with the expectation its tables state.
#pragma once

#include <string>
#include <vector>

namespace tether::worker::testing {

struct ManifestRow {
  std::string file;       // relative to the corpus folder, e.g. "server-testdata/x.yml"
  std::string predicted;  // "accept", "reject: no version; ...", "n/a (fragment: ruleset)", ...
  std::string verdict;    // server test verdict (server-testdata only), e.g. "valid", "INVALID"
  int line = 0;           // line of the row in MANIFEST.md, for messages
};

// Every table row of MANIFEST.md that links a saved file. Rows of the
// not-a-pipeline table get predicted = "reject: not a Vela pipeline".
// Returns false (with `error`) when the file cannot be read or has no rows.
bool ReadManifest(const std::string& path, std::vector<ManifestRow>* rows, std::string* error);

}  // namespace tether::worker::testing
