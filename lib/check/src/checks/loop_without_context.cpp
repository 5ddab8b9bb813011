/// tether-loop-without-context: a retry or poll loop that blocks (sleeps,
/// waits, receives, calls the context-less sibling of an X/XWithContext pair)
/// in a function that has a context, without ever reading it, and without a
/// bound: Go's wait.ExponentialBackoff where ExponentialBackoffWithContext
/// was meant. Docs: docs/checks/loop-without-context.md
#include <functional>
#include <map>

#include "../ast_util.hpp"
#include "../blocking.hpp"
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
    finder->addMatcher(
        callExpr(hasAncestor(loop), forCallable(functionDecl().bind("fn"))).bind("call"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("call");
    const auto* fn = result.Nodes.getNodeAs<FunctionDecl>("fn");
    if (!call || !fn || !fn->hasBody() || fn->isDependentContext()) return;
    std::string why;
    const bool direct = IsBlockingCall(call, model(), &why);
    // Otherwise the call may block through the callee: its body in this TU
    // (the may-block summary), or in another TU (a candidate for phase 2).
    const FunctionDecl* callee = call->getDirectCallee();
    const FunctionDecl* def = nullptr;
    if (!direct) {
      if (!callee || isa<CXXOperatorCallExpr>(call) || PassesContext(call, model()) ||
          IsUnresolvableCall(call) || sm().isInSystemHeader(callee->getLocation()) ||
          HasParamOfContextType(callee, model()))
        return;
      if (!callee->hasBody(def) || !def || !def->getBody()) def = nullptr;
      if (def && sm().isInSystemHeader(def->getLocation())) return;
    }
    const Stmt* loop = InnermostUnboundedLoop(call, fn->getBody());
    if (!loop || ReadsContext(loop, model())) return;
    const ReachableContext context = ContextOf(fn, loop);
    const std::string& ctx = context.spelling;
    if (ctx.empty()) return;
    // A call that blocks only through its callee is reported when nothing in
    // the loop blocks directly: one finding per loop is enough to fix it.
    if (!direct && LoopBlocksDirectly(loop)) return;
    if (!may_block_) may_block_ = std::make_unique<MayBlock>(model(), ast());
    const BlockingPath* path = nullptr;
    if (!direct && def) {
      path = may_block_->Function(def);
      if (!path) return;
      why = "'" + DisplayName(def) + "' blocks without a context (" + DisplayName(def) + " -> " +
            path->Chain() + ")";
    }

    std::string message = "blocking call in a loop that never reads context '" + ctx + "': ";
    std::string tail =
        ", and the loop has no bound; it keeps running after '" + ctx + "' is cancelled";
    std::string loop_note = "this loop has no constant bound and does not check '" + ctx + "' (" +
                            HowToReadContext(ctx, context.type) + " or pass '" + ctx +
                            "' to the blocking call)";
    if (!direct && !def) {
      BlockCandidate c;
      if (!tu().MakeFinding(
              sm(), name(), CalleeLoc(call),
              message + "'" + DisplayName(callee) + "' blocks in another translation unit" + tail,
              &c.finding))
        return;
      c.finding.notes.push_back(tu().MakeNote(sm(), loop->getBeginLoc(), loop_note));
      c.finding.notes.push_back(tu().MakeNote(sm(), CalleeLoc(call), "the loop blocks here"));
      c.callee_id = Usr(WrittenFunction(callee));
      c.callee_name = DisplayName(callee);
      if (!c.callee_id.empty()) tu().facts.block_candidates.push_back(std::move(c));
      return;
    }
    Finding* f = diag(CalleeLoc(call), message + why + tail);
    if (!f) return;
    note(f, loop->getBeginLoc(), loop_note);
    if (path) note(f, path->primitive->getBeginLoc(), path->why);
  }

  // A loop that blocks only through a callee defined in another TU was left
  // as a block candidate; the facts of every TU decide it.
  bool UsesFacts() const override { return true; }
  std::vector<Finding> Finish(const Facts& facts) override {
    return ResolveBlockCandidates(facts, name(), kMaxBlockingDepth);
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

  // The loop holds a call that blocks by itself (not inside a nested lambda).
  bool LoopBlocksDirectly(const Stmt* loop) {
    auto it = blocks_directly_.find(loop);
    if (it != blocks_directly_.end()) return it->second;
    std::function<bool(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s || isa<LambdaExpr>(s)) return false;
      std::string why;
      if (const auto* c = dyn_cast<CallExpr>(s); c && IsBlockingCall(c, model(), &why)) return true;
      for (const Stmt* child : s->children())
        if (walk(child)) return true;
      return false;
    };
    return blocks_directly_[loop] = walk(loop);
  }

  // A context the function has: reachable (parameter, capture, member,
  // carrier), or a local declared before the loop in the function itself
  // (not in a nested lambda: that is the task's) that the function cannot
  // stop itself. A token it took from its own thread or stop_source
  // (t.get_stop_token(), src.get_token()), or a context whose cancel it holds,
  // is one it stops: it is the canceller, not the cancelled. Empty when none.
  ReachableContext ContextOf(const FunctionDecl* fn, const Stmt* loop) {
    auto it = context_of_.find(fn);
    if (it == context_of_.end()) {
      std::vector<ReachableContext> reachable = ReachableContexts(fn, model());
      it = context_of_.emplace(fn, reachable.empty() ? ReachableContext{} : reachable[0]).first;
    }
    if (!it->second.spelling.empty()) return it->second;
    auto locals = match(stmt(forEachDescendant(decl(anyOf(varDecl(), bindingDecl())).bind("d"))),
                        *fn->getBody(), ast());
    for (const BoundNodes& b : locals) {
      const auto* d = b.getNodeAs<ValueDecl>("d");
      if (!d || !IsContextType(d->getType(), model()) || d->getDeclContext() != fn) continue;
      if (!sm().isBeforeInTranslationUnit(d->getLocation(), loop->getBeginLoc())) continue;
      if (isa<BindingDecl>(d)) continue;  // auto [ctx, cancel] = ...: the function holds the cancel
      // The local must carry a context the function was given: initialised
      // from one (not a root, not a default-constructed token that nothing
      // can stop, not a child's token), and never assigned a child's later.
      const auto* v = dyn_cast<VarDecl>(d);
      const Expr* init = v ? v->getInit() : nullptr;
      if (!init || !RootName(init, model()).empty() || FromOwnedObject(init) ||
          !ReadsContext(init, model()) || AssignedFromOwnedObject(v, fn))
        continue;
      return {d->getNameAsString(), d->getLocation(), "local", d->getType()};
    }
    return {};
  }

  // Somewhere in fn, v = <a token read from a local object>.
  bool AssignedFromOwnedObject(const VarDecl* v, const FunctionDecl* fn) {
    auto assigns =
        match(stmt(forEachDescendant(
                  cxxOperatorCallExpr(hasOverloadedOperatorName("="),
                                      hasArgument(0, declRefExpr(to(varDecl(equalsNode(v))))))
                      .bind("a"))),
              *fn->getBody(), ast());
    for (const BoundNodes& b : assigns)
      if (const auto* a = b.getNodeAs<CXXOperatorCallExpr>("a");
          a && a->getNumArgs() == 2 && FromOwnedObject(a->getArg(1)))
        return true;
    return false;
  }

  // t.get_stop_token(), src.get_token(), r.ctx: read from a local object.
  static bool FromOwnedObject(const Expr* init) {
    const Expr* e = init->IgnoreImplicit();
    if (const auto* ctor = dyn_cast<CXXConstructExpr>(e); ctor && ctor->getNumArgs() == 1)
      e = ctor->getArg(0)->IgnoreImplicit();
    const Expr* base = nullptr;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e))
      base = mc->getImplicitObjectArgument();
    else if (const auto* me = dyn_cast<MemberExpr>(e))
      base = me->getBase();
    if (!base) return false;
    const auto* ref = dyn_cast<DeclRefExpr>(base->IgnoreParenImpCasts());
    const auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    return var && var->isLocalVarDecl() && !var->getType()->isReferenceType() &&
           !var->getType()->isPointerType();
  }

  static SourceLocation CalleeLoc(const CallExpr* call) {
    const Expr* callee = call->getCallee()->IgnoreParenImpCasts();
    if (const auto* me = dyn_cast<MemberExpr>(callee)) return me->getMemberLoc();
    if (const auto* dre = dyn_cast<DeclRefExpr>(callee)) return dre->getLocation();
    return call->getBeginLoc();
  }

  std::map<const FunctionDecl*, ReachableContext> context_of_;
  std::map<const Stmt*, bool> blocks_directly_;
  std::unique_ptr<MayBlock> may_block_;
};

}  // namespace

CheckRegistration LoopWithoutContextCheckRegistration() {
  return RegisterCheck<LoopWithoutContextCheck>(
      {"tether-loop-without-context",
       "A loop blocks without a bound and never reads the context it has.",
       "A loop with a blocking call that passes no context (a sleep, a condition-variable wait, "
       "Recv without a context, a model-listed blocking call, or the context-less X of an "
       "X/XWithContext pair), in a function that can reach a context, where nothing in the loop "
       "reads the context and the loop has no constant bound. Cancelling the context does not "
       "end it: Go's wait.ExponentialBackoff where ExponentialBackoffWithContext was meant.",
       "Check ctx.Err() in the loop, pass the context to the blocking call (or call its "
       "context-taking sibling), or wait on ctx.Done() together with the timer (tether::Select).",
       "medium"});
}

}  // namespace tether::check
