// A thread member started without the lock its stop joins it under
// (unlocked_start.hpp).
#include "unlocked_start.hpp"

#include <functional>

#include "ast_util.hpp"
#include "blocking.hpp"
#include "obligation.hpp"

namespace tether::check {

using namespace clang;

namespace {

const Stmt* Parent(ASTContext& ast, const Stmt* s) {
  DynTypedNodeList parents = ast.getParents(*s);
  return parents.empty() ? nullptr : parents[0].get<Stmt>();
}

// Every use of member f in s (a lambda's body runs elsewhere: not followed).
void ForEachUse(const Stmt* s, const FieldDecl* f,
                const std::function<void(const MemberExpr*)>& fn) {
  if (!s || isa<LambdaExpr>(s)) return;
  if (const auto* me = dyn_cast<MemberExpr>(s); me && MemberOfThis(me) == f) fn(me);
  for (const Stmt* child : s->children()) ForEachUse(child, f, fn);
}

// def is called (on this) by other methods of the class, and only by
// constructors: it runs before anyone else has the object.
bool OnlyFromConstructors(const FunctionDecl* def, const std::vector<const FunctionDecl*>& defs) {
  bool called = false, elsewhere = false;
  for (const FunctionDecl* caller : defs) {
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s || isa<LambdaExpr>(s)) return;
      if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
          mc && mc->getMethodDecl() &&
          mc->getMethodDecl()->getCanonicalDecl() == def->getCanonicalDecl() &&
          isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts())) {
        called = true;
        elsewhere |= !isa<CXXConstructorDecl>(caller);
      }
      for (const Stmt* child : s->children()) walk(child);
    };
    walk(caller->getBody());
  }
  return called && !elsewhere;
}

// s runs where the code has just found member f not joinable: the branch of
// an `if` on `!f.joinable()` (one of the conjuncts of its condition) that
// runs when it is true, or the other branch of `if (f.joinable())`.
bool KnownNotJoinable(ASTContext& ast, const Stmt* s, const FieldDecl* f) {
  for (const Stmt *child = s, *parent = Parent(ast, s); parent;
       child = parent, parent = Parent(ast, parent)) {
    const auto* branch = dyn_cast<IfStmt>(parent);
    if (!branch || child == branch->getCond()) continue;
    const bool in_then = child == branch->getThen();
    std::vector<const Expr*> parts{branch->getCond()};
    if (in_then)  // every conjunct holds in the then-branch
      for (size_t i = 0; i < parts.size(); ++i)
        if (const auto* bo = dyn_cast<BinaryOperator>(parts[i]->IgnoreParenImpCasts());
            bo && bo->getOpcode() == BO_LAnd)
          parts.push_back(bo->getLHS()), parts.push_back(bo->getRHS());
    for (const Expr* part : parts) {
      unsigned running = 0;
      const auto* tested = dyn_cast_or_null<FieldDecl>(TestedThread(part, &running));
      // running: the successor (0 = true) on which it may still run.
      if (tested == f && (running == 0) != in_then) return true;
    }
  }
  return false;
}

// fn's body gives its parameter p a new thread: `th = std::thread(f, args)`.
bool AssignsThread(const FunctionDecl* def, const ParmVarDecl* p, const TaskGroupModel& g) {
  bool assigns = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || assigns) return;
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s);
        op && op->getOperator() == OO_Equal && op->getNumArgs() == 2)
      if (const auto* ref = dyn_cast<DeclRefExpr>(op->getArg(0)->IgnoreParenImpCasts());
          ref && ref->getDecl() == p && StartsThread(op->getArg(1), g))
        assigns = true;
    for (const Stmt* child : s->children()) walk(child);
  };
  walk(def->getBody());
  return assigns;
}

// e is `&f` for member f of this.
bool IsAddressOf(const Expr* e, const FieldDecl* f) {
  const auto* u = dyn_cast<UnaryOperator>(e->IgnoreParenImpCasts());
  return u && u->getOpcode() == UO_AddrOf && MemberOfThis(u->getSubExpr()) == f;
}

// The function a use of the member is handed to by non-const reference (or
// pointer), and that starts it: its body assigns the parameter a new
// thread, or, unseen, it is given a thread known not to be joinable.
const CallExpr* StartingCall(ASTContext& ast, const MemberExpr* me, const FieldDecl* f,
                             const TaskGroupModel& g) {
  const Stmt* parent = ParentOf(ast, me);
  if (const auto* addr = dyn_cast_or_null<UnaryOperator>(parent);
      addr && addr->getOpcode() == UO_AddrOf)
    parent = ParentOf(ast, addr);  // `&t_`
  const auto* call = dyn_cast_or_null<CallExpr>(parent);
  if (!call || isa<CXXOperatorCallExpr>(call)) return nullptr;
  const FunctionDecl* fn = call->getDirectCallee();
  if (!fn || ast.getSourceManager().isInSystemHeader(fn->getLocation())) return nullptr;
  for (unsigned i = 0; i < call->getNumArgs() && i < fn->getNumParams(); ++i) {
    if (MemberOfThis(call->getArg(i)) != f && !IsAddressOf(call->getArg(i), f)) continue;
    const QualType t = fn->getParamDecl(i)->getType();
    const QualType to = t->isReferenceType() ? t.getNonReferenceType()
                        : t->isPointerType() ? t->getPointeeType()
                                             : QualType();
    if (to.isNull() || to.isConstQualified() || t->isRValueReferenceType()) return nullptr;
    const FunctionDecl* def = nullptr;
    if (fn->hasBody(def) && def)
      return AssignsThread(def, def->getParamDecl(i), g) ? call : nullptr;
    return KnownNotJoinable(ast, call, f) ? call : nullptr;
  }
  return nullptr;
}

}  // namespace

std::vector<UnlockedStart> UnlockedStarts(const CXXRecordDecl* rd, ASTContext& ast,
                                          const ApiModel& model, MemberReach& reach) {
  std::vector<UnlockedStart> found;
  std::vector<const FunctionDecl*> defs;
  for (const CXXMethodDecl* m : rd->methods())
    if (const FunctionDecl* def = nullptr; m->hasBody(def) && def && def->getBody())
      defs.push_back(def);
  std::vector<const FieldDecl*> mutexes;
  for (const FieldDecl* f : rd->fields())
    if (IsLockable(f->getType())) mutexes.push_back(f);
  if (mutexes.empty()) return found;
  // A method that starts or stops the object while it is shared: not a
  // constructor, not the destructor, not a helper of constructors only.
  std::vector<const FunctionDecl*> shared;
  for (const FunctionDecl* def : defs)
    if (!isa<CXXConstructorDecl, CXXDestructorDecl>(def) && !OnlyFromConstructors(def, defs))
      shared.push_back(def);
  for (const FieldDecl* f : rd->fields()) {
    Obligation o;
    o.decl = f;
    if ((o.group = PointerToThread(f->getType(), model))) {
      o.pointer = true;
    } else if (const TaskGroupModel* g = GroupOf(f->getType(), model); g && g->spawn_on_construct) {
      o.group = g;
    } else {
      continue;
    }
    // The joins made under a lock, and the starts.
    struct Join {
      const FunctionDecl* in;
      const Stmt* join;
      const FieldDecl* mutex;
    };
    std::vector<Join> joins;
    std::vector<UnlockedStart> starts;
    for (const FunctionDecl* def : shared)
      ForEachUse(def->getBody(), f, [&](const MemberExpr* me) {
        // `t_.join()`, or `p_->join()` through a smart pointer's operator->.
        const Stmt* up = ParentOf(ast, me);
        if (const auto* arrow = dyn_cast_or_null<CXXOperatorCallExpr>(up);
            arrow && arrow->getOperator() == OO_Arrow)
          up = ParentOf(ast, arrow);
        if (const auto* member = dyn_cast_or_null<MemberExpr>(up))
          if (const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(Parent(ast, member));
              call && call->getMethodDecl() && call->getMethodDecl()->getNameAsString() == "join") {
            for (const FieldDecl* mu : mutexes)
              if (reach.HeldAt(call, mu)) {
                joins.push_back({def, call, mu});
                break;
              }
            return;
          }
        UnlockedStart s{f, nullptr, "", def, nullptr, nullptr, nullptr};
        if (Classify(ast, me, o) == ObligationEvent::kArm) {
          s.start = me;
        } else if (const CallExpr* call = StartingCall(ast, me, f, *o.group)) {
          s.start = call;
          s.through = call->getDirectCallee()->getNameAsString();
        }
        if (s.start) starts.push_back(s);
      });
    for (UnlockedStart& s : starts)
      for (const Join& j : joins)
        if (j.in != s.starter && !reach.HeldAt(s.start, j.mutex)) {
          s.stopper = j.in, s.join = j.join, s.mutex = j.mutex;
          found.push_back(s);
          break;
        }
  }
  return found;
}

SourceLocation StartEachCall(const Stmt* body, const ApiModel& model) {
  SourceLocation found;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || found.isValid() || isa<LambdaExpr>(s)) return;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
      const std::string name = mc->getMethodDecl()->getNameAsString();
      const Expr* object = mc->getImplicitObjectArgument()->IgnoreParenImpCasts();
      if (const auto* ref = dyn_cast<DeclRefExpr>(object);
          ref && name == "detach" && RecordName(object->getType()) == "std::thread")
        if (const auto* var = dyn_cast<VarDecl>(ref->getDecl()); var && var->hasLocalStorage())
          found = var->getBeginLoc();
      if ((name == "emplace_back" || name == "push_back") && MemberOfThis(object) &&
          ContainerOfThreads(object->getType(), model))
        found = mc->getBeginLoc();
    }
    for (const Stmt* child : s->children()) walk(child);
  };
  walk(body);
  return found;
}

bool DrainLoop(const Stmt* body, const ApiModel& model, MemberReach& reach) {
  std::function<bool(const Stmt*)> blocks = [&](const Stmt* s) {
    if (!s || isa<LambdaExpr>(s)) return false;
    if (const auto* call = dyn_cast<CallExpr>(s)) {
      std::string why;
      if (IsBlockingCall(call, model, &why)) return true;
    }
    for (const Stmt* child : s->children())
      if (blocks(child)) return true;
    return false;
  };
  std::function<bool(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || isa<LambdaExpr>(s)) return false;
    const Expr* cond = nullptr;
    const Stmt* loop_body = nullptr;
    if (const auto* w = dyn_cast<WhileStmt>(s)) cond = w->getCond(), loop_body = w->getBody();
    if (const auto* d = dyn_cast<DoStmt>(s)) cond = d->getCond(), loop_body = d->getBody();
    if (cond && !reach.MemberReads(cond).empty() && blocks(loop_body)) return true;
    for (const Stmt* child : s->children())
      if (walk(child)) return true;
    return false;
  };
  return walk(body);
}

}  // namespace tether::check
