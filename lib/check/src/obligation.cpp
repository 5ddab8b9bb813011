// The obligations of tether-unwaited-group and tether-lost-cancel: the locals
// a function must discharge, and what each use of one does (leak_flow.cpp
// runs them over the CFG).
#include "obligation.hpp"

#include <functional>
#include <set>

#include "ast_util.hpp"

namespace tether::check {

using namespace clang;

namespace {

const Expr* Strip(const Expr* e) {
  while (e) {
    e = e->IgnoreImplicit()->IgnoreParens();
    if (const auto* ewc = dyn_cast<ExprWithCleanups>(e)) {
      e = ewc->getSubExpr();
    } else if (const auto* cons = dyn_cast<CXXConstructExpr>(e);
               cons && cons->getNumArgs() == 1 &&
               cons->getConstructor()->isCopyOrMoveConstructor()) {
      e = cons->getArg(0);
    } else {
      return e;
    }
  }
  return e;
}

bool IsStdCall(const CallExpr* call, std::initializer_list<const char*> names) {
  const FunctionDecl* fn = call->getDirectCallee();
  if (!fn) return false;
  std::string q = QualifiedName(fn);
  for (const char* n : names)
    if (q == n) return true;
  return false;
}

// The record of a derivation's result that holds field: `r.cancel`, `r.group`.
const FieldDecl* FieldOfKind(QualType t, const ApiModel& m, bool groups) {
  const CXXRecordDecl* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  if (!rd || !rd->hasDefinition()) return nullptr;
  for (const FieldDecl* f : rd->fields())
    if (groups ? GroupOf(f->getType(), m) != nullptr : IsCancelType(f->getType(), m)) return f;
  return nullptr;
}

}  // namespace

namespace {

// The range-for whose range is ref (`for (auto& t : ref)`), or null.
const CXXForRangeStmt* RangeForOver(ASTContext& ctx, const Expr* ref) {
  DynTypedNodeList parents = ctx.getParents(*ref);
  for (int hops = 0; hops < 6 && !parents.empty(); ++hops) {
    if (const auto* loop = parents[0].get<CXXForRangeStmt>()) return loop;
    const DynTypedNode p = parents[0];
    if (!p.get<ImplicitCastExpr>() && !p.get<VarDecl>() && !p.get<DeclStmt>()) return nullptr;
    parents = ctx.getParents(p);
  }
  return nullptr;
}

}  // namespace

namespace {

class LocalCollector : public RecursiveASTVisitor<LocalCollector> {
 public:
  LocalCollector(const ApiModel& m, bool groups, bool cancels)
      : m_(m), groups_(groups), cancels_(cancels) {}
  bool TraverseLambdaExpr(LambdaExpr*) { return true; }  // its own function
  bool VisitVarDecl(VarDecl* v) {
    if (!v->hasLocalStorage() || isa<ParmVarDecl>(v)) return true;
    bool derived = Derived(v->getInit());
    if (auto* dd = dyn_cast<DecompositionDecl>(v)) {
      for (BindingDecl* b : dd->bindings()) Consider(b, dd, derived, nullptr);
      return true;
    }
    if (derived && !v->getType()->isReferenceType()) derived_records_.insert(v);
    Consider(v, v, derived, v->getInit());
    return true;
  }
  // `cancel = r.cancel;` and `std::tie(ctx, cancel) = Derive(..);`.
  bool VisitBinaryOperator(BinaryOperator* op) {
    if (op->getOpcode() == BO_Assign) Assigned(op->getLHS(), op->getRHS());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr* op) {
    if (op->getOperator() == OO_Equal && op->getNumArgs() == 2)
      Assigned(op->getArg(0), op->getArg(1));
    return true;
  }
  std::vector<Obligation> out;

 private:
  // Does e come from a derivation of the model: the call itself, a member of
  // its result, a variable initialised from one, std::move/std::get of those?
  bool Derived(const Expr* e) const {
    e = Strip(e);
    if (!e) return false;
    if (const auto* call = dyn_cast<CallExpr>(e)) {
      if (IsStdCall(call, {"std::move", "std::forward", "std::get"}) && call->getNumArgs() >= 1)
        return Derived(call->getArg(0));
      if (const FunctionDecl* fn = call->getDirectCallee())
        return ApiModel::Contains(m_.derivations, QualifiedName(fn)) ||
               DerivationLike(fn->getReturnType());
      return false;
    }
    if (const auto* me = dyn_cast<MemberExpr>(e)) return Derived(me->getBase());
    if (const auto* ref = dyn_cast<DeclRefExpr>(e))
      return derived_records_.count(dyn_cast<VarDecl>(ref->getDecl())) > 0;
    return false;
  }
  // A project's own derivation: a function whose result holds a context and
  // the cancel function that ends it (`struct BuildCtx { Context ctx;
  // CancelFunc cancel; }`), however the type is spelled.
  bool DerivationLike(QualType t) const {
    const CXXRecordDecl* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
    if (!rd || !rd->hasDefinition()) return false;
    bool context = false, cancel = false;
    for (const FieldDecl* f : rd->fields()) {
      context |= IsContextType(f->getType(), m_);
      cancel |= IsCancelType(f->getType(), m_);
    }
    return context && cancel;
  }
  void Assigned(const Expr* lhs, const Expr* rhs) {
    if (!cancels_ || !Derived(rhs)) return;
    lhs = Strip(lhs);
    std::vector<const Expr*> targets{lhs};
    if (const auto* call = dyn_cast_or_null<CallExpr>(lhs); call && IsStdCall(call, {"std::tie"}))
      targets.assign(call->arg_begin(), call->arg_end());
    for (const Expr* t : targets) {
      const auto* ref = dyn_cast_or_null<DeclRefExpr>(Strip(t));
      const auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      if (!var || !var->hasLocalStorage() || isa<ParmVarDecl>(var) ||
          var->getType()->isReferenceType())
        continue;
      // The cancel itself (`cancel = r.cancel;`), or a result whose cancel
      // member the assignment fills (`run = WithTimeout(ctx, d);`, with
      // `ContextAndCancel run{ctx, {}}` declared before).
      const FieldDecl* field = nullptr;
      if (!IsCancelType(var->getType(), m_)) {
        field = FieldOfKind(var->getType(), m_, false);
        if (!field || targets.size() > 1) continue;
      }
      Obligation* o = nullptr;
      for (Obligation& existing : out)
        if (existing.decl == var && existing.field == field && !existing.group) o = &existing;
      if (!o) {
        out.push_back({var, const_cast<VarDecl*>(var), field, nullptr, false, {}, false, false});
        o = &out.back();
      }
      o->armed_by.push_back(ref);
    }
  }
  void Consider(ValueDecl* d, VarDecl* owner, bool derived, const Expr* init) {
    QualType t = d->getType();
    if (t->isReferenceType()) return;  // not the owner
    if (groups_) {
      if (const TaskGroupModel* c = ContainerOfThreads(t, m_)) {
        out.push_back({d, owner, nullptr, c, false, {}, true, false});
        return;
      }
      if (const TaskGroupModel* g = GroupOf(t, m_)) {
        bool armed = g->spawn_on_construct && init && StartsThread(init, *g);
        out.push_back({d, owner, nullptr, g, armed, {}, false, false});
        return;
      }
      if (const TaskGroupModel* g = PointerToThread(t, m_)) {
        bool armed = init && StartsThread(init, *g);
        out.push_back({d, owner, nullptr, g, armed, {}, false, true});
        return;
      }
      if (const TaskGroupModel* c = ContainerOfFutures(t)) {
        Obligation o{d, owner, nullptr, c, false, {}, true, false};
        o.frame_tasks = true;  // task_use: set by CollectObligations
        out.push_back(std::move(o));
        return;
      }
      if (std::string use = IsFutureLike(t) ? FrameTaskUse(init) : ""; !use.empty()) {
        Obligation o{d, owner, nullptr, FutureModel(), true, {}, false, false};
        o.frame_tasks = true;
        o.task_use = use;
        o.spawner = SpawnerOf(init);
        out.push_back(std::move(o));
        return;
      }
      // `auto r = TaskGroup::WithContext(ctx); r.group.Go(..)`.
      if (derived && isa<VarDecl>(d))
        if (const FieldDecl* f = FieldOfKind(t, m_, true)) {
          out.push_back({d, owner, f, GroupOf(f->getType(), m_), false, {}, false, false});
          return;
        }
    }
    if (!cancels_ || !derived) return;
    if (IsCancelType(t, m_)) {
      out.push_back({d, owner, nullptr, nullptr, true, {}, false, false});
    } else if (isa<VarDecl>(d)) {
      // `auto r = WithCancel(ctx); ... r.cancel();`
      if (const FieldDecl* f = FieldOfKind(t, m_, false))
        out.push_back({d, owner, f, nullptr, true, {}, false, false});
    }
  }
  const ApiModel& m_;
  bool groups_, cancels_;
  std::set<const VarDecl*> derived_records_;
};

}  // namespace

const Stmt* ParentOf(ASTContext& ctx, const Stmt* s) {
  while (true) {
    auto parents = ctx.getParents(*s);
    if (parents.empty()) return nullptr;
    const Stmt* p = parents[0].get<Stmt>();
    if (!p) return nullptr;
    if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr>(p)) {
      s = p;
      continue;
    }
    return p;
  }
}

namespace {

// The method a group member call names, in resolved or (in a template) dependent form.
bool MethodCallOn(ASTContext& ctx, const Stmt* object, std::string* method) {
  const Stmt* parent = ParentOf(ctx, object);
  const Expr* callee = nullptr;
  if (const auto* me = dyn_cast_or_null<MemberExpr>(parent)) {
    *method = me->getMemberDecl()->getNameAsString();
    callee = me;
  } else if (const auto* ume = dyn_cast_or_null<UnresolvedMemberExpr>(parent)) {
    *method = ume->getMemberName().getAsString();
    callee = ume;
  } else if (const auto* dme = dyn_cast_or_null<CXXDependentScopeMemberExpr>(parent)) {
    *method = dme->getMember().getAsString();
    callee = dme;
  } else {
    return false;
  }
  const auto* call = dyn_cast_or_null<CallExpr>(ParentOf(ctx, callee));
  return call && call->getCallee()->IgnoreParens() == callee;
}

}  // namespace

// What a reference to an obligation's variable does to it.
ObligationEvent Classify(ASTContext& ctx, const Expr* ref, const Obligation& o) {
  const Stmt* use = ref;
  for (const DeclRefExpr* a : o.armed_by)
    if (a == ref) return ObligationEvent::kArm;
  if (o.field) {
    const auto* member = dyn_cast_or_null<MemberExpr>(ParentOf(ctx, ref));
    if (!member)
      return o.group ? ObligationEvent::kEscape
                     : ObligationEvent::kDischarge;  // the whole result handed on
    if (member->getMemberDecl() != o.field) return ObligationEvent::kNone;  // r.ctx
    use = member;
  }
  if (!o.group) return ObligationEvent::kDischarge;  // cancel: any use counts (lostcancel)
  if (o.container)
    if (const CXXForRangeStmt* loop = RangeForOver(ctx, ref))
      return JoinsEach(loop, o.group->join) ? ObligationEvent::kDischarge : ObligationEvent::kNone;
  if (o.IsThread() && !o.container) {
    const Stmt* parent = ParentOf(ctx, use);
    // `t = std::thread(f);`, `p = std::make_unique<std::thread>(f);`: a new
    // thread (assigning to a joinable one would terminate; not followed here).
    if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(parent);
        op && op->getOperator() == OO_Equal && op->getNumArgs() == 2 && Strip(op->getArg(0)) == use)
      return StartsThread(op->getArg(1), *o.group) ? ObligationEvent::kArm : ObligationEvent::kNone;
    if (o.pointer) {
      if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(parent);
          op && op->getOperator() == OO_Arrow) {
        use = op;  // p->join(): the thread's own method, below
      } else {
        std::string method;
        if (!MethodCallOn(ctx, use, &method)) return ObligationEvent::kEscape;
        if (method == "reset") {
          const auto* call = dyn_cast_or_null<CallExpr>(ParentOf(ctx, ParentOf(ctx, use)));
          return call && call->getNumArgs() == 1 && StartsThread(call->getArg(0), *o.group)
                     ? ObligationEvent::kArm
                     : ObligationEvent::kNone;
        }
        if (method == "emplace") {  // std::optional<std::thread>::emplace(f)
          const auto* call = dyn_cast_or_null<CallExpr>(ParentOf(ctx, ParentOf(ctx, use)));
          return call && call->getNumArgs() > 0 ? ObligationEvent::kArm : ObligationEvent::kNone;
        }
        if (method == "get" || method == "operator bool" || method == "has_value")
          return ObligationEvent::kNone;
        return ObligationEvent::kEscape;  // release(), and anything else that may hand it on
      }
    }
  }
  if (o.frame_tasks && WaitedThroughCall(ctx, ref)) return ObligationEvent::kDischarge;
  std::string method;
  if (!MethodCallOn(ctx, use, &method))
    return ObligationEvent::kEscape;  // passed, returned, moved, captured
  if (o.frame_tasks && ApiModel::Contains(o.group->spawn, method)) {
    // Only a task that uses the frame arms it: `fs.push_back(pool.Submit([&] {..}))`.
    if (const auto* call = dyn_cast_or_null<CallExpr>(ParentOf(ctx, ParentOf(ctx, use))))
      for (const Expr* arg : call->arguments())
        if (!FrameTaskUse(arg).empty()) return ObligationEvent::kArm;
    return ObligationEvent::kNone;
  }
  if (ApiModel::Contains(o.group->spawn, method)) return ObligationEvent::kArm;
  if (ApiModel::Contains(o.group->join, method)) return ObligationEvent::kDischarge;
  if (ApiModel::Contains(o.group->neutral, method)) return ObligationEvent::kNone;
  return ObligationEvent::kEscape;  // an unknown method: assume it may hand the group on
}

// A container of futures is one obligation only if a task that uses the
// frame is put into it; task_use says what the first such task uses.
static void SetTaskUses(const FunctionDecl* fn, std::vector<Obligation>* obligations) {
  std::function<void(const Stmt*, Obligation&)> find = [&](const Stmt* s, Obligation& o) {
    if (!s || !o.task_use.empty() || isa<LambdaExpr>(s)) return;
    if (const auto* call = dyn_cast<CXXMemberCallExpr>(s)) {
      const auto* ref = dyn_cast<DeclRefExpr>(call->getImplicitObjectArgument()->IgnoreImplicit());
      if (ref && ref->getDecl() == o.decl && call->getMethodDecl() &&
          ApiModel::Contains(o.group->spawn, call->getMethodDecl()->getNameAsString()))
        for (const Expr* arg : call->arguments())
          if (std::string use = FrameTaskUse(arg); !use.empty()) {
            o.task_use = use;
            o.spawner = SpawnerOf(arg);
            return;
          }
    }
    for (const Stmt* child : s->children()) find(child, o);
  };
  for (Obligation& o : *obligations)
    if (o.frame_tasks && o.container) find(fn->getBody(), o);
  std::erase_if(*obligations,
                [](const Obligation& o) { return o.frame_tasks && o.task_use.empty(); });
}

std::string Obligation::Name() const {
  std::string name = decl->getNameAsString();
  if (field) name += "." + field->getNameAsString();
  return name;
}

std::vector<Obligation> CollectObligations(const FunctionDecl* fn, const ApiModel& m, bool groups,
                                           bool cancels) {
  LocalCollector c(m, groups, cancels);
  if (fn->getBody()) c.TraverseStmt(fn->getBody());
  SetTaskUses(fn, &c.out);
  // A cancel variable assigned more than once is one obligation per
  // assignment (as in vet, each definition is checked on its own; a later
  // assignment counts as a use of the earlier one).
  std::vector<Obligation> out;
  for (Obligation& o : c.out) {
    if (o.group || o.armed_by.size() + (o.armed_at_declaration ? 1 : 0) <= 1) {
      out.push_back(std::move(o));
      continue;
    }
    Obligation base = o;
    base.armed_by.clear();
    if (o.armed_at_declaration) out.push_back(base);
    base.armed_at_declaration = false;
    for (const DeclRefExpr* ref : o.armed_by) {
      out.push_back(base);
      out.back().armed_by = {ref};
    }
  }
  return out;
}

}  // namespace tether::check
