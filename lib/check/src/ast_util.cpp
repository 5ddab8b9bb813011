// AST queries in the model's vocabulary (the Check and TuContext bodies are
// in check_base.cpp).
#include "ast_util.hpp"

#include <functional>
#include <set>

namespace tether::check {

using namespace clang;

std::string QualifiedName(const NamedDecl* d) {
  if (!d) return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  PrintingPolicy policy(d->getASTContext().getLangOpts());
  policy.SuppressInlineNamespace = true;
  policy.SuppressUnwrittenScope = true;
  d->printQualifiedName(os, policy);
  return os.str();
}

std::string DisplayName(const FunctionDecl* fn) {
  if (const auto* method = dyn_cast<CXXMethodDecl>(fn)) {
    const CXXRecordDecl* cls = method->getParent();
    if (cls->isLambda()) {
      const auto& sm = fn->getASTContext().getSourceManager();
      std::string outer = "";
      if (const auto* enclosing = dyn_cast_or_null<FunctionDecl>(cls->getDeclContext()))
        outer = DisplayName(enclosing) + "::";
      return outer + "<lambda@" + std::to_string(sm.getSpellingLineNumber(cls->getLocation())) +
             ">";
    }
  }
  return QualifiedName(fn);
}

std::string RecordName(QualType t) {
  t = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (const auto* rd = t->getAsCXXRecordDecl()) return QualifiedName(rd);
  return "";
}

bool IsContextType(QualType t, const ApiModel& m) {
  std::string name = RecordName(t);
  return !name.empty() && ApiModel::Contains(m.context_types, name);
}
bool IsCancelType(QualType t, const ApiModel& m) {
  std::string name = RecordName(t);
  return !name.empty() && ApiModel::Contains(m.cancel_types, name);
}
const TaskGroupModel* GroupOf(QualType t, const ApiModel& m) {
  std::string name = RecordName(t);
  return name.empty() ? nullptr : m.FindGroup(name);
}

bool HasParamOfContextType(const FunctionDecl* fn, const ApiModel& m) {
  for (const ParmVarDecl* p : fn->parameters())
    if (IsContextType(p->getType(), m)) return true;
  return false;
}

bool ReturnsContext(const FunctionDecl* fn, const ApiModel& m) {
  QualType ret = fn->getReturnType();
  if (IsContextType(ret, m)) return true;
  // {Context, CancelFunc}-like results are factories too.
  if (const auto* rd = ret.getNonReferenceType()->getAsCXXRecordDecl()) {
    if (!rd->hasDefinition()) return false;
    for (const FieldDecl* f : rd->fields())
      if (IsContextType(f->getType(), m)) return true;
  }
  return false;
}

std::string RootName(const Expr* e, const ApiModel& m) {
  e = e->IgnoreParenImpCasts();
  if (const auto* call = dyn_cast<CallExpr>(e)) {
    if (const FunctionDecl* fn = call->getDirectCallee()) {
      std::string name = QualifiedName(fn);
      if (ApiModel::Contains(m.root_factories, name)) return name;
    }
    return "";
  }
  if (const auto* temp = dyn_cast<CXXTemporaryObjectExpr>(e)) {
    if (m.default_constructed_context_is_root && temp->getNumArgs() == 0 &&
        IsContextType(temp->getType(), m))
      return RecordName(temp->getType()) + "{}";
  }
  return "";
}

namespace {

// Contexts carried by an object of type t: public fields of context type, and
// const methods without parameters that return one ("request-like objects").
void CarriedContexts(QualType t, const std::string& object, bool pointer, const ApiModel& m,
                     SourceLocation where, std::vector<ReachableContext>* out) {
  const CXXRecordDecl* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  if (pointer && t->isPointerType()) rd = t->getPointeeType()->getAsCXXRecordDecl();
  if (!rd || !rd->hasDefinition() || IsContextType(QualType(rd->getTypeForDecl(), 0), m)) return;
  std::string access = object + (pointer ? "->" : ".");
  for (const FieldDecl* f : rd->fields())
    if (f->getAccess() == AS_public && IsContextType(f->getType(), m))
      out->push_back(
          {access + f->getNameAsString(), where, "carried by '" + object + "'", f->getType()});
  for (const CXXMethodDecl* md : rd->methods())
    if (md->getAccess() == AS_public && md->param_empty() && !md->isStatic() &&
        md->getIdentifier() && IsContextType(md->getReturnType(), m))
      out->push_back({access + md->getNameAsString() + "()", where, "carried by '" + object + "'",
                      md->getReturnType()});
}

void MemberContexts(const CXXRecordDecl* cls, const ApiModel& m,
                    std::vector<ReachableContext>* out) {
  if (!cls || !cls->hasDefinition()) return;
  for (const FieldDecl* f : cls->fields())
    if (IsContextType(f->getType(), m))
      out->push_back({f->getNameAsString(), f->getLocation(), "member", f->getType()});
}

}  // namespace

bool IsStdContext(QualType t) { return RecordName(t).rfind("std::", 0) == 0; }

std::string HowToReadContext(const std::string& spelling, QualType t) {
  return IsStdContext(t) ? "check " + spelling + ".stop_requested()"
                         : "read " + spelling + ".Err()";
}

std::vector<ReachableContext> ReachableContexts(const FunctionDecl* fn, const ApiModel& m) {
  std::vector<ReachableContext> out;
  for (const ParmVarDecl* p : fn->parameters()) {
    if (!p->getIdentifier()) continue;  // an unnamed parameter is deliberately unused
    if (IsContextType(p->getType(), m))
      out.push_back({p->getNameAsString(), p->getLocation(), "parameter", p->getType()});
    else if (p->getType()->isPointerType())
      CarriedContexts(p->getType(), p->getNameAsString(), true, m, p->getLocation(), &out);
    else
      CarriedContexts(p->getType(), p->getNameAsString(), false, m, p->getLocation(), &out);
  }
  const auto* method = dyn_cast<CXXMethodDecl>(fn);
  if (method && method->getParent()->isLambda()) {
    const CXXRecordDecl* closure = method->getParent();
    bool captures_this = false;
    for (const LambdaCapture& c : closure->captures()) {
      if (c.capturesThis()) captures_this = true;
      if (!c.capturesVariable()) continue;
      const ValueDecl* v = c.getCapturedVar();
      if (IsContextType(v->getType(), m))
        out.push_back({v->getNameAsString(), v->getLocation(), "captured variable", v->getType()});
    }
    // With a default capture the enclosing function's contexts can be named
    // here just by writing them.
    const auto* enclosing = dyn_cast_or_null<FunctionDecl>(closure->getDeclContext());
    if (enclosing && closure->getLambdaCaptureDefault() != LCD_None) {
      for (ReachableContext& r : ReachableContexts(enclosing, m)) {
        bool dup = false;
        for (const auto& o : out) dup |= o.spelling == r.spelling;
        if (!dup) out.push_back(std::move(r));
      }
    } else if (enclosing && captures_this) {
      if (const auto* em = dyn_cast<CXXMethodDecl>(enclosing))
        MemberContexts(em->getParent(), m, &out);
    }
    return out;
  }
  if (method && method->isInstance() && !isa<CXXConstructorDecl>(method) &&
      !isa<CXXDestructorDecl>(method))
    MemberContexts(method->getParent(), m, &out);
  return out;
}

bool MayCreateRoots(const FunctionDecl* fn, const ApiModel& m) {
  if (fn->isMain() || ReturnsContext(fn, m)) return true;
  if (const auto* method = dyn_cast<CXXMethodDecl>(fn)) {
    if (method->getNameAsString() == "TestBody") {
      const CXXRecordDecl* cls = method->getParent();
      bool is_test = false;
      if (cls->hasDefinition())
        cls->forallBases([&](const CXXRecordDecl* base) {
          is_test |= QualifiedName(base) == "testing::Test";
          return true;
        });
      if (is_test) return true;
    }
  }
  return false;
}

bool IsUnresolvableCall(const CallExpr* call) {
  const FunctionDecl* callee = call->getDirectCallee();
  if (!callee) return true;  // function pointer, std::function, dependent
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
    const auto* md = dyn_cast<CXXMethodDecl>(callee);
    if (md && md->isVirtual() && !md->hasAttr<FinalAttr>() &&
        !md->getParent()->hasAttr<FinalAttr>()) {
      // A qualified call (Base::f()) is not dispatched.
      if (const auto* me = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens()))
        return !me->hasQualifier();
      return true;
    }
  }
  return false;
}

std::string Usr(const Decl* d) {
  llvm::SmallString<128> buf;
  if (index::generateUSRForDecl(d, buf)) return "";
  return std::string(buf.str());
}

const FunctionDecl* WrittenFunction(const FunctionDecl* fn) {
  if (!fn) return fn;
  if (const FunctionDecl* pattern = fn->getTemplateInstantiationPattern(/*ForDefinition=*/false))
    return pattern;
  return fn;
}

bool InTemplateInstantiation(const FunctionDecl* fn) {
  for (const DeclContext* dc = fn; dc; dc = dc->getParent()) {
    if (const auto* f = dyn_cast<FunctionDecl>(dc); f && f->isTemplateInstantiation()) return true;
    if (const auto* spec = dyn_cast<ClassTemplateSpecializationDecl>(dc);
        spec && spec->getSpecializationKind() != TSK_ExplicitSpecialization)
      return true;
  }
  return false;
}

}  // namespace tether::check

// ---- Blocking, reading and loops -------------------------------------------

namespace tether::check {

std::string PlainQualifiedName(const NamedDecl* d) {
  if (!d) return "";
  std::string out = d->getNameAsString();
  for (const DeclContext* dc = d->getDeclContext(); dc; dc = dc->getParent()) {
    if (const auto* ns = dyn_cast<NamespaceDecl>(dc)) {
      if (ns->isInline() || ns->isAnonymousNamespace()) continue;
      out = ns->getNameAsString() + "::" + out;
    } else if (const auto* rd = dyn_cast<RecordDecl>(dc)) {
      if (rd->getIdentifier()) out = rd->getNameAsString() + "::" + out;
    } else if (isa<FunctionDecl>(dc)) {
      break;
    }
  }
  return out;
}

namespace {

// The sibling is the same call with a context added: besides its context
// parameters it takes as many as the callee (defaulted ones aside). An
// overload that also needs a predicate or a callback is another call
// (condition_variable_any::wait_for(lock, token, d, pred) is no sibling of
// wait_for(lock, d)).
bool SameCallPlusContext(const FunctionDecl* callee, const FunctionDecl* sibling,
                         const ApiModel& m) {
  unsigned required = 0, most = 0;
  for (const ParmVarDecl* p : sibling->parameters()) {
    if (IsContextType(p->getType(), m)) continue;
    ++most;
    if (!p->hasDefaultArg()) ++required;
  }
  return required <= callee->getNumParams() && callee->getMinRequiredArguments() <= most;
}

}  // namespace

const FunctionDecl* FindContextSibling(const FunctionDecl* callee, const ApiModel& m) {
  if (!callee->getIdentifier() || HasParamOfContextType(callee, m)) return nullptr;
  std::vector<std::string> names{callee->getNameAsString()};
  for (const auto& suffix : m.sibling_suffixes) names.push_back(names[0] + suffix);
  const DeclContext* scope = callee->getDeclContext()->getRedeclContext();
  for (const std::string& n : names) {
    DeclarationName dn(&callee->getASTContext().Idents.get(n));
    for (const NamedDecl* d : scope->lookup(dn)) {
      const FunctionDecl* f = d->getAsFunction();
      if (f && f != callee && HasParamOfContextType(f, m) && SameCallPlusContext(callee, f, m))
        return f;
    }
  }
  return nullptr;
}

namespace {

bool ReadsContextImpl(const Stmt* s, const ApiModel& m, unsigned depth, bool members_only,
                      std::set<const FunctionDecl*>* seen) {
  if (!s) return false;
  if (const auto* e = dyn_cast<Expr>(s);
      e && !e->isTypeDependent() && IsContextType(e->getType(), m)) {
    if (const auto* me = dyn_cast<MemberExpr>(s)) {
      if (!members_only || isa<CXXThisExpr>(me->getBase()->IgnoreParenImpCasts())) return true;
    } else if (isa<DeclRefExpr>(s)) {
      if (!members_only) return true;
    } else if (const auto* call = dyn_cast<CallExpr>(s)) {
      if (!members_only && RootName(call, m).empty()) return true;
    }
  }
  if (const auto* call = dyn_cast<CallExpr>(s); call && depth > 0) {
    // A method called on this object may read the object's context member.
    const auto* mc = dyn_cast<CXXMemberCallExpr>(call);
    const FunctionDecl* callee = call->getDirectCallee();
    if (mc && callee && isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts())) {
      const FunctionDecl* def = nullptr;
      if (callee->hasBody(def) && def && seen->insert(def).second &&
          ReadsContextImpl(def->getBody(), m, depth - 1, true, seen))
        return true;
    }
  }
  for (const Stmt* child : s->children())
    if (ReadsContextImpl(child, m, depth, members_only, seen)) return true;
  return false;
}

}  // namespace

bool ReadsContext(const Stmt* s, const ApiModel& m, unsigned depth) {
  std::set<const FunctionDecl*> seen;
  return ReadsContextImpl(s, m, depth, false, &seen);
}

bool PassesContext(const CallExpr* call, const ApiModel& m) {
  for (const Expr* arg : call->arguments())
    if (!isa<CXXDefaultArgExpr>(arg) && ReadsContext(arg, m, 0)) return true;
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call))
    if (const Expr* obj = mc->getImplicitObjectArgument(); obj && ReadsContext(obj, m, 0))
      return true;
  return false;
}

bool ModelsThreads(const ApiModel& m) {
  for (const TaskGroupModel& g : m.task_groups)
    if (g.spawn_on_construct) return true;
  return false;
}

const FieldDecl* MemberOfThis(const Expr* e) {
  if (!e) return nullptr;
  e = e->IgnoreParenImpCasts();
  if (const auto* arrow = dyn_cast<CXXOperatorCallExpr>(e);
      arrow && arrow->getOperator() == OO_Arrow)
    e = arrow->getArg(0)->IgnoreParenImpCasts();
  const auto* me = dyn_cast<MemberExpr>(e);
  if (!me) return nullptr;
  const Expr* base = me->getBase()->IgnoreParenImpCasts();
  if (!isa<CXXThisExpr>(base) && !(me->isArrow() && IsSelfPointer(base))) return nullptr;
  return dyn_cast<FieldDecl>(me->getMemberDecl());
}

// `self` in `C* self = static_cast<C*>(arg);` (or a C-style cast), where arg
// is a `void*` parameter: the object a C-style thread entry was started with.
bool IsSelfPointer(const Expr* e) {
  const auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || isa<ParmVarDecl>(var) || !var->hasLocalStorage() || !var->getInit()) return false;
  const auto* cast = dyn_cast<ExplicitCastExpr>(var->getInit()->IgnoreParenImpCasts());
  if (!cast || !cast->getType()->isPointerType()) return false;
  const auto* arg = dyn_cast<DeclRefExpr>(cast->getSubExpr()->IgnoreParenImpCasts());
  const auto* param = arg ? dyn_cast<ParmVarDecl>(arg->getDecl()) : nullptr;
  return param && param->getType()->isVoidPointerType();
}

llvm::StringRef CFunctionName(const CallExpr* call) {
  const FunctionDecl* fn = call->getDirectCallee();
  return fn && !isa<CXXMethodDecl>(fn) && fn->getDeclName().isIdentifier() ? fn->getName() : "";
}

bool IsClassAsWritten(const CXXRecordDecl* rd, const SourceManager& sm) {
  if (!rd || rd->isLambda() || sm.isInSystemHeader(rd->getLocation())) return false;
  const auto* spec = dyn_cast<ClassTemplateSpecializationDecl>(rd);
  return !spec || spec->getSpecializationKind() != TSK_ImplicitInstantiation;
}

// Synchronisation kinds (flags, mutexes, condition variables, waits).

// An atomic<bool>: std's, or a project's or library's own template named
// atomic (boost::atomic<bool>, srt's sync::atomic<bool>).
static bool IsAtomicBool(const CXXRecordDecl* rd) {
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(rd);
  if (!spec || spec->getSpecializedTemplate()->getName() != "atomic" ||
      spec->getTemplateArgs().size() != 1 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  return spec->getTemplateArgs()[0].getAsType()->isBooleanType();
}

bool IsFlagType(QualType t) {
  t = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (t->isBooleanType()) return true;
  const CXXRecordDecl* rd = t->getAsCXXRecordDecl();
  if (IsAtomicBool(rd)) return true;
  // A class that is an atomic<bool> (brpc's butil::atomic<T> derives from
  // std::atomic<T>).
  if (!rd || !rd->hasDefinition()) return false;
  bool derived = false;
  rd->forallBases([&](const CXXRecordDecl* base) {
    derived |= IsAtomicBool(base);
    return true;
  });
  return derived;
}

// The lambda a wait's predicate argument holds: before C++17 it is copied
// into the by-value parameter (a CXXConstructExpr around the LambdaExpr).
const LambdaExpr* PredicateLambda(const Expr* e) {
  e = e->IgnoreImplicit();
  if (const auto* copy = dyn_cast<CXXConstructExpr>(e); copy && copy->getNumArgs() == 1)
    e = copy->getArg(0)->IgnoreImplicit();
  return dyn_cast<LambdaExpr>(e);
}

namespace {

const CXXRecordDecl* RecordOf(QualType t) {
  t = t.getNonReferenceType();
  if (t->isPointerType()) t = t->getPointeeType();
  const CXXRecordDecl* rd = t->getAsCXXRecordDecl();
  return rd && rd->hasDefinition() ? rd->getDefinition() : nullptr;
}

bool HasMethod(const CXXRecordDecl* rd, const std::function<bool(const CXXMethodDecl*)>& fits) {
  for (const CXXMethodDecl* m : rd->methods())
    if (m->getDeclName().isIdentifier() && fits(m)) return true;
  return false;
}

}  // namespace

bool IsLockable(QualType t) {
  const CXXRecordDecl* rd = RecordOf(t);
  if (!rd) return false;
  return HasMethod(rd, [](const CXXMethodDecl* m) { return m->getName() == "lock"; }) &&
         HasMethod(rd, [](const CXXMethodDecl* m) { return m->getName() == "unlock"; });
}

bool IsNotifyName(llvm::StringRef name) {
  return name == "notify_one" || name == "notify_all" || name == "notifyOne" ||
         name == "notifyAll" || name == "signal" || name == "broadcast";
}

bool IsWaitName(llvm::StringRef name) {
  return name == "wait" || name == "wait_for" || name == "wait_until" || name == "timed_wait";
}

bool IsConditionVariable(QualType t) {
  std::string name = RecordName(t);
  if (name == "std::condition_variable" || name == "std::condition_variable_any" ||
      name == "boost::condition_variable" || name == "boost::condition_variable_any")
    return true;
  const CXXRecordDecl* rd = RecordOf(t);
  if (!rd || name.rfind("std::", 0) == 0 || t->isPointerType()) return false;
  return HasMethod(rd, [](const CXXMethodDecl* m) { return IsNotifyName(m->getName()); }) &&
         HasMethod(rd, [](const CXXMethodDecl* m) {
           return IsWaitName(m->getName()) && m->getNumParams() > 0 &&
                  IsLockable(m->getParamDecl(0)->getType());
         });
}

bool MayBeUnbounded(const Expr* e, ASTContext& ast) {
  if (!e) return false;
  e = e->IgnoreImplicit()->IgnoreParenImpCasts();
  if (const auto* c = dyn_cast<ConditionalOperator>(e))
    return MayBeUnbounded(c->getTrueExpr(), ast) || MayBeUnbounded(c->getFalseExpr(), ast);
  // std::chrono::milliseconds(INT_MAX), a copy of one.
  if (const auto* ce = dyn_cast<CXXConstructExpr>(e); ce && ce->getNumArgs() == 1)
    return MayBeUnbounded(ce->getArg(0), ast);
  if (const auto* cast = dyn_cast<ExplicitCastExpr>(e))
    return MayBeUnbounded(cast->getSubExpr(), ast);
  if (const auto* call = dyn_cast<CallExpr>(e)) {
    const auto* fn = dyn_cast_or_null<CXXMethodDecl>(call->getDirectCallee());
    return fn && fn->isStatic() && fn->getDeclName().isIdentifier() && fn->getName() == "max" &&
           QualifiedName(fn->getParent()).rfind("std::chrono::", 0) == 0;
  }
  Expr::EvalResult value;
  if (e->isValueDependent() || !e->getType()->isIntegralOrEnumerationType() ||
      !e->EvaluateAsInt(value, ast))
    return false;
  const llvm::APSInt& v = value.Val.getInt();
  return v.getSignificantBits() > 31 || v.getExtValue() >= 0x7fffffff;
}

namespace {

// Whether the body of fn's definition has a statement (outside lambdas
// too) for which found holds.
bool BodyHas(const FunctionDecl* fn, const std::function<bool(const Stmt*)>& found) {
  const FunctionDecl* def = nullptr;
  if (!fn || !fn->hasBody(def) || !def) return false;
  bool seen = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || seen) return;
    seen = found(s);
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(def->getBody());
  return seen;
}

bool CallsMethodNamed(const FunctionDecl* fn, llvm::StringRef name) {
  return BodyHas(fn, [&](const Stmt* s) {
    const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
    return mc && mc->getMethodDecl() && mc->getMethodDecl()->getNameAsString() == name;
  });
}

// The parameter at index of fn's definition (the one its body names).
const ParmVarDecl* DefinitionParameter(const FunctionDecl* fn, unsigned index) {
  const FunctionDecl* def = nullptr;
  if (!fn->hasBody(def) || !def || index >= def->getNumParams()) return nullptr;
  return def->getParamDecl(index);
}

bool Names(const Expr* e, const ParmVarDecl* p) {
  const auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return ref && ref->getDecl() == p;
}

}  // namespace

bool IsRaiiUnlocker(const CXXRecordDecl* rd) {
  if (!rd || !rd->hasDefinition()) return false;
  rd = rd->getDefinition();
  bool unlocks = false;
  for (const CXXConstructorDecl* ctor : rd->ctors())
    unlocks |= !ctor->isCopyOrMoveConstructor() && CallsMethodNamed(ctor, "unlock");
  return unlocks && CallsMethodNamed(rd->getDestructor(), "lock");
}

bool DefersLock(const CXXConstructExpr* guard) {
  return guard->getNumArgs() == 2 && RecordName(guard->getArg(1)->getType()) == "std::defer_lock_t";
}

bool NotifiesParameter(const FunctionDecl* fn, unsigned index) {
  const ParmVarDecl* p = DefinitionParameter(fn, index);
  return p && BodyHas(fn, [&](const Stmt* s) {
           const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
           return mc && mc->getMethodDecl() &&
                  IsNotifyName(mc->getMethodDecl()->getNameAsString()) &&
                  Names(mc->getImplicitObjectArgument(), p);
         });
}

bool LocksParameter(const FunctionDecl* fn, unsigned index) {
  const ParmVarDecl* p = DefinitionParameter(fn, index);
  return p && BodyHas(fn, [&](const Stmt* s) {
           if (const auto* ce = dyn_cast<CXXConstructExpr>(s); ce && ce->getNumArgs() > 0)
             return Names(ce->getArg(0), p) && !DefersLock(ce);
           const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
           return mc && mc->getMethodDecl() && mc->getMethodDecl()->getNameAsString() == "lock" &&
                  Names(mc->getImplicitObjectArgument(), p);
         });
}

}  // namespace tether::check
