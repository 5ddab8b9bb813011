// libTetherTidy.so: the tether checks as a clang-tidy 16 module, loaded with
//   clang-tidy-16 --load=<build>/lib/libTetherTidy.so --checks='-*,tether-*' FILE -- ARGS
// Each clang-tidy check here is an adapter around the same tether Check class
// `tether check` runs (registry.cpp): the adapter hands clang-tidy's
// MatchFinder to the tether check's registerMatchers, so its matchers and
// check() run unchanged and write Findings into a per-TU TuContext; at the end
// of the TU the adapter turns each Finding into a clang-tidy diagnostic with
// its notes and fix-its. No check logic lives here.
//
// What differs from `tether check` (docs/checker.md, "clang-tidy plugin"):
// clang-tidy sees one TU at a time, so a check's cross-TU half (Check::Finish:
// the transitive form of context-not-forwarded, the may-block summary's
// candidates of task-ignores-context and loop-without-context) is given that
// TU's facts only (a callee whose body is in another TU is not followed), as
// `tether check` run on that one file.
#include <mutex>
#include <set>
#include <string>

#include <clang-tidy/ClangTidyCheck.h>
#include <clang-tidy/ClangTidyModule.h>
#include <clang-tidy/ClangTidyModuleRegistry.h>

#include "check_base.hpp"
#include "fact_collector.hpp"
#include "tether/check/model.hpp"
#include "tether/check/writers.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// One clang-tidy check per tether check name. Options (CheckOptions):
// `TetherModel` (local or global), a ';'-separated list of model files or
// builtin:libtether / builtin:std-stop-token; default both (kDefaultModels).
class TetherTidyCheck : public tidy::ClangTidyCheck {
 public:
  TetherTidyCheck(StringRef name, tidy::ClangTidyContext* context, CheckFactory make)
      : ClangTidyCheck(name, context),
        context_(context),
        make_(std::move(make)),
        model_spec_(Options.getLocalOrGlobal("TetherModel", kDefaultModels).str()),
        name_(name.str()) {
    StringRef rest = model_spec_;
    while (!rest.empty()) {
      auto [one, tail] = rest.split(';');
      rest = tail;
      std::string error;
      if (!one.trim().empty() && !LoadModel(one.trim().str(), &model_, &error) &&
          FirstReport(error))
        configurationDiag("TetherModel: bad model (every tether check): %0", DiagnosticIDs::Error)
            << error;
    }
  }

  // Every tether check loads the same models, and clang-tidy makes each check
  // more than once: a bad model is said once per process, not 18 times.
  static bool FirstReport(const std::string& error) {
    static std::mutex mu;
    static std::set<std::string> said;
    std::lock_guard<std::mutex> lock(mu);
    return said.insert(error).second;
  }

  bool isLanguageVersionSupported(const LangOptions& lang) const override { return lang.CPlusPlus; }

  void storeOptions(tidy::ClangTidyOptions::OptionMap& options) override {
    Options.store(options, "TetherModel", model_spec_);
  }

  void registerMatchers(MatchFinder* finder) override {
    // The TU sees which tether checks clang-tidy runs (a finding marked by a
    // reasonless marker is left to the marker's report, TuContext::MakeFinding),
    // as in `tether check`.
    std::string checks = name_;
    for (const CheckRegistration& r : CheckRegistry())
      if (r.info.name != name_ && context_->isCheckEnabled(r.info.name))
        checks += "," + r.info.name;
    tu_ = std::make_unique<TuContext>(model_, checks);
    check_ = make_(*tu_);
    check_->registerMatchers(finder);
    // Matches once per TU: gives the adapter the ASTContext for the end of TU.
    finder->addMatcher(translationUnitDecl().bind("tu"), this);
  }

  void check(const MatchFinder::MatchResult& result) override { ast_ = result.Context; }

  void onEndOfTranslationUnit() override {
    if (!ast_ || !tu_ || !check_) return;
    const SourceManager& sm = ast_->getSourceManager();
    check_->EndOfTranslationUnit(*ast_);
    if (check_->UsesFacts()) {
      CollectFacts(*tu_, *ast_);
      for (Finding& f : check_->Finish(tu_->facts)) tu_->findings.push_back(std::move(f));
    }
    SortAndDedupe(&tu_->findings);
    for (const Finding& f : tu_->findings) Emit(sm, f);
    // check_ stays alive: the MatchFinder still holds it as a callback and
    // calls its onEndOfTranslationUnit after or before ours (in no set
    // order); destroying it here crashed clang-tidy once several checks ran.
    tu_->findings.clear();
    ast_ = nullptr;
  }

 private:
  SourceLocation Where(const SourceManager& sm, const std::string& file, unsigned line,
                       unsigned col) {
    auto fe = sm.getFileManager().getFile(file);
    if (!fe || line == 0) return {};
    return sm.translateFileLineCol(*fe, line, col ? col : 1);
  }

  void Emit(const SourceManager& sm, const Finding& f) {
    SourceLocation loc = Where(sm, f.file, f.line, f.col);
    {
      DiagnosticBuilder d = diag(loc, "%0");
      d << f.message;
      for (const Replacement& r : f.fixes) {
        auto fe = sm.getFileManager().getFile(r.file);
        if (!fe) continue;
        FileID fid = sm.translateFile(*fe);
        if (fid.isInvalid()) continue;
        SourceLocation begin = sm.getComposedLoc(fid, r.offset);
        d << FixItHint::CreateReplacement(
            CharSourceRange::getCharRange(begin,
                                          begin.getLocWithOffset(static_cast<int>(r.length))),
            r.text);
      }
    }
    for (const Note& n : f.notes)
      diag(Where(sm, n.file, n.line, n.col), "%0", DiagnosticIDs::Note) << n.message;
  }

  tidy::ClangTidyContext* context_;
  CheckFactory make_;
  std::string model_spec_;
  std::string name_;
  ApiModel model_;
  std::unique_ptr<TuContext> tu_;
  std::unique_ptr<Check> check_;
  ASTContext* ast_ = nullptr;
};

class TetherTidyModule : public tidy::ClangTidyModule {
 public:
  void addCheckFactories(tidy::ClangTidyCheckFactories& factories) override {
    for (const CheckRegistration& r : CheckRegistry()) {
      CheckFactory make = r.make;
      factories.registerCheckFactory(r.info.name, [make](StringRef n, tidy::ClangTidyContext* c) {
        return std::make_unique<TetherTidyCheck>(n, c, make);
      });
    }
  }
};

}  // namespace
}  // namespace tether::check

// clang-tidy finds the module through this registration when --load opens us.
static clang::tidy::ClangTidyModuleRegistry::Add<tether::check::TetherTidyModule> kTetherModule(
    "tether-module", "Tether: detached contexts and unwaited tasks.");
