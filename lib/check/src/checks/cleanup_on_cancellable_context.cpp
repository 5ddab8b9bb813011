/// tether-cleanup-on-cancellable-context: a cleanup call (a model
/// cleanup_calls name, or any call in a scope guard or destructor) that is
/// passed a context a timeout or cancel of the same function, or of its
/// caller in this TU, may already have ended: Vela's "DestroyBuild continues
/// after timeout". The sanctioned form is WithTimeout(WithoutCancel(ctx), d).
/// Docs: docs/checks/cleanup-on-cancellable-context.md
#include <functional>
#include <map>

#include "../ast_util.hpp"
#include "../check_base.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// Where a context came from, when it can end before the cleanup runs.
struct Cancellable {
  const CallExpr* derivation = nullptr;  // WithTimeout(...), TaskGroup::WithContext(...)
  const Expr* via = nullptr;             // the call or construction that passed it on
  std::string via_name;                  // what via calls or builds ("FinishStream", "StopOnExit")
};

class CleanupOnCancellableContextCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    finder->addMatcher(callExpr(forCallable(functionDecl().bind("fn"))).bind("call"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("call");
    const auto* fn = result.Nodes.getNodeAs<FunctionDecl>("fn");
    if (!call || !fn || fn->isDependentContext() || isa<CXXOperatorCallExpr>(call)) return;
    const FunctionDecl* callee = call->getDirectCallee();
    if (!callee || !callee->getIdentifier()) return;
    // Derivations and detaches take a context on purpose.
    std::string qualified = QualifiedName(callee);
    if (ApiModel::Contains(model().derivations, qualified) ||
        ApiModel::Contains(model().sanctioned_detaches, qualified))
      return;
    std::string where;
    if (ApiModel::MatchesPattern(model().cleanup_calls, PlainQualifiedName(callee),
                                 callee->getNameAsString()))
      where = "cleanup call '" + callee->getNameAsString() + "'";
    else if (InScopeGuard(call) || InDeferredLambda(call))
      where = "call to '" + callee->getNameAsString() + "' in a scope guard";
    else if (isa<CXXDestructorDecl>(fn))
      where = "call to '" + callee->getNameAsString() + "' in a destructor";
    else
      return;

    for (const Expr* arg : call->arguments()) {
      if (isa<CXXDefaultArgExpr>(arg) || !IsContextType(arg->getType(), model())) continue;
      Cancellable c;
      if (!Origin(arg, fn, 0, &c)) continue;
      std::string spelling = Text(arg->getSourceRange());
      std::string derived = QualifiedName(c.derivation->getDirectCallee());
      Finding* f =
          diag(arg->getBeginLoc(),
               where + " is passed context '" + spelling + "', which '" + derived +
                   "' may already have ended; cleanup must run on a context that "
                   "outlives the work: pass WithoutCancel(" +
                   spelling + ") (with its own deadline: WithTimeout(WithoutCancel(ctx), d))");
      if (!f) continue;
      if (c.via)
        note(f, c.via->getBeginLoc(),
             "'" + c.via_name + "' is " +
                 (isa<CXXConstructExpr>(c.via) ? "constructed" : "called") +
                 " here with a context that may already be done");
      note(f, c.derivation->getBeginLoc(),
           "'" + derived +
               "' derives the context here; its "
               "deadline or cancel ends it before the cleanup");
      if (!model().sanctioned_detaches.empty())
        replace(f, arg->getSourceRange(), model().sanctioned_detaches[0] + "(" + spelling + ")");
    }
  }

 private:
  // True when e is a context that a cancelling derivation (not on a root or a
  // sanctioned detach) produced in fn, or, for a parameter, at a call of fn
  // in this TU.
  bool Origin(const Expr* e, const FunctionDecl* fn, int depth, Cancellable* out) {
    if (depth > 4) return false;
    e = e->IgnoreImplicit()->IgnoreParens()->IgnoreImplicit();
    if (const auto* ctor = dyn_cast<CXXConstructExpr>(e); ctor && ctor->getNumArgs() == 1)
      return Origin(ctor->getArg(0), fn, depth + 1, out);
    if (const auto* me = dyn_cast<MemberExpr>(e)) {  // WithTimeout(...).ctx, or r.ctx of a local r
      const Expr* base = me->getBase()->IgnoreImplicit();
      // ctx_ read in a destructor: the context the object was constructed with.
      if (isa<CXXThisExpr>(base) && depth == 0 && isa<CXXDestructorDecl>(fn))
        if (const auto* field = dyn_cast<FieldDecl>(me->getMemberDecl()))
          return FromConstructions(field, out);
      if (const auto* call = dyn_cast<CallExpr>(base)) return FromCall(call, fn, depth, out);
      const auto* ref = dyn_cast<DeclRefExpr>(base);
      const auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      if (!var || isa<ParmVarDecl>(var) || !var->isLocalVarDecl() ||
          var->getType()->isReferenceType() || IsContextType(var->getType(), model()))
        return false;
      return var->getInit() && Origin(var->getInit(), fn, depth + 1, out);
    }
    if (const auto* call = dyn_cast<CallExpr>(e)) return FromCall(call, fn, depth, out);
    const auto* dre = dyn_cast<DeclRefExpr>(e);
    if (!dre) return false;
    const Expr* init = nullptr;
    if (const auto* b = dyn_cast<BindingDecl>(dre->getDecl())) {
      if (const auto* dd = dyn_cast_or_null<VarDecl>(b->getDecomposedDecl())) init = dd->getInit();
    } else if (const auto* p = dyn_cast<ParmVarDecl>(dre->getDecl())) {
      // A parameter of the function the cleanup is in, or of the function
      // around the lambda (a scope guard) that names it.
      const auto* owner = dyn_cast<FunctionDecl>(p->getDeclContext());
      return depth == 0 && owner && FromCallers(p, owner, out);
    } else if (const auto* v = dyn_cast<VarDecl>(dre->getDecl())) {
      if (v->isLocalVarDecl() && !v->getType().isVolatileQualified()) init = v->getInit();
    }
    return init && Origin(init, fn, depth + 1, out);
  }

  bool FromCall(const CallExpr* call, const FunctionDecl* fn, int depth, Cancellable* out) {
    const FunctionDecl* callee = call->getDirectCallee();
    if (!callee || call->getNumArgs() == 0) return false;
    const Expr* parent = call->getArg(0)->IgnoreImplicit()->IgnoreParens()->IgnoreImplicit();
    std::string name = QualifiedName(callee);
    if (!ApiModel::Contains(model().derivations, name)) return false;
    if (!Cancels(callee->getReturnType())) return Origin(call->getArg(0), fn, depth + 1, out);
    // A deadline of its own on a parent nobody else cancels is the sanctioned form.
    if (const auto* pc = dyn_cast<CallExpr>(parent))
      if (const FunctionDecl* pf = pc->getDirectCallee())
        if (ApiModel::Contains(model().sanctioned_detaches, QualifiedName(pf)) ||
            !RootName(pc, model()).empty())
          return false;
    if (IsDetachedVar(parent)) return false;
    out->derivation = call;
    return true;
  }

  // A local initialised with WithoutCancel(...) or a root.
  bool IsDetachedVar(const Expr* e) {
    const auto* dre = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    const auto* v = dre ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
    if (!v || !v->getInit() || isa<ParmVarDecl>(v)) return false;
    const Expr* init = v->getInit()->IgnoreImplicit();
    if (const auto* ctor = dyn_cast<CXXConstructExpr>(init); ctor && ctor->getNumArgs() == 1)
      init = ctor->getArg(0)->IgnoreImplicit();
    const auto* call = dyn_cast<CallExpr>(init->IgnoreParenImpCasts());
    if (!call || !call->getDirectCallee()) return false;
    return ApiModel::Contains(model().sanctioned_detaches,
                              QualifiedName(call->getDirectCallee())) ||
           !RootName(call, model()).empty();
  }

  // The derivation returns a cancel function or a task group (whose Wait or
  // first failure cancels the context).
  bool Cancels(QualType ret) {
    const CXXRecordDecl* rd = ret.getNonReferenceType()->getAsCXXRecordDecl();
    if (!rd || !rd->hasDefinition()) return false;
    for (const FieldDecl* f : rd->fields())
      if (IsCancelType(f->getType(), model()) || GroupOf(f->getType(), model())) return true;
    return false;
  }

  // The caller case: every call of fn in this TU whose argument for p is
  // cancellable. The first one found is reported.
  bool FromCallers(const ParmVarDecl* p, const FunctionDecl* fn, Cancellable* out) {
    if (isa<CXXMethodDecl>(fn) && cast<CXXMethodDecl>(fn)->getParent()->isLambda()) return false;
    unsigned index = p->getFunctionScopeIndex();
    for (const CallExpr* site : CallsOf(fn)) {
      if (index >= site->getNumArgs()) continue;
      const auto* caller = CallerOf(site);
      if (!caller) continue;
      Cancellable c;
      if (Origin(site->getArg(index), caller, 1, &c)) {
        *out = c;
        out->via = site;
        out->via_name = DisplayName(WrittenFunction(site->getDirectCallee()));
        return true;
      }
    }
    return false;
  }

  // The RAII case: field is initialised from a constructor parameter; every
  // construction of the class in this TU whose argument for it is
  // cancellable. The first one found is reported.
  bool FromConstructions(const FieldDecl* field, Cancellable* out) {
    const auto* record = dyn_cast<CXXRecordDecl>(field->getParent());
    if (!record || record->isLambda() || !IsContextType(field->getType(), model())) return false;
    for (const CXXConstructorDecl* ctor : record->ctors()) {
      const CXXConstructorDecl* def = ctor;
      if (const FunctionDecl* body = nullptr; ctor->hasBody(body))
        def = cast<CXXConstructorDecl>(body);
      for (const CXXCtorInitializer* init : def->inits()) {
        if (init->getMember() != field || !init->getInit()) continue;
        const ParmVarDecl* p = ParameterIn(init->getInit());
        if (!p) continue;
        unsigned index = p->getFunctionScopeIndex();
        for (const CXXConstructExpr* site : ConstructionsOf(ctor)) {
          const FunctionDecl* caller = CallerOf(site);
          if (index >= site->getNumArgs() || !caller) continue;
          Cancellable c;
          if (Origin(site->getArg(index), caller, 1, &c)) {
            *out = c;
            out->via = site;
            out->via_name = record->getNameAsString();
            return true;
          }
        }
      }
    }
    return false;
  }

  // The parameter an initialiser copies (through conversions and copies).
  static const ParmVarDecl* ParameterIn(const Expr* e) {
    for (int hops = 0; e && hops < 4; ++hops) {
      e = e->IgnoreImplicit()->IgnoreParens()->IgnoreImplicit();
      if (const auto* ctor = dyn_cast<CXXConstructExpr>(e); ctor && ctor->getNumArgs() == 1) {
        e = ctor->getArg(0);
        continue;
      }
      if (const auto* call = dyn_cast<CallExpr>(e);
          call && call->getNumArgs() == 1 && call->isCallToStdMove()) {
        e = call->getArg(0);
        continue;
      }
      const auto* dre = dyn_cast<DeclRefExpr>(e);
      return dre ? dyn_cast<ParmVarDecl>(dre->getDecl()) : nullptr;
    }
    return nullptr;
  }

  const std::vector<const CXXConstructExpr*>& ConstructionsOf(const CXXConstructorDecl* ctor) {
    if (!constructions_built_) {
      constructions_built_ = true;
      auto found = match(translationUnitDecl(forEachDescendant(cxxConstructExpr().bind("c"))),
                         *ast().getTranslationUnitDecl(), ast());
      for (const BoundNodes& b : found)
        if (const auto* c = b.getNodeAs<CXXConstructExpr>("c"); c && c->getConstructor())
          constructions_[c->getConstructor()->getCanonicalDecl()].push_back(c);
    }
    static const std::vector<const CXXConstructExpr*> none;
    auto it = constructions_.find(ctor->getCanonicalDecl());
    return it == constructions_.end() ? none : it->second;
  }

  const std::vector<const CallExpr*>& CallsOf(const FunctionDecl* fn) {
    if (!calls_built_) {
      calls_built_ = true;
      auto found =
          match(translationUnitDecl(forEachDescendant(callExpr(callee(functionDecl())).bind("c"))),
                *ast().getTranslationUnitDecl(), ast());
      for (const BoundNodes& b : found)
        if (const auto* c = b.getNodeAs<CallExpr>("c");
            c && c->getDirectCallee() && !isa<CXXOperatorCallExpr>(c))
          calls_[c->getDirectCallee()->getCanonicalDecl()].push_back(c);
    }
    static const std::vector<const CallExpr*> none;
    auto it = calls_.find(fn->getCanonicalDecl());
    return it == calls_.end() ? none : it->second;
  }

  const FunctionDecl* CallerOf(const Stmt* s) {
    DynTypedNodeList parents = ast().getParents(*s);
    while (!parents.empty()) {
      if (const auto* f = parents[0].get<FunctionDecl>()) return f;
      if (const auto* l = parents[0].get<LambdaExpr>()) return l->getCallOperator();
      parents = ast().getParents(parents[0]);
    }
    return nullptr;
  }

  // The call is in a lambda that a scope-guard object (a class with a
  // user-written destructor) is constructed from.
  bool InScopeGuard(const CallExpr* call) {
    // Up to the lambda the call is in (through its call operator and class).
    DynTypedNodeList parents = ast().getParents(*call);
    const LambdaExpr* lambda = nullptr;
    for (int hops = 0; hops < 64 && !parents.empty() && !lambda; ++hops) {
      if (const auto* f = parents[0].get<FunctionDecl>()) {
        const auto* md = dyn_cast<CXXMethodDecl>(f);
        if (!md || !md->getParent()->isLambda()) return false;
      }
      lambda = parents[0].get<LambdaExpr>();
      if (!lambda) parents = ast().getParents(parents[0]);
    }
    if (!lambda) return false;
    // Out through conversions and constructions (std::function too) to the
    // outermost object the lambda is wrapped in; a call on the way means the
    // lambda is handed to a function, not to a guard.
    QualType outer;
    parents = ast().getParents(*lambda);
    for (int hops = 0; hops < 12 && !parents.empty(); ++hops) {
      const DynTypedNode& p = parents[0];
      if (const auto* v = p.get<VarDecl>()) {
        outer = v->getType();
        break;
      }
      if (const auto* ctor = p.get<CXXConstructExpr>()) {
        outer = ctor->getType();
      } else if (const auto* ile = p.get<InitListExpr>()) {
        outer = ile->getType();
      } else if (const auto* cast = p.get<CXXFunctionalCastExpr>()) {
        outer = cast->getType();
      } else if (!p.get<ImplicitCastExpr>() && !p.get<MaterializeTemporaryExpr>() &&
                 !p.get<CXXBindTemporaryExpr>() && !p.get<ExprWithCleanups>() &&
                 !p.get<ParenExpr>()) {
        break;
      }
      parents = ast().getParents(p);
    }
    if (outer.isNull()) return false;
    const CXXRecordDecl* rd = outer->getAsCXXRecordDecl();
    if (!rd || !rd->hasDefinition() || rd->isLambda() || GroupOf(outer, model()) ||
        IsContextType(outer, model()) || RecordName(outer).rfind("std::", 0) == 0)
      return false;
    const CXXDestructorDecl* dtor = rd->getDestructor();
    return dtor && dtor->isUserProvided();
  }

  // The call is in a lambda whose closure a local object's destructor calls:
  // whatever the object is (a guard returned by a finally() factory, a
  // unique_ptr's deleter, a guard template over F), the lambda runs when the
  // object goes out of scope. A closure type is unique to its lambda, so the
  // destructor's calls say it exactly.
  bool InDeferredLambda(const CallExpr* call) {
    const LambdaExpr* lambda = EnclosingLambda(call);
    if (!lambda) return false;
    auto known = deferred_.find(lambda);
    if (known != deferred_.end()) return known->second;
    bool deferred = false;
    const FunctionDecl* owner = CallerOf(lambda);
    if (owner && owner->getBody()) {
      const CXXMethodDecl* op = lambda->getCallOperator();
      auto locals = match(stmt(forEachDescendant(varDecl(hasLocalStorage()).bind("v"))),
                          *owner->getBody(), ast());
      for (const BoundNodes& b : locals) {
        const auto* v = b.getNodeAs<VarDecl>("v");
        const CXXRecordDecl* rd = v ? v->getType()->getAsCXXRecordDecl() : nullptr;
        if (!rd || isa<ParmVarDecl>(v) || v->getType()->isReferenceType() || !rd->hasDefinition())
          continue;
        const CXXDestructorDecl* dtor = rd->getDestructor();
        if (dtor && Invokes(dtor, op->getParent(), 0)) {
          deferred = true;
          break;
        }
      }
    }
    return deferred_[lambda] = deferred;
  }

  // fn's body calls the closure's call operator, directly or through up to
  // two further member functions of the objects it calls them on.
  static bool Invokes(const FunctionDecl* fn, const CXXRecordDecl* closure, int depth) {
    const FunctionDecl* def = nullptr;
    if (depth > 2 || !fn->hasBody(def) || !def->getBody()) return false;
    std::function<bool(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s) return false;
      if (const auto* c = dyn_cast<CallExpr>(s)) {
        const auto* md = dyn_cast_or_null<CXXMethodDecl>(c->getDirectCallee());
        if (md && md->getParent() == closure) return true;
        if (md && !md->getParent()->isLambda() && Invokes(md, closure, depth + 1)) return true;
      }
      for (const Stmt* child : s->children())
        if (walk(child)) return true;
      return false;
    };
    return walk(def->getBody());
  }

  // The lambda the call is in, through its call operator; null if the call
  // is in a plain function first.
  const LambdaExpr* EnclosingLambda(const CallExpr* call) {
    DynTypedNodeList parents = ast().getParents(*call);
    for (int hops = 0; hops < 64 && !parents.empty(); ++hops) {
      if (const auto* l = parents[0].get<LambdaExpr>()) return l;
      if (const auto* f = parents[0].get<FunctionDecl>()) {
        const auto* md = dyn_cast<CXXMethodDecl>(f);
        if (!md || !md->getParent()->isLambda()) return nullptr;
      }
      parents = ast().getParents(parents[0]);
    }
    return nullptr;
  }

  std::string Text(SourceRange r) {
    return std::string(
        Lexer::getSourceText(CharSourceRange::getTokenRange(r), sm(), ast().getLangOpts()));
  }

  bool calls_built_ = false;
  std::map<const FunctionDecl*, std::vector<const CallExpr*>> calls_;
  bool constructions_built_ = false;
  std::map<const CXXConstructorDecl*, std::vector<const CXXConstructExpr*>> constructions_;
  std::map<const LambdaExpr*, bool> deferred_;
};

}  // namespace

CheckRegistration CleanupOnCancellableContextCheckRegistration() {
  return RegisterCheck<CleanupOnCancellableContextCheck>(
      {"tether-cleanup-on-cancellable-context",
       "Cleanup runs on a context that a timeout or cancel may already have ended.",
       "A cleanup call (a model cleanup_calls name: Destroy*, Cleanup*, Close*, Remove*, ...; or "
       "any call in a scope guard or a destructor) is passed a context derived by WithTimeout, "
       "WithDeadline, WithCancel or TaskGroup::WithContext in the same function, or in a caller "
       "in the same TU. When the deadline passes or the cancel runs, the cleanup fails at once or "
       "is cut short: Vela's DestroyBuild after the build timeout.",
       "Run cleanup on WithoutCancel(ctx) with a deadline of its own: "
       "WithTimeout(WithoutCancel(ctx), d), justified with // tether:detached(<why>).",
       "medium"});
}

}  // namespace tether::check
