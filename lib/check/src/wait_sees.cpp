// What a thread's wait sees of a stop (wait_sees.hpp).
#include "wait_sees.hpp"

#include <functional>

#include "ast_util.hpp"

namespace tether::check {

using namespace clang;

static const Stmt* PredicateBody(const Expr* predicate) {
  if (const auto* lambda = PredicateLambda(predicate)) return lambda->getBody();
  return predicate;
}

bool ReadsMember(MemberReach& reach, const Stmt* s, const FieldDecl* f) {
  Reach r;
  reach.Walk(s, &r, 0, true);
  return r.reads.count(f) > 0;
}

bool PredicateSees(MemberReach& reach, const Expr* predicate, const FieldDecl* flag,
                   const Reach& stop) {
  Reach p;
  reach.Walk(PredicateBody(predicate), &p, 0, true);
  if (p.reads.count(flag)) return true;
  for (const FieldDecl* f : p.reads)
    if (stop.writes.count(f)) return true;
  return p.reads.empty();
}

bool NotifiesUnder(MemberReach& reach, const Reach& stop, const FieldDecl* cv,
                   const FieldDecl* mutex) {
  for (const auto& [notified, call] : stop.notify_calls)
    if (notified == cv && (reach.HeldAt(call, mutex) || reach.LocksInside(call, mutex)))
      return true;
  return false;
}

bool PostsUnder(MemberReach& reach, const Reach& stop, const Wait& w) {
  if (!w.predicate || !w.mutex) return false;
  Reach p;
  reach.Walk(PredicateBody(w.predicate), &p, 0, true);
  for (const auto& [f, at] : stop.write_sites)
    if (p.reads.count(f) && reach.HeldAt(at, w.mutex)) return true;
  return false;
}

bool GuardsWait(MemberReach& reach, ASTContext& ast, const Wait& w, const FieldDecl* flag) {
  if (w.predicate && ReadsMember(reach, PredicateBody(w.predicate), flag)) return true;
  DynTypedNodeList parents = ast.getParents(*w.call);
  while (!parents.empty()) {
    if (parents[0].get<FunctionDecl>() || parents[0].get<LambdaExpr>()) return false;
    const Stmt* s = parents[0].get<Stmt>();
    if (!s) return false;
    if (const Expr* cond = LoopCondition(s); cond && ReadsMember(reach, cond, flag)) return true;
    parents = ast.getParents(*s);
  }
  return false;
}

namespace {

// The constructor argument a member of the constructed object was
// initialised from: `CSync(Condition& cond, ..) : m_cond(&cond)` gives
// m_cond the call's first argument.
const Expr* BoundArgument(const CXXConstructExpr* ce, const FieldDecl* field) {
  const CXXConstructorDecl* ctor = ce->getConstructor();
  const FunctionDecl* def = nullptr;
  if (!ctor->hasBody(def) || !def) return nullptr;
  for (const CXXCtorInitializer* init : cast<CXXConstructorDecl>(def)->inits()) {
    if (init->getMember() != field) continue;
    const Expr* e = init->getInit()->IgnoreParenImpCasts();
    if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
      e = u->getSubExpr()->IgnoreParenImpCasts();
    const auto* ref = dyn_cast<DeclRefExpr>(e);
    const auto* param = ref ? dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
    if (!param || param->getFunctionScopeIndex() >= ce->getNumArgs()) return nullptr;
    return ce->getArg(param->getFunctionScopeIndex());
  }
  return nullptr;
}

// The local a lock argument names: `lock`, or the holder of `holder.locker()`.
const VarDecl* LocalBehind(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e)) e = mc->getImplicitObjectArgument();
  return LockVariable(e);
}

}  // namespace

std::optional<Wait> WrapperWait(const CXXMemberCallExpr* call) {
  const CXXMethodDecl* method = call->getMethodDecl();
  const VarDecl* wrapper = LockVariable(call->getImplicitObjectArgument());
  const FunctionDecl* def = nullptr;
  if (!method || !wrapper || !wrapper->getInit() || !method->hasBody(def) || !def) return {};
  const auto* ce = dyn_cast<CXXConstructExpr>(wrapper->getInit()->IgnoreImplicit());
  if (!ce) return {};
  // The wait the wrapper's method forwards to, on members of the wrapper.
  const CXXMemberCallExpr* inner = nullptr;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || inner) return;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
      QualType object = mc->getImplicitObjectArgument()->getType();
      if (object->isPointerType()) object = object->getPointeeType();
      if (IsWaitName(mc->getMethodDecl()->getNameAsString()) && IsConditionVariable(object) &&
          MemberOfThis(mc->getImplicitObjectArgument()) && mc->getNumArgs() > 0)
        inner = mc;
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(def->getBody());
  if (!inner) return {};
  const Expr* lock_member = inner->getArg(0)->IgnoreParenImpCasts();
  if (const auto* u = dyn_cast<UnaryOperator>(lock_member); u && u->getOpcode() == UO_Deref)
    lock_member = u->getSubExpr();
  const FieldDecl* cv_field = MemberOfThis(inner->getImplicitObjectArgument());
  const FieldDecl* lock_field = MemberOfThis(lock_member);
  const Expr* cv = cv_field ? BoundArgument(ce, cv_field) : nullptr;
  const Expr* lock = lock_field ? BoundArgument(ce, lock_field) : nullptr;
  if (!cv || !lock) return {};
  Wait w;
  w.call = call;
  w.cv = MemberOfThis(cv);
  w.cv_name = NameOf(cv);
  w.lock = LocalBehind(lock);
  if (w.lock && w.lock->getInit())
    if (const auto* held = dyn_cast<CXXConstructExpr>(w.lock->getInit()->IgnoreImplicit());
        held && held->getNumArgs() > 0)
      w.mutex = MemberOfThis(held->getArg(0));
  w.timed = method->getNameAsString() != "wait";
  if (!w.cv || !w.lock) return {};
  return w;
}

}  // namespace tether::check
