// Fingerprints and baselines (see baseline.hpp for the fingerprint's recipe).
#include "tether/check/baseline.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "json_pos.hpp"
#include "tether/io/hash.hpp"
#include "tether/io/json.hpp"
#include "tether/io/read_file.hpp"

namespace tether::check {
namespace {

using nlohmann::json;

std::string RelativeTo(const std::string& file, std::string root) {
  if (!root.empty() && root.back() != '/') root += '/';
  return (!root.empty() && file.rfind(root, 0) == 0) ? file.substr(root.size()) : file;
}

std::string WithoutSpace(const std::string& s) {
  std::string out;
  for (unsigned char c : s)
    if (!std::isspace(c)) out += static_cast<char>(c);
  return out;
}

// "Run::<lambda@42>" -> "Run::<lambda>": a lambda's name carries its line.
std::string WithoutLambdaLines(const std::string& function) {
  std::string out;
  for (size_t i = 0; i < function.size(); ++i) {
    if (function.compare(i, 8, "<lambda@") == 0) {
      out += "<lambda>";
      i += 8;
      while (i < function.size() && function[i] != '>') ++i;
      continue;
    }
    out += function[i];
  }
  return out;
}

}  // namespace

void AssignFingerprints(const std::string& root, std::vector<Finding>* findings) {
  std::map<std::string, unsigned> seen;
  for (Finding& f : *findings) {
    std::uint64_t h =
        io::Fnv1a64(f.check + "\n" + RelativeTo(f.file, root) + "\n" +
                    WithoutLambdaLines(f.function) + "\n" + WithoutSpace(f.line_text));
    char hex[24];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    f.fingerprint = std::string(hex) + ":" + std::to_string(++seen[hex]);
  }
}

bool ParseBaseline(const std::string& text, const std::string& source, Baseline* baseline,
                   std::string* error) {
  json doc;
  if (std::optional<io::JsonProblem> p = io::ParseJson(text, &doc)) {
    *error = source + ":" + io::LineColumnAt(text, p->offset) +
             ": error: invalid JSON in baseline: " + p->message;
    return false;
  }
  auto fail = [&](const std::string& key, const std::string& problem) {
    *error = source + ":" + io::LineColumnAt(text, key.empty() ? 0 : KeyOffset(text, key)) +
             ": error: " + problem;
    return false;
  };
  auto add = [&](const json& fp) {
    if (!fp.is_string() || fp.get<std::string>().empty()) return false;
    ++baseline->fingerprints[fp.get<std::string>()];
    return true;
  };
  if (doc.is_object() && doc.contains("tether_check")) {  // --format json
    if (!doc.contains("findings") || !doc["findings"].is_array())
      return fail("tether_check", "baseline: 'findings' must be an array");
    for (const json& f : doc["findings"])
      if (!f.is_object() || !f.contains("fingerprint") || !add(f["fingerprint"]))
        return fail(
            "findings",
            "baseline: a finding has no 'fingerprint' (written by a tether check older than "
            "--baseline? write the baseline again)");
    return true;
  }
  if (doc.is_object() && doc.contains("runs") && doc["runs"].is_array()) {  // --format sarif
    for (const json& run : doc["runs"]) {
      if (!run.is_object() || !run.contains("results")) continue;
      if (!run["results"].is_array())
        return fail("results", "baseline: SARIF 'results' must be an array");
      for (const json& r : run["results"]) {
        const json* fp = nullptr;
        if (r.is_object() && r.contains("partialFingerprints") &&
            r["partialFingerprints"].is_object() && r["partialFingerprints"].contains("tether/v1"))
          fp = &r["partialFingerprints"]["tether/v1"];
        if (!fp || !add(*fp))
          return fail(
              "results",
              "baseline: a SARIF result has no partialFingerprints 'tether/v1' (not written "
              "by tether check --format sarif?)");
      }
    }
    return true;
  }
  return fail("", "baseline: not a report of 'tether check --format json' or '--format sarif'");
}

bool LoadBaseline(const std::string& path, Baseline* baseline, std::string* error) {
  // Through lib/io like every other input: a directory, FIFO or device is
  // refused before it is opened, and the size is capped.
  std::string text;
  if (std::optional<io::ReadError> err = io::ReadInputFile(path, &text)) {
    *error = err->ToString();
    return false;
  }
  return ParseBaseline(text, path, baseline, error);
}

unsigned ApplyBaseline(const Baseline& baseline, RunSummary* run) {
  std::map<std::string, unsigned> left = baseline.fingerprints;
  std::vector<Finding> kept;
  for (Finding& f : run->findings) {
    auto it = left.find(f.fingerprint);
    if (it != left.end() && it->second > 0) {
      --it->second;
      ++run->baselined;
      continue;
    }
    kept.push_back(std::move(f));
  }
  run->findings = std::move(kept);
  unsigned stale = 0;
  for (const auto& [fp, n] : left) stale += n;
  return stale;
}

}  // namespace tether::check
