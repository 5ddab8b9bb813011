// The shape every check has (after clang-tidy's ClangTidyCheck): a class that
// registers its matchers and turns each match into diag()/note()/fix-its,
// may report more at the end of the TU (EndOfTranslationUnit), and may decide
// the rest once every TU's facts are in (Finish). Checks are created per
// translation unit and write into its TuContext. A check is registered once,
// with what it is (CheckInfo), beside its class (registry.cpp lists them).
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
#include "tether/check/writers.hpp"

namespace tether::check {

// What one translation unit produces, plus the services checks share. One
// TuContext per parse: Info's FileInfo (keyed by FileID, which the next parse
// numbers the same way) holds views into this parse's source buffers, which
// die with it. runner.cpp gives each compile command its own ClangTool and
// TuContext, so a file listed twice in the database is two of each.
class TuContext {
 public:
  TuContext(const ApiModel& model, std::string checks)
      : model_(model), checks_(std::move(checks)) {}

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
  bool Justified(const clang::SourceManager& sm, clang::SourceLocation loc,
                 const std::string& check);
  // Fix-its; false when the range is in a macro or otherwise not editable.
  bool AddReplacement(const clang::SourceManager& sm, const clang::LangOptions& lang,
                      clang::CharSourceRange range, std::string text, Finding* f);
  // A file of the TU as the checks see it: its real path, its lines and its
  // justification markers (scanned once per file).
  struct FileInfo {
    std::string path;
    std::vector<std::string_view> lines;
    std::vector<Justification> markers;
  };
  const FileInfo& Info(const clang::SourceManager& sm, clang::FileID fid);

  std::vector<Finding> findings;
  Facts facts;
  unsigned suppressed = 0;
  // How many calls deep a cross-TU chain is followed (--max-chain-depth).
  unsigned max_chain_depth = 3;

 private:
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
  // After every match of the TU (and after its facts are collected): for what
  // a check reports from the TU as a whole rather than from one match.
  virtual void EndOfTranslationUnit(clang::ASTContext& ast) {}
  // A check that decides part of its findings from the facts (facts.hpp)
  // says so: `tether check` calls Finish once with every TU's facts merged,
  // the clang-tidy module with the facts of its one TU. The facts hold every
  // enabled check's candidates: Finish resolves only its own.
  virtual bool UsesFacts() const { return false; }
  virtual std::vector<Finding> Finish(const Facts& facts) { return {}; }
  const std::string& name() const { return name_; }

 protected:
  // Emits a warning; returns the finding to add notes and fixes to, or null
  // when it was suppressed or lies in a system header.
  Finding* diag(clang::SourceLocation loc, std::string message);
  void note(Finding* f, clang::SourceLocation loc, std::string message);
  void replace(Finding* f, clang::SourceRange tokens, std::string text);
  void insert(Finding* f, clang::SourceLocation at, std::string text);
  // Names the finding's function after the code that holds s (the function
  // that starts or detaches a thread, not the thread's lambda written on the
  // same line); without it the function is found from the line.
  void attribute(Finding* f, const clang::Stmt* s);
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
// A check as the module knows it: what it is and how to make one.
struct CheckRegistration {
  CheckInfo info;
  CheckFactory make;
};
// Each check file defines its registration with this, the one place its
// name, summary and severity are written.
template <class C>
CheckRegistration RegisterCheck(CheckInfo info) {
  std::string name = info.name;
  return {std::move(info), [name](TuContext& tu) { return std::make_unique<C>(name, tu); }};
}
// The names of the two checks the plumbing consults, defined beside their
// registrations: check_base.cpp leaves a reasonless marker to
// tether-justification, fact_collector.cpp reads justifications of roots
// for context-not-forwarded's cross-TU half.
extern const char kJustificationCheckName[];
extern const char kContextNotForwardedCheckName[];
// The module: every check, in the order they are listed (registry.cpp).
const std::vector<CheckRegistration>& CheckRegistry();

}  // namespace tether::check
