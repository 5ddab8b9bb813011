// Every file of the Vela corpus (shared/data/vela-pipelines) against the
// expectation MANIFEST.md states for it, read at test time: files Vela
// accepts must parse; files it rejects must be refused, with a line, for the
// reason the manifest gives. Deliberate differences are listed below.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "manifest.hpp"
#include "tether/worker/pipeline.hpp"

namespace tether::worker {
namespace {

const std::string kCorpus = TETHER_VELA_CORPUS_DIR;

enum class Outcome { kAccept, kReject };

// Files Vela accepts although they lose a setting (an ignored key, a second
// step of one name, ...): accepted with a warning at the place, each refused
// under --strict (issue 21). Every other accepted file has no warning.
struct Warned {
  const char* file;
  const char* warning;  // a phrase of the first warning
};
const Warned kWarned[] = {
    {"go-vela__pkg-executor.vela.yml", "unknown key `need` in stage `failure` is ignored (as by Vela); did you mean `needs`?"},
    {"HimajaMailarapu__retail_order_processing.vela.yml", "unknown key `registry` in step `publish-docker-prod`"},
    {"rsscss__react-vela.vela.yml", "unknown key `-username` in the top level is ignored"},
    {"solankiharsh__rag-at-scale.vela.yml", "unknown key `restart` in service `redis` is not used by this worker"},
    {"tmapes__the-weekend-bot.vela.yml", "duplicate step name `build tag image` in the pipeline (first at line 25): this step does not run, the first does"},
    {"server-testdata/schema-fail__invalid_pull.yml", "pull policy `sometimes` of step `build` is not one of always, not_present, on_start, never: treated as `never`"},
    {"server-testdata/native__invalid_type.yml", "duplicate template name `gradle` (first at line 7): this declaration overrides the first"},
    {"server-testdata/schema-fail__image_and_template.yml", "step `deploy` uses template `deploy-template`, which `templates` does not declare"},
};

// A reason clause of MANIFEST.md's "reject: a; b" -> a phrase one of our
// diagnostics must contain (alternatives separated by '|'). "" = any error.
const std::pair<const char*, const char*> kReasonPhrases[] = {
    {"no stages, steps or templates", "no `steps`, `stages` or `templates`"},
    {"YAML syntax error", "YAML syntax"},
    {"no version", "missing `version`"},
    {"has no commands/environment/parameters/secrets/template", "has nothing to do"},
    {"duplicate mapping key $.stages", "duplicate key `stages`"},
    {"version legacy no longer supported", "version `legacy` is no longer supported"},
    {"top level is not a mapping", "top level must be a mapping"},
    {"compiled step name collision", "duplicate step name|both compile to"},
    {"stages and steps together", "`steps` and `stages` cannot be used together"},
    {"secret origin without name or image", "secret origin"},
    {"not a Vela pipeline", ""},
};

bool CorpusPresent() { return std::filesystem::is_directory(kCorpus); }

std::string Join(const std::vector<PipelineDiagnostic>& diagnostics) {
  std::string out;
  for (const PipelineDiagnostic& d : diagnostics) out += d.ToString() + "\n";
  return out;
}

std::vector<std::string> ReasonClauses(const std::string& predicted) {
  std::vector<std::string> clauses;
  std::string rest = predicted.substr(predicted.find(':') + 1);
  std::stringstream in(rest);
  std::string clause;
  while (std::getline(in, clause, ';')) {
    clause.erase(0, clause.find_first_not_of(' '));
    if (!clause.empty()) clauses.push_back(clause);
  }
  return clauses;
}

bool ContainsAny(const std::string& text, const std::string& alternatives) {
  std::stringstream in(alternatives);
  std::string phrase;
  while (std::getline(in, phrase, '|')) {
    if (text.find(phrase) != std::string::npos) return true;
  }
  return alternatives.empty();
}

std::vector<testing::ManifestRow> Rows() {
  std::vector<testing::ManifestRow> rows;
  std::string error;
  EXPECT_TRUE(testing::ReadManifest(kCorpus + "/MANIFEST.md", &rows, &error)) << error;
  return rows;
}

TEST(VelaCorpus, ManifestListsEveryFileOfTheCorpus) {
  if (!CorpusPresent()) GTEST_SKIP() << "Vela corpus not found at " << kCorpus;
  std::set<std::string> listed;
  for (const auto& row : Rows()) listed.insert(row.file);
  std::set<std::string> on_disk;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kCorpus)) {
    if (e.path().extension() == ".yml" || e.path().extension() == ".yaml") {
      on_disk.insert(std::filesystem::relative(e.path(), kCorpus).string());
    }
  }
  EXPECT_EQ(listed, on_disk);
  EXPECT_EQ(on_disk.size(), 65u + 40u + 6u);
}

TEST(VelaCorpus, EveryPipelineMatchesItsManifestExpectation) {
  if (!CorpusPresent()) GTEST_SKIP() << "Vela corpus not found at " << kCorpus;
  int accepted = 0, rejected = 0, fragments = 0;
  for (const auto& row : Rows()) {
    SCOPED_TRACE("MANIFEST.md:" + std::to_string(row.line) + ": " + row.file + " (predicted: " +
                 row.predicted + ")");
    if (row.predicted.rfind("n/a (fragment", 0) == 0) {
      ++fragments;  // not whole pipelines: see FragmentsMatchServerVerdict
      continue;
    }
    Pipeline pipeline;
    std::vector<PipelineDiagnostic> diagnostics;
    Error err = LoadPipeline(kCorpus + "/" + row.file, &pipeline, &diagnostics);
    const std::string all = Join(diagnostics);
    const Warned* warned = nullptr;
    for (const Warned& w : kWarned) {
      if (row.file == w.file) warned = &w;
    }
    Outcome predicted = row.predicted.rfind("accept", 0) == 0 ? Outcome::kAccept : Outcome::kReject;
    ASSERT_TRUE(predicted == Outcome::kAccept || row.predicted.rfind("reject", 0) == 0 ||
                row.predicted.rfind("needs Go-template rendering", 0) == 0)
        << "unknown expectation; update this test";
    if (predicted == Outcome::kAccept) {
      const std::string warnings = Join(pipeline.warnings);
      if (warned == nullptr) {
        EXPECT_TRUE(pipeline.warnings.empty()) << warnings;
      } else {
        ASSERT_FALSE(pipeline.warnings.empty()) << "no warning; remove it from kWarned";
        EXPECT_NE(pipeline.warnings[0].ToString().find(std::string(": warning: ") + warned->warning),
                  std::string::npos)
            << warnings;
        Pipeline strict;
        std::vector<PipelineDiagnostic> strict_errors;
        EXPECT_FALSE(LoadPipeline(kCorpus + "/" + row.file, &strict, &strict_errors, true).ok());
        EXPECT_NE(Join(strict_errors).find(std::string(": error: ") + warned->warning), std::string::npos)
            << Join(strict_errors);
      }
    }
    if (predicted == Outcome::kAccept) {
      ++accepted;
      EXPECT_TRUE(err.ok()) << all;
      EXPECT_TRUE(diagnostics.empty()) << all;
      EXPECT_FALSE(pipeline.steps.empty() && pipeline.stages.empty() &&
                   pipeline.notes.empty()) << "accepted, but nothing was read";
      continue;
    }
    ++rejected;
    ASSERT_FALSE(err.ok()) << "accepted a pipeline Vela rejects";
    EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument);
    for (const PipelineDiagnostic& d : diagnostics) {
      EXPECT_GT(d.pos.line, 0) << d.ToString();  // refused with its line
      const std::string prefix = kCorpus + "/" + row.file + ":" + std::to_string(d.pos.line) +
                                 ":" + std::to_string(d.pos.column) + ": error: ";
      EXPECT_EQ(d.ToString().rfind(prefix, 0), 0u) << d.ToString();
    }
    std::vector<std::string> clauses = ReasonClauses(row.predicted);
    if (row.predicted.rfind("needs Go-template", 0) == 0) clauses = {"YAML syntax error"};
    for (const std::string& clause : clauses) {
      if (clause.find("only the first YAML document is read") != std::string::npos) {
        EXPECT_TRUE(std::any_of(pipeline.notes.begin(), pipeline.notes.end(), [](const std::string& n) {
          return n.find("only the first is read") != std::string::npos;
        })) << "no note about the later YAML documents";
        continue;
      }
      const char* phrase = nullptr;
      for (const auto& [manifest, ours] : kReasonPhrases) {
        if (clause.find(manifest) != std::string::npos) phrase = ours;
      }
      ASSERT_NE(phrase, nullptr) << "no phrase for the manifest reason `" << clause << "`";
      EXPECT_TRUE(ContainsAny(all, phrase)) << "reason `" << clause << "` not reported:\n" << all;
    }
  }
  // The corpus as MANIFEST.md describes it; a changed manifest shows up here.
  EXPECT_GE(accepted, 60);
  EXPECT_GE(rejected, 20);
  EXPECT_GE(fragments, 8);
}

// Fragments (a ruleset, a steps list, a stages map, a secrets list) are what
// the server's sub-parser tests read. Wrapped into a minimal pipeline, each
// must get the server test's verdict.
std::string Indent(const std::string& text, int spaces) {
  std::stringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line == "---") continue;
    out += std::string(line.empty() ? 0 : spaces, ' ') + line + "\n";
  }
  return out;
}

std::string Wrap(const std::string& kind, const std::string& fragment) {
  const std::string step = "  - name: s\n    image: alpine\n    commands: [\"true\"]\n";
  if (kind == "ruleset") return "version: \"1\"\nsteps:\n" + step + "    ruleset:\n" + Indent(fragment, 6);
  if (kind.rfind("steps", 0) == 0) return "version: \"1\"\nsteps:\n" + Indent(fragment, 2);
  if (kind.rfind("stages", 0) == 0) return "version: \"1\"\nstages:\n" + Indent(fragment, 2);
  if (kind.rfind("secrets", 0) == 0) {
    return "version: \"1\"\nsteps:\n" + step + "secrets:\n" + Indent(fragment, 2);
  }
  return "";
}

// Fragments where we deliberately differ from the server test's verdict.
const std::pair<const char*, const char*> kFragmentDifferences[] = {
    {"server-testdata/types__secret.yml",
     "a sub-parser fixture: `source`/`target` are step-secret keys and an origin without `name`; "
     "ValidateYAML rejects the latter too"},
    {"server-testdata/types__step.yml",
     "a sub-parser fixture: calls template `docker_publish` that nothing declares, and step "
     "`artifact` has nothing to do (ValidateYAML rejects that too)"},
};

TEST(VelaCorpus, FragmentsMatchServerVerdict) {
  if (!CorpusPresent()) GTEST_SKIP() << "Vela corpus not found at " << kCorpus;
  int checked = 0;
  for (const auto& row : Rows()) {
    if (row.predicted.rfind("n/a (fragment: ", 0) != 0) continue;
    SCOPED_TRACE(row.file + " (server verdict: " + row.verdict + ")");
    std::string kind = row.predicted.substr(15, row.predicted.find(')') - 15);
    std::ifstream in(kCorpus + "/" + row.file);
    std::stringstream text;
    text << in.rdbuf();
    std::string wrapped = Wrap(kind, text.str());
    ASSERT_FALSE(wrapped.empty()) << "no wrapper for fragment kind " << kind;
    bool server_valid = row.verdict.rfind("valid", 0) == 0;
    ASSERT_TRUE(server_valid || row.verdict.rfind("INVALID", 0) == 0) << row.verdict;
    bool differs = std::any_of(std::begin(kFragmentDifferences), std::end(kFragmentDifferences),
                               [&](const auto& d) { return row.file == d.first; });
    Pipeline pipeline;
    std::vector<PipelineDiagnostic> diagnostics;
    Error err = ParsePipeline(wrapped, row.file, &pipeline, &diagnostics);
    EXPECT_EQ(err.ok(), server_valid != differs) << Join(diagnostics) << "--- wrapped:\n" << wrapped;
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

}  // namespace
}  // namespace tether::worker
