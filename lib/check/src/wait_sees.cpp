// What a thread's wait sees of a stop (wait_sees.hpp).
#include "wait_sees.hpp"

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
    if (notified == cv && reach.HeldAt(call, mutex)) return true;
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
    const Expr* cond = nullptr;
    if (const auto* loop = dyn_cast<WhileStmt>(s)) cond = loop->getCond();
    if (const auto* loop = dyn_cast<ForStmt>(s)) cond = loop->getCond();
    if (const auto* loop = dyn_cast<DoStmt>(s)) cond = loop->getCond();
    if (cond && ReadsMember(reach, cond, flag)) return true;
    parents = ast.getParents(*s);
  }
  return false;
}

}  // namespace tether::check
