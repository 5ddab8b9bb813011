/// tether-lost-cancel: a cancel function that is not used on every path
/// (go vet's lostcancel), or one that is discarded outright.
/// Docs: docs/checks/lost-cancel.md
#include <set>

#include "../ast_util.hpp"
#include "../check_base.hpp"
#include "../obligation.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class LostCancelCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    if (model().cancel_types.empty()) return;
    finder->addMatcher(functionDecl(isDefinition()).bind("fn"), this);
    finder->addMatcher(lambdaExpr().bind("lambda"), this);
    std::vector<StringRef> derivations(model().derivations.begin(), model().derivations.end());
    if (!derivations.empty())
      finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(derivations)))).bind("derive"),
                         this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    if (const auto* derive = result.Nodes.getNodeAs<CallExpr>("derive")) {
      CheckDiscarded(derive);
      return;
    }
    const FunctionDecl* fn = result.Nodes.getNodeAs<FunctionDecl>("fn");
    if (const auto* lambda = result.Nodes.getNodeAs<LambdaExpr>("lambda"))
      fn = lambda->getCallOperator();
    // A template is analysed in its definition (as written, so a member of a
    // class template is checked even if nothing instantiates it) and in each
    // instantiation (where dependent derivations and default captures are
    // resolved); a leak is reported once, at its spelling location.
    if (!fn || !fn->hasBody() || !done_.insert(fn).second) return;
    if (sm().isInSystemHeader(fn->getLocation()) || fn->isMain())
      return;  // the process exit cancels
    std::vector<Obligation> cancels = CollectObligations(fn, model(), false, true);
    if (cancels.empty()) return;
    for (const Leak& leak : FindLeaks(fn, ast(), cancels)) {
      const Obligation& o = cancels[leak.obligation];
      std::string var = o.Name();
      Finding* f = diag(leak.armed_at.isValid() ? leak.armed_at : o.decl->getLocation(),
                        "the cancel function '" + var +
                            "' is not called on every path (possible "
                            "context leak); call it when the work under its context is done");
      if (!f) continue;
      note(f, leak.exit_at,
           leak.by_throw ? "a throw here leaves the function without calling '" + var + "'"
                         : "this path reaches the end of the scope without calling '" + var + "'");
    }
  }

 private:
  // WithCancel(parent).ctx, or a derivation whose result is thrown away.
  void CheckDiscarded(const CallExpr* derive) {
    QualType ret = derive->getType();
    const CXXRecordDecl* rd = ret->getAsCXXRecordDecl();
    if (!rd || !rd->hasDefinition()) return;
    bool has_cancel = false;
    for (const FieldDecl* f : rd->fields()) has_cancel |= IsCancelType(f->getType(), model());
    if (!has_cancel) return;
    const Stmt* child = derive;
    DynTypedNodeList parents = ast().getParents(*derive);
    while (!parents.empty()) {
      const Stmt* p = parents[0].get<Stmt>();
      if (!p) return;
      if (isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr, ExprWithCleanups,
              ParenExpr>(p)) {
        child = p;
        parents = ast().getParents(*p);
        continue;
      }
      bool discarded = isa<CompoundStmt>(p);
      if (const auto* me = dyn_cast<MemberExpr>(p))
        discarded = me->getBase()->IgnoreImplicit() == cast<Expr>(child)->IgnoreImplicit() &&
                    !IsCancelType(me->getType(), model());
      if (discarded)
        diag(derive->getBeginLoc(),
             "the cancel function returned by '" + QualifiedName(derive->getDirectCallee()) +
                 "' is discarded; keep it and call it when the work is done");
      return;
    }
  }

  std::set<const FunctionDecl*> done_;
};

}  // namespace

CheckRegistration LostCancelCheckRegistration() {
  return RegisterCheck<LostCancelCheck>(
      {"tether-lost-cancel", "A cancel function is not called on every path.",
       "The CancelFunc returned by WithCancel/WithTimeout/WithDeadline is not used on every path "
       "to the end of its scope (go vet's lostcancel). Until it is called, the derived context "
       "and its timer stay attached to the parent.",
       "Call the cancel function on every path, usually with a scope guard right after the "
       "derivation.",
       "medium"});
}

}  // namespace tether::check
