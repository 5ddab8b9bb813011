// The shape every check has (after clang-tidy's ClangTidyCheck): a class that
// registers its matchers and turns each match into diag()/note()/fix-its.
// Checks are created per translation unit and write into its TuContext.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "clang_pch.hpp"
#include "tether/check/facts.hpp"
#include "tether/check/finding.hpp"
#include "tether/check/model.hpp"
#include "tether/check/suppress.hpp"

namespace tether::check {

// What one translation unit produces, plus the services checks share.
class TuContext {
 public:
  TuContext(const ApiModel& model, std::string checks) : model_(model), checks_(std::move(checks)) {}

  const ApiModel& model() const { return model_; }
  bool Enabled(const std::string& check) const { return CheckEnabled(checks_, check); }

  // Builds a finding at loc (its spelling location, so a macro or template
  // is reported once where it is written). Returns false, and leaves *out
  // alone, when loc is invalid or in a system header, or when a
  // justification suppresses check there.
  bool MakeFinding(const clang::SourceManager& sm, const std::string& check,
                   clang::SourceLocation loc, std::string message, Finding* out);
  Note MakeNote(const clang::SourceManager& sm, clang::SourceLocation loc, std::string message);
  // A justification marker for check at loc's line (any reason, even empty).
  bool Justified(const clang::SourceManager& sm, clang::SourceLocation loc, const std::string& check);
  // Fix-its; false when the range is in a macro or otherwise not editable.
  bool AddReplacement(const clang::SourceManager& sm, const clang::LangOptions& lang,
                      clang::CharSourceRange range, std::string text, Finding* f);
  // Reports tether:detached()/NOLINT(tether-...) markers with no reason in fid.
  void ReportEmptyJustifications(const clang::SourceManager& sm, clang::FileID fid);

  std::vector<Finding> findings;
  Facts facts;
  unsigned suppressed = 0;

 private:
  struct FileInfo {
    std::string path;
    std::vector<std::string_view> lines;
    std::vector<Justification> markers;
  };
  const FileInfo& Info(const clang::SourceManager& sm, clang::FileID fid);

  const ApiModel& model_;
  std::string checks_;
  std::map<unsigned, FileInfo> files_;  // by FileID hash
};

class Check : public clang::ast_matchers::MatchFinder::MatchCallback {
 public:
  Check(std::string name, TuContext& tu) : name_(std::move(name)), tu_(tu) {}
  virtual void registerMatchers(clang::ast_matchers::MatchFinder* finder) = 0;
  virtual void check(const clang::ast_matchers::MatchFinder::MatchResult& result) = 0;
  void run(const clang::ast_matchers::MatchFinder::MatchResult& result) final {
    result_ = &result;
    check(result);
  }
  const std::string& name() const { return name_; }

 protected:
  // Emits a warning; returns the finding to add notes and fixes to, or null
  // when it was suppressed or lies in a system header.
  Finding* diag(clang::SourceLocation loc, std::string message);
  void note(Finding* f, clang::SourceLocation loc, std::string message);
  void replace(Finding* f, clang::SourceRange tokens, std::string text);
  void insert(Finding* f, clang::SourceLocation at, std::string text);
  const ApiModel& model() const { return tu_.model(); }
  TuContext& tu() { return tu_; }
  const clang::SourceManager& sm() const { return *result_->SourceManager; }
  clang::ASTContext& ast() const { return *result_->Context; }

 private:
  std::string name_;
  TuContext& tu_;
  const clang::ast_matchers::MatchFinder::MatchResult* result_ = nullptr;
};

using CheckFactory = std::function<std::unique_ptr<Check>(TuContext&)>;
// Gathers the per-function facts of a parsed TU into tu.facts (runner.cpp).
void CollectFacts(TuContext& tu, clang::ASTContext& ctx);
// The module: every check by name (registry.cpp).
const std::vector<std::pair<std::string, CheckFactory>>& CheckFactories();

}  // namespace tether::check
