/// tether-justification: a detached marker or a no-lint suppression of a
/// tether check that gives no reason, and an unmatched begin/end region
/// (the markers are spelled in docs/checks/justification.md: written here,
/// they would be markers of this file).
/// It matches nothing: it reads the main file's markers at the end of the TU
/// (TuContext scans each file once). A finding that such a marker would have
/// silenced is left to this report (TuContext::MakeFinding).
/// Docs: docs/checks/justification.md
#include "../check_base.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class JustificationCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {}
  void check(const MatchFinder::MatchResult& result) override {}

  void EndOfTranslationUnit(ASTContext& ast) override {
    const SourceManager& sm = ast.getSourceManager();
    const TuContext::FileInfo& info = tu().Info(sm, sm.getMainFileID());
    for (const Justification& j : info.markers) {
      bool names_tether = NamesTetherCheck(j);
      bool region = j.marker == "NOLINTBEGIN" || j.marker == "NOLINTEND";
      // An unmatched bare region marker (BEGIN or END with no check list) is
      // clang-tidy's to report as well as ours.
      bool unmatched = region && j.unmatched && (names_tether || j.checks.empty());
      if (!unmatched && (!j.reason.empty() || j.marker == "NOLINTEND" || !names_tether)) continue;
      Finding f;
      f.check = name();
      f.file = info.path;
      f.line = j.line;
      f.col = j.col;
      f.offset = 0;
      if (j.line <= info.lines.size()) {
        f.line_text = std::string(info.lines[j.line - 1]);
        f.offset =
            static_cast<unsigned>(info.lines[j.line - 1].data() - info.lines[0].data()) + j.col - 1;
      }
      if (unmatched)  // clang-tidy's wording
        f.message = j.marker == "NOLINTBEGIN"
                        ? "unmatched 'NOLINTBEGIN' comment without a subsequent 'NOLINTEND' comment"
                        : "unmatched 'NOLINTEND' comment without a previous 'NOLINTBEGIN' comment";
      else
        f.message = "'" + j.marker + "' without a reason: say why this is allowed" +
                    std::string(j.marker == "tether:detached" ? " inside the parentheses"
                                                              : " after the marker");
      tu().findings.push_back(std::move(f));
    }
  }
};

}  // namespace

extern const char kJustificationCheckName[] = "tether-justification";

CheckRegistration JustificationCheckRegistration() {
  return RegisterCheck<JustificationCheck>(
      {kJustificationCheckName, "A suppression or detach marker gives no reason.",
       "A tether:detached() marker or a NOLINT(tether-...) suppression with an empty reason "
       "silences a check without explaining why.",
       "Write the reason inside tether:detached(<why>) or after the NOLINT(...) marker.",
       "very-high"});
}

}  // namespace tether::check
