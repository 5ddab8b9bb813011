// Futures whose tasks use the frame that made them (declared in
// obligation.hpp): the handles of work a function starts on a pool or
// an executor and waits for before it returns, because the work writes
// through pointers or references into memory the function (or its
// caller) owns. A future's destructor does not wait (std::async's
// excepted), so every exit must.
#include <functional>

#include "ast_util.hpp"
#include "obligation.hpp"

namespace tether::check {

using namespace clang;

namespace {

// rd or one of its bases declares a method name() that takes no argument.
bool HasNoArgMethod(const CXXRecordDecl* rd, llvm::StringRef name, unsigned depth = 0) {
  if (!rd || !rd->hasDefinition() || depth > 4) return false;
  rd = rd->getDefinition();
  for (const Decl* d : rd->decls()) {
    const auto* m = dyn_cast<CXXMethodDecl>(d);
    if (const auto* tmpl = dyn_cast<FunctionTemplateDecl>(d))
      m = dyn_cast<CXXMethodDecl>(tmpl->getTemplatedDecl());
    if (m && m->getDeclName().isIdentifier() && m->getName() == name &&
        m->getMinRequiredArguments() == 0)
      return true;
  }
  for (const CXXBaseSpecifier& base : rd->bases())
    if (HasNoArgMethod(base.getType()->getAsCXXRecordDecl(), name, depth + 1)) return true;
  return false;
}

// What a lambda's body may reach of memory it does not own: a capture by
// reference, the object (`this`), or a pointer captured by copy.
std::string LambdaUses(const LambdaExpr* lambda) {
  for (const LambdaCapture& c : lambda->captures()) {
    if (c.getCaptureKind() == LCK_This) return "'this'";
    if (!c.capturesVariable()) continue;
    const ValueDecl* v = c.getCapturedVar();
    if (c.getCaptureKind() == LCK_ByRef) return "'" + v->getNameAsString() + "' (by reference)";
    if (v->getType()->isPointerType()) return "'" + v->getNameAsString() + "' (a pointer)";
  }
  return "";
}

bool IsStdAsync(const Expr* e) {
  e = e->IgnoreImplicit()->IgnoreParens();
  if (const auto* ewc = dyn_cast<ExprWithCleanups>(e)) e = ewc->getSubExpr()->IgnoreImplicit();
  if (const auto* cons = dyn_cast<CXXConstructExpr>(e); cons && cons->getNumArgs() == 1)
    e = cons->getArg(0)->IgnoreImplicit();
  const auto* call = dyn_cast<CallExpr>(e);
  const FunctionDecl* fn = call ? call->getDirectCallee() : nullptr;
  return fn && QualifiedName(fn) == "std::async";
}

// The chain e continues starts at the future of a promise that is a local
// of the function (`Promise<int> p; auto f = p.getFuture().via(&ex).thenValue(..);`):
// its tasks cannot run before the function fulfils the promise itself.
bool StartsAtLocalPromise(const Expr* e, unsigned depth = 0);

// A local of the function (not a parameter): `p`, or `ps[i]` of a local `ps`.
const VarDecl* LocalBehind(const Expr* e) {
  if (!e) return nullptr;
  e = e->IgnoreParenImpCasts();
  if (const auto* sub = dyn_cast<ArraySubscriptExpr>(e)) e = sub->getBase()->IgnoreParenImpCasts();
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e); op && op->getOperator() == OO_Subscript)
    e = op->getArg(0)->IgnoreParenImpCasts();
  const auto* ref = dyn_cast<DeclRefExpr>(e);
  const auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  return var && var->hasLocalStorage() && !isa<ParmVarDecl>(var) ? var : nullptr;
}

// A local container whose every push_back/emplace_back puts in a future that
// starts at a local promise (`for (..) fs.push_back(ps[i].getFuture().via(&ex));`).
bool FilledFromLocalPromises(const VarDecl* container, unsigned depth) {
  const auto* fn = dyn_cast_or_null<FunctionDecl>(container->getParentFunctionOrMethod());
  if (!fn || !fn->getBody() || depth >= 8) return false;
  bool any = false, all = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || !all) return;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl())
      if (LocalBehind(mc->getImplicitObjectArgument()) == container) {
        const std::string name = mc->getMethodDecl()->getNameAsString();
        if (name == "push_back" || name == "emplace_back") {
          any = true;
          all = mc->getNumArgs() == 1 && StartsAtLocalPromise(mc->getArg(0), depth + 1);
        }
      }
    for (const Stmt* child : s->children()) walk(child);
  };
  walk(fn->getBody());
  return any && all;
}

bool StartsAtLocalPromise(const Expr* e, unsigned depth) {
  while (e && depth < 8) {
    e = e->IgnoreImplicit()->IgnoreParens();
    if (const auto* ewc = dyn_cast<ExprWithCleanups>(e)) {
      e = ewc->getSubExpr();
    } else if (const auto* cons = dyn_cast<CXXConstructExpr>(e); cons && cons->getNumArgs() == 1) {
      e = cons->getArg(0);
    } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e)) {
      const CXXMethodDecl* m = mc->getMethodDecl();
      const Expr* object = mc->getImplicitObjectArgument();
      if (m && m->getDeclName().isIdentifier() &&
          (m->getName() == "getFuture" || m->getName() == "get_future")) {
        return LocalBehind(object) != nullptr;
      }
      e = object;
    } else if (const auto* call = dyn_cast<CallExpr>(e);
               call && call->getNumArgs() == 1 && call->getDirectCallee() &&
               QualifiedName(call->getDirectCallee()) == "std::move") {
      e = call->getArg(0);
    } else if (const auto* combine = dyn_cast<CallExpr>(e);
               combine && combine->getNumArgs() > 0 && !isa<CXXOperatorCallExpr>(combine)) {
      // A combinator over local futures (`collectAll(fs.begin(), fs.end())`).
      const Expr* arg = combine->getArg(0)->IgnoreImplicit();
      if (const auto* begin = dyn_cast<CXXMemberCallExpr>(arg))
        arg = begin->getImplicitObjectArgument();
      const VarDecl* container = LocalBehind(arg);
      return container && FilledFromLocalPromises(container, depth);
    } else if (const auto* ref = dyn_cast<DeclRefExpr>(e)) {
      const auto* var = dyn_cast<VarDecl>(ref->getDecl());
      if (!var || !var->hasLocalStorage() || isa<ParmVarDecl>(var)) return false;
      e = var->getInit();
      ++depth;
    } else {
      return false;
    }
  }
  return false;
}

}  // namespace

bool IsFutureLike(QualType t) {
  const CXXRecordDecl* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  return rd && HasNoArgMethod(rd, "wait") && HasNoArgMethod(rd, "get");
}

const TaskGroupModel* ContainerOfFutures(QualType t) {
  const QualType element = SequenceElement(t);
  if (element.isNull() || !IsFutureLike(element)) return nullptr;
  static const TaskGroupModel futures = [] {
    TaskGroupModel m;
    m.type = "futures";
    m.spawn = {"emplace_back", "push_back", "emplace", "emplace_front", "push_front", "insert"};
    m.join = {"wait", "get"};
    m.neutral = {"size", "empty", "reserve", "capacity"};
    return m;
  }();
  return &futures;
}

const TaskGroupModel* FutureModel() {
  static const TaskGroupModel future = [] {
    TaskGroupModel m;
    m.type = "future";
    m.join = {"wait", "get"};
    m.neutral = {"valid", "wait_for", "wait_until", "isReady", "hasValue"};
    return m;
  }();
  return &future;
}

std::string FrameTaskUse(const Expr* e) {
  if (!e || IsStdAsync(e)) return "";      // its future waits when destroyed
  if (StartsAtLocalPromise(e)) return "";  // nothing runs before the function fulfils it
  std::string use;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || !use.empty()) return;
    if (const auto* lambda = dyn_cast<LambdaExpr>(s)) {
      use = LambdaUses(lambda);
      return;  // its body is the task's, not a task start
    }
    for (const Stmt* child : s->children()) walk(child);
  };
  walk(e);
  return use;
}

const ValueDecl* ReferencedDecl(const Expr* e) {
  if (!e) return nullptr;
  e = e->IgnoreParenImpCasts();
  if (const auto* deref = dyn_cast<UnaryOperator>(e); deref && deref->getOpcode() == UO_Deref)
    e = deref->getSubExpr()->IgnoreParenImpCasts();
  if (const auto* arrow = dyn_cast<CXXOperatorCallExpr>(e);
      arrow && (arrow->getOperator() == OO_Arrow || arrow->getOperator() == OO_Star))
    e = arrow->getArg(0)->IgnoreParenImpCasts();
  if (const auto* ref = dyn_cast<DeclRefExpr>(e)) return ref->getDecl();
  if (const auto* me = dyn_cast<MemberExpr>(e)) return me->getMemberDecl();
  return nullptr;
}

const ValueDecl* SpawnerOf(const Expr* e) {
  // Down the chain of calls to the first one made on an object that is not
  // itself a call's result: `executor.async(f)`, `pool->submit(f).then(g)`.
  const ValueDecl* spawner = nullptr;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || spawner || isa<LambdaExpr>(s)) return;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s))
      if (const ValueDecl* d = ReferencedDecl(mc->getImplicitObjectArgument())) {
        spawner = d;
        return;
      }
    for (const Stmt* child : s->children()) walk(child);
  };
  walk(e);
  return spawner;
}

bool WaitedThroughCall(ASTContext& ctx, const Expr* ref) {
  // `collectAll(fs.begin(), fs.end()).wait()`, `whenAll(fs).get()`: ref is
  // in the arguments of a call whose result is waited for.
  const Stmt* s = ref;
  bool in_call_argument = false;
  for (int hops = 0; hops < 10; ++hops) {
    DynTypedNodeList parents = ctx.getParents(*s);
    if (parents.empty()) return false;
    const Stmt* p = parents[0].get<Stmt>();
    if (!p || !isa<Expr>(p)) return false;
    if (const auto* call = dyn_cast<CallExpr>(p);
        call && !isa<CXXMemberCallExpr>(call) && call->getCallee()->IgnoreImplicit() != s)
      in_call_argument = true;
    if (const auto* me = dyn_cast<MemberExpr>(p)) {
      const std::string name = me->getMemberDecl()->getNameAsString();
      if (in_call_argument) return name == "wait" || name == "get";
      if (name != "begin" && name != "end" && name != "cbegin" && name != "cend") return false;
    }
    s = p;
  }
  return false;
}

}  // namespace tether::check
