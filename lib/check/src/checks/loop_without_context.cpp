/// tether-loop-without-context: a retry or poll loop that blocks (sleeps,
/// waits, receives, calls the context-less sibling of an X/XWithContext pair)
/// in a function that has a context, without ever reading it, and without a
/// bound: Go's wait.ExponentialBackoff where ExponentialBackoffWithContext
/// was meant. Docs: docs/checks/loop-without-context.md
#include <map>

#include "../ast_util.hpp"
#include "../check_base.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class LoopWithoutContextCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    auto loop = stmt(anyOf(whileStmt(), forStmt(), doStmt(), cxxForRangeStmt()));
    finder->addMatcher(callExpr(hasAncestor(loop), forCallable(functionDecl().bind("fn"))).bind("call"),
                       this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("call");
    const auto* fn = result.Nodes.getNodeAs<FunctionDecl>("fn");
    if (!call || !fn || !fn->hasBody() || fn->isDependentContext()) return;
    std::string why;
    if (!IsBlockingCall(call, model(), &why)) return;
    const Stmt* loop = InnermostUnboundedLoop(call, fn->getBody());
    if (!loop || EnclosingLoopReadsContext(loop, fn->getBody())) return;
    std::string ctx = ContextOf(fn);
    if (ctx.empty()) return;

    Finding* f = diag(CalleeLoc(call), "blocking call in a loop that never reads context '" + ctx +
                                           "': " + why + ", and the loop has no bound; it keeps "
                                           "running after '" + ctx + "' is cancelled");
    if (!f) return;
    note(f, loop->getBeginLoc(), "this loop has no constant bound and does not check '" + ctx +
                                     "' (read ctx.Err() or pass '" + ctx + "' to the blocking call)");
  }

 private:
  // Walks up from the call to the function body; the innermost enclosing
  // loop that has no bound (bounded loops inside it are fine to skip).
  const Stmt* InnermostUnboundedLoop(const Stmt* from, const Stmt* body) {
    DynTypedNodeList parents = ast().getParents(*from);
    while (!parents.empty()) {
      // A variable's initialiser: on to the statement that declares it.
      if (const auto* var = parents[0].get<VarDecl>()) {
        parents = ast().getParents(*var);
        continue;
      }
      const Stmt* p = parents[0].get<Stmt>();
      if (!p || p == body || isa<LambdaExpr>(p)) return nullptr;
      if (IsLoop(p) && !IsBoundedLoop(p, ast())) return p;
      parents = ast().getParents(*p);
    }
    return nullptr;
  }

  // The loop, or a loop around it, reads the context: an outer poll loop
  // that waits with the context and drains a non-blocking source inside is
  // fine (Worker::ReapOrphans, SpoolQueue's inotify drain).
  bool EnclosingLoopReadsContext(const Stmt* loop, const Stmt* body) {
    for (const Stmt* s = loop; s && s != body;) {
      if (IsLoop(s) && ReadsContext(s, model())) return true;
      DynTypedNodeList parents = ast().getParents(*s);
      s = parents.empty() ? nullptr : parents[0].get<Stmt>();
      if (s && isa<LambdaExpr>(s)) return false;
    }
    return false;
  }

  // A context the function has: reachable (parameter, capture, member,
  // carrier) or a local it derived. "" when none.
  std::string ContextOf(const FunctionDecl* fn) {
    auto it = context_of_.find(fn);
    if (it != context_of_.end()) return it->second;
    std::string name;
    std::vector<ReachableContext> reachable = ReachableContexts(fn, model());
    if (!reachable.empty()) name = reachable[0].spelling;
    if (name.empty()) {
      auto locals = match(stmt(forEachDescendant(decl(anyOf(varDecl(), bindingDecl())).bind("d"))),
                          *fn->getBody(), ast());
      for (const BoundNodes& b : locals) {
        const auto* d = b.getNodeAs<ValueDecl>("d");
        if (d && IsContextType(d->getType(), model())) {
          name = d->getNameAsString();
          break;
        }
      }
    }
    context_of_[fn] = name;
    return name;
  }

  static SourceLocation CalleeLoc(const CallExpr* call) {
    const Expr* callee = call->getCallee()->IgnoreParenImpCasts();
    if (const auto* me = dyn_cast<MemberExpr>(callee)) return me->getMemberLoc();
    if (const auto* dre = dyn_cast<DeclRefExpr>(callee)) return dre->getLocation();
    return call->getBeginLoc();
  }

  std::map<const FunctionDecl*, std::string> context_of_;
};

}  // namespace

std::unique_ptr<Check> MakeLoopWithoutContextCheck(TuContext& tu) {
  return std::make_unique<LoopWithoutContextCheck>("tether-loop-without-context", tu);
}

}  // namespace tether::check
