// A thread that erases its stop's wake-up (erased_wake.hpp).
#include "erased_wake.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "ast_util.hpp"
#include "wait_sees.hpp"

namespace tether::check {

using namespace clang;

namespace {

SourceLocation At(const SourceManager& sm, SourceLocation l) { return sm.getExpansionLoc(l); }

bool Before(const SourceManager& sm, SourceLocation a, SourceLocation b) {
  return sm.isBeforeInTranslationUnit(At(sm, a), At(sm, b));
}

// l lies in s's source text.
bool Inside(const SourceManager& sm, const Stmt* s, SourceLocation l) {
  return !Before(sm, l, s->getBeginLoc()) && !Before(sm, s->getEndLoc(), l);
}

// The body of the innermost loop around s, in s's own function.
const Stmt* LoopBodyAround(ASTContext& ast, const Stmt* s) {
  DynTypedNodeList parents = ast.getParents(*s);
  while (!parents.empty()) {
    if (parents[0].get<FunctionDecl>() || parents[0].get<LambdaExpr>()) return nullptr;
    const Stmt* p = parents[0].get<Stmt>();
    if (!p) return nullptr;
    if (const Stmt* body = LoopBody(p)) return body;
    parents = ast.getParents(*p);
  }
  return nullptr;
}

// The block whose statements include the one that took the lock.
const CompoundStmt* BlockOf(ASTContext& ast, const Stmt* start) {
  DynTypedNodeList parents = ast.getParents(*start);
  return parents.empty() ? nullptr : dyn_cast_or_null<CompoundStmt>(parents[0].get<Stmt>());
}

// The lockable members of the classes the flag and the member belong to.
std::vector<const FieldDecl*> Mutexes(const FieldDecl* a, const FieldDecl* b) {
  std::vector<const FieldDecl*> out;
  for (const RecordDecl* rd : {a->getParent(), b->getParent()})
    for (const FieldDecl* f : rd->fields())
      if (IsLockable(f->getType()) && std::find(out.begin(), out.end(), f) == out.end())
        out.push_back(f);
  return out;
}

// The first place after `after`, inside loop_body, where the thread sleeps
// without testing flag: a wait whose predicate does not read it, or a call
// named for a wait that is given the address of a member the stop changes
// (`futex_wait(&nsignals_, expected, ..)`). Null when there is none, or when
// the first wait tests the flag.
const Stmt* SleepAfter(const SourceManager& sm, const Reach& thread, const Reach& stop,
                       const FieldDecl* flag, const Stmt* loop_body, SourceLocation after,
                       MemberReach& reach) {
  const Stmt* first = nullptr;
  bool guarded = false;
  auto consider = [&](const Stmt* at, bool tests_flag) {
    if (!Inside(sm, loop_body, at->getBeginLoc()) || !Before(sm, after, at->getBeginLoc())) return;
    if (first && !Before(sm, at->getBeginLoc(), first->getBeginLoc())) return;
    first = at;
    guarded = tests_flag;
  };
  for (const Wait& w : thread.waits) {
    const Stmt* predicate = w.predicate;
    if (const auto* lambda = predicate ? PredicateLambda(w.predicate) : nullptr)
      predicate = lambda->getBody();
    consider(w.call, predicate && ReadsMember(reach, predicate, flag));
  }
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || isa<LambdaExpr>(s)) return;
    if (const auto* call = dyn_cast<CallExpr>(s); call && !isa<CXXMemberCallExpr>(call)) {
      const FunctionDecl* fn = call->getDirectCallee();
      const bool wait_named = fn && fn->getDeclName().isIdentifier() &&
                              fn->getName().lower().find("wait") != std::string::npos;
      for (const Expr* arg : call->arguments()) {
        const auto* u = dyn_cast<UnaryOperator>(arg->IgnoreParenImpCasts());
        if (wait_named && u && u->getOpcode() == UO_AddrOf)
          if (const FieldDecl* word = MemberOfThis(u->getSubExpr());
              word && stop.writes.count(word))
            consider(call, false);
      }
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(loop_body);
  return first && !guarded ? first : nullptr;
}

}  // namespace

std::optional<ErasedWake> ErasedWakeUp(const Reach& thread, const Reach& stop,
                                       const FieldDecl* flag, ASTContext& ast, MemberReach& reach) {
  const SourceManager& sm = ast.getSourceManager();
  for (const auto& [signal, erase] : thread.write_sites) {
    if (signal == flag) continue;
    for (const FieldDecl* mutex : Mutexes(flag, signal)) {
      const Stmt* posted = nullptr;
      for (const auto& [f, at] : stop.write_sites)
        if (!posted && f == signal && reach.HeldAt(at, mutex)) posted = at;
      const Stmt* start = posted ? reach.HoldStart(erase, mutex) : nullptr;
      const CompoundStmt* block = start ? BlockOf(ast, start) : nullptr;
      const Stmt* loop_body = block ? LoopBodyAround(ast, erase) : nullptr;
      if (!loop_body) continue;
      // Blind: in the hold, nothing reads the flag, and nothing before the
      // write reads the member (a hold that reads it first sees the stop's).
      bool blind = true;
      for (const auto& [f, at] : reach.MemberReads(block)) {
        if (Before(sm, at, start->getBeginLoc())) continue;
        if (f == flag || (f == signal && Before(sm, at, erase->getBeginLoc()))) blind = false;
      }
      if (!blind) continue;
      // After the hold began, the loop neither tests the flag again nor
      // ignores the member: it reads the member later, and then sleeps.
      bool tests_flag = false, reads_signal = false;
      for (const auto& [f, at] : reach.MemberReads(loop_body)) {
        if (!Before(sm, start->getBeginLoc(), at)) continue;
        tests_flag |= f == flag;
        reads_signal |= f == signal && Before(sm, erase->getBeginLoc(), at);
      }
      // A wait's predicate after the write reads it too.
      for (const Wait& w : thread.waits)
        if (w.predicate && Inside(sm, loop_body, w.call->getBeginLoc()) &&
            Before(sm, erase->getBeginLoc(), w.call->getBeginLoc()))
          reads_signal |= ReadsMember(reach, w.predicate, signal);
      if (tests_flag || !reads_signal) continue;
      if (const Stmt* sleep =
              SleepAfter(sm, thread, stop, flag, loop_body, erase->getBeginLoc(), reach))
        return ErasedWake{erase, signal, mutex, posted, reach.EnclosingFunction(posted), sleep};
    }
  }
  return std::nullopt;
}

}  // namespace tether::check
