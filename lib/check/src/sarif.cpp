// SARIF 2.1.0 for GitHub code scanning: URIs relative to the root under
// %SRCROOT% (absolute file:// URIs for files outside it), one rule per enabled
// check (with descriptions, help, precision and a helpUri to its doc page),
// and partialFingerprints.primaryLocationLineHash so alerts survive line
// shifts.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tether/check/baseline.hpp"
#include "tether/check/suppress.hpp"
#include "tether/check/writers.hpp"

namespace tether::check {
namespace {

using nlohmann::json;

// CMake's TETHER_REPO_URL (empty unless a packager sets the project's public
// repository), the installed docs' directory under the prefix, and the
// source tree's docs.
#ifndef TETHER_REPO_URL
#define TETHER_REPO_URL ""
#endif
#ifndef TETHER_DOCDIR_REL
#define TETHER_DOCDIR_REL "share/doc/tether"
#endif
#ifndef TETHER_SOURCE_DOCS
#define TETHER_SOURCE_DOCS ""
#endif

std::string PercentEncoded(std::string_view path);

// Where the docs are, as a URI base that resolves (ends in '/'): the public
// repository's docs when one is configured; else the docs installed with this
// binary (PREFIX/share/doc/tether beside PREFIX/bin/tether); else the source
// tree's (a build-tree binary). The last two are file:// URIs, which resolve
// on the machine that ran the check (a dead example.org link did not).
std::string DocsBase() {
  const std::string repo = TETHER_REPO_URL;
  if (!repo.empty()) return repo + "/blob/main/docs/";
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = self.parent_path().parent_path() / TETHER_DOCDIR_REL;
    if (std::filesystem::is_regular_file(installed / "checker.md", ec))
      return "file://" + PercentEncoded(installed.string()) + "/";
  }
  return "file://" + PercentEncoded(TETHER_SOURCE_DOCS) + "/";
}

std::string PercentEncoded(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {  // percent-encode what a URI reference cannot hold
    if (std::isalnum(c) || std::string_view("/-._~").find(c) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

bool UnderRoot(const std::string& file, const std::string& root) {
  std::string r = root;
  if (!r.empty() && r.back() != '/') r += '/';
  return !r.empty() && file.rfind(r, 0) == 0;
}

std::string RelativeUri(const std::string& file, const std::string& root) {
  std::string r = root;
  if (!r.empty() && r.back() != '/') r += '/';
  return PercentEncoded(UnderRoot(file, root) ? std::string_view(file).substr(r.size()) : file);
}

// A file under the root is a URI relative to %SRCROOT%; one outside it (a
// header elsewhere) an absolute file:// URI.
json Location(const std::string& file, const std::string& root, unsigned line, unsigned col) {
  json artifact = UnderRoot(file, root)
                      ? json{{"uri", RelativeUri(file, root)}, {"uriBaseId", "%SRCROOT%"}}
                      : json{{"uri", "file://" + PercentEncoded(file)}};
  return {{"physicalLocation",
           {{"artifactLocation", artifact},
            {"region", {{"startLine", line}, {"startColumn", col > 0 ? col : 1}}}}}};
}

}  // namespace

std::string SarifReport(const RunSummary& run, const std::string& sarif_root,
                        const std::string& tool_version) {
  json rules = json::array();
  std::map<std::string, int> rule_index;
  const std::string docs = DocsBase();
  for (const CheckInfo& info : run.enabled_checks) {
    rule_index[info.name] = static_cast<int>(rules.size());
    // In this run, per --warnings-as-errors.
    const char* level =
        !run.warnings_as_errors.empty() && CheckEnabled(run.warnings_as_errors, info.name)
            ? "error"
            : "warning";
    std::string doc = info.name.substr(std::string("tether-").size());
    rules.push_back(
        {{"id", info.name},
         {"name", info.name},
         {"shortDescription", {{"text", info.summary}}},
         {"fullDescription", {{"text", info.description}}},
         {"help",
          {{"text", info.help}, {"markdown", info.help + "\n\nSee docs/checks/" + doc + ".md."}}},
         {"helpUri", docs + "checks/" + doc + ".md"},
         {"defaultConfiguration", {{"level", level}}},
         {"properties",
          {{"tags", {"concurrency", "context"}},
           {"precision", info.precision},
           {"problem.severity", level}}}});
  }
  json results = json::array();
  // One recipe names a finding (AssignFingerprints, baseline.hpp): code
  // scanning's primaryLocationLineHash is the baseline's "tether/v1", so
  // both follow a finding across moved lines the same way. A caller that
  // assigned none (a writer test, the library used alone) gets them here.
  std::vector<Finding> fingerprinted;
  const std::vector<Finding>* findings = &run.findings;
  if (std::any_of(run.findings.begin(), run.findings.end(),
                  [](const Finding& f) { return f.fingerprint.empty(); })) {
    fingerprinted = run.findings;
    AssignFingerprints(sarif_root, &fingerprinted);
    findings = &fingerprinted;
  }
  for (const Finding& f : *findings) {
    json result = {{"ruleId", f.check},
                   {"level", IsError(run, f) ? "error" : "warning"},
                   {"message", {{"text", f.message}}},
                   {"locations", json::array({Location(f.file, sarif_root, f.line, f.col)})},
                   {"partialFingerprints",
                    {{"primaryLocationLineHash", f.fingerprint}, {"tether/v1", f.fingerprint}}}};
    if (auto it = rule_index.find(f.check); it != rule_index.end())
      result["ruleIndex"] = it->second;
    if (!f.notes.empty()) {
      json related = json::array();
      int id = 1;
      for (const Note& n : f.notes) {
        json loc = Location(n.file, sarif_root, n.line, n.col);
        loc["id"] = id++;
        loc["message"] = {{"text", n.message}};
        related.push_back(loc);
      }
      result["relatedLocations"] = related;
    }
    results.push_back(result);
  }
  json notifications = json::array();
  for (const FailedUnit& u : run.failed) {
    std::string text = u.partial ? "compile errors (its results may be incomplete): " + u.file
                                 : "analysis failed: " + u.file;
    for (const auto& e : u.errors) text += "\n" + e;
    notifications.push_back({{"level", "error"}, {"message", {{"text", text}}}});
  }
  std::string root_uri = "file://" + PercentEncoded(sarif_root);
  if (root_uri.back() != '/') root_uri += '/';
  json run_json = {{"tool",
                    {{"driver",
                      {{"name", "tether"},
                       {"fullName", "tether check"},
                       {"version", tool_version},
                       {"semanticVersion", tool_version},
                       {"informationUri", docs + "checker.md"},
                       {"rules", rules}}}}},
                   {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", root_uri}}}}},
                   {"invocations", json::array({{{"executionSuccessful", run.failed.empty()},
                                                 {"toolExecutionNotifications", notifications}}})},
                   {"results", results}};
  json doc = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({run_json})}};
  return doc.dump(2) + "\n";
}

}  // namespace tether::check
