/// tether-detached-context: a root context created where a context is
/// reachable (parameter, captured variable, member, request-like carrier),
/// or inside a lambda that is returned from a function that has a context
/// (the lambda runs on that function's behalf; it should capture the context).
/// Docs: docs/checks/detached-context.md
#include "../ast_util.hpp"
#include "../check_base.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class DetachedContextCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    std::vector<StringRef> roots(model().root_factories.begin(), model().root_factories.end());
    auto in_function = forCallable(functionDecl().bind("fn"));
    if (!roots.empty())
      finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(roots))), in_function).bind("root"), this);
    if (model().default_constructed_context_is_root)
      finder->addMatcher(cxxTemporaryObjectExpr(argumentCountIs(0), in_function).bind("root"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* root = result.Nodes.getNodeAs<Expr>("root");
    const auto* fn = result.Nodes.getNodeAs<FunctionDecl>("fn");
    if (!root || !fn) return;
    std::string name = RootName(root, model());
    if (name.empty() || MayCreateRoots(fn, model()) || InsideSanctionedDetach(root)) return;
    std::string shown = name.back() == '}' ? name : name + "()";
    std::vector<ReachableContext> reachable = ReachableContexts(fn, model());
    if (reachable.empty()) {
      ReportReturnedLambda(root, fn, shown);
      return;
    }
    std::string msg = "root context '" + shown + "' created in '" + DisplayName(fn) +
                      "', which can reach context '" + reachable[0].spelling + "'";
    if (reachable.size() > 1) msg += " (and " + std::to_string(reachable.size() - 1) + " more)";
    msg += IsStdContext(root->getType())
               ? "; pass it on, or say why it must not stop with a tether:detached(<why>) comment"
               : "; pass it on, or detach visibly with WithoutCancel and a tether:detached(<why>) comment";
    Finding* f = diag(root->getBeginLoc(), msg);
    if (!f) return;
    for (const ReachableContext& r : reachable)
      note(f, r.where, "context '" + r.spelling + "' is reachable here (" + r.how + ")");
    if (reachable.size() == 1) replace(f, root->getSourceRange(), reachable[0].spelling);
  }

 private:
  // fn is the body of a lambda that its enclosing function returns (through
  // any number of returned lambdas): the function that has a context hands
  // out work that makes its own root (contextcheck's "f16$1" case).
  void ReportReturnedLambda(const Expr* root, const FunctionDecl* fn, const std::string& shown) {
    const FunctionDecl* owner = fn;
    std::vector<ReachableContext> reachable;
    for (int depth = 0; depth < 4 && reachable.empty(); ++depth) {
      const auto* md = dyn_cast<CXXMethodDecl>(owner);
      if (!md || !md->getParent()->isLambda() || !ReturnedLambda(md->getParent())) return;
      owner = dyn_cast_or_null<FunctionDecl>(md->getParent()->getDeclContext());
      if (!owner || MayCreateRoots(owner, model())) return;
      reachable = ReachableContexts(owner, model());
    }
    if (reachable.empty()) return;
    Finding* f = diag(root->getBeginLoc(),
                      "root context '" + shown + "' created in '" + DisplayName(fn) +
                          "', a lambda returned from '" + DisplayName(owner) + "', which has context '" +
                          reachable[0].spelling + "'; capture it and pass it on, or detach visibly "
                          "with WithoutCancel and a tether:detached(<why>) comment");
    if (!f) return;
    for (const ReachableContext& r : reachable)
      note(f, r.where, "context '" + r.spelling + "' is reachable here (" + r.how + " of '" +
                           DisplayName(owner) + "')");
  }

  // Is the lambda whose closure type is closure the operand of a return?
  bool ReturnedLambda(const CXXRecordDecl* closure) {
    const LambdaExpr* lambda = nullptr;
    for (const auto& p : ast().getParents(*closure))
      if ((lambda = p.get<LambdaExpr>())) break;
    if (!lambda) return false;
    DynTypedNodeList parents = ast().getParents(*lambda);
    for (int depth = 0; depth < 8 && !parents.empty(); ++depth) {
      if (parents[0].get<ReturnStmt>()) return true;
      const Expr* e = parents[0].get<Expr>();
      if (!e || !(isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr, ExprWithCleanups,
                      CXXConstructExpr, CXXFunctionalCastExpr, ParenExpr>(e)))
        return false;
      parents = ast().getParents(*e);
    }
    return false;
  }

  // WithoutCancel(Background()) is odd but explicit; leave it alone.
  bool InsideSanctionedDetach(const Expr* root) {
    auto parents = ast().getParents(*root);
    for (int depth = 0; depth < 4 && !parents.empty(); ++depth) {
      if (const auto* call = parents[0].get<CallExpr>()) {
        if (const FunctionDecl* callee = call->getDirectCallee())
          return ApiModel::Contains(model().sanctioned_detaches, QualifiedName(callee));
        return false;
      }
      parents = ast().getParents(parents[0]);
    }
    return false;
  }
};

}  // namespace

CheckRegistration DetachedContextCheckRegistration() {
  return RegisterCheck<DetachedContextCheck>({
      "tether-detached-context",
      "A root context is created where a context is already reachable.",
      "A function that can reach a context (a parameter, a captured variable, a member, or a "
      "context carried by a request-like object) creates a fresh root (Background(), TODO(), a "
      "default-constructed context) instead. Work started with it is not cancelled with the "
      "caller's work: the zombie tasks of the Vela worker issue.",
      "Pass the reachable context on. If the work must outlive the caller, detach visibly with "
      "WithoutCancel(ctx) and say why in a // tether:detached(<why>) comment.",
      "high"});
}

}  // namespace tether::check
