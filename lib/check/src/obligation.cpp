// The CFG engine behind tether-unwaited-group and tether-lost-cancel.
#include "obligation.hpp"

#include <functional>
#include <map>
#include <set>

#include "ast_util.hpp"
#include "may_throw.hpp"

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

namespace {

// The variables s refers to (nested lambdas included).
void OuterReferences(const Stmt* s, std::set<const ValueDecl*>* out) {
  if (!s) return;
  if (const auto* ref = dyn_cast<DeclRefExpr>(s)) out->insert(ref->getDecl());
  if (const auto* lambda = dyn_cast<LambdaExpr>(s)) return OuterReferences(lambda->getBody(), out);
  for (const Stmt* child : s->children()) OuterReferences(child, out);
}

SourceLocation ExitLocation(const Stmt* trigger) {
  if (!trigger) return {};
  if (const auto* cs = dyn_cast<CompoundStmt>(trigger)) return cs->getRBracLoc();
  return trigger->getBeginLoc();
}

}  // namespace

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

namespace {

// A function that also returns normally: a throw that skips a cancel is
// then an exit like any other (the exception is caught somewhere and the
// context lives on). One that can only throw or not return is go vet's
// panic: the process is failing, no cancel is needed.
bool HasNormalExit(const CFG& cfg) {
  std::vector<bool> seen(cfg.getNumBlockIDs(), false);
  std::vector<const CFGBlock*> todo{&cfg.getEntry()};
  seen[cfg.getEntry().getBlockID()] = true;
  while (!todo.empty()) {
    const CFGBlock* b = todo.back();
    todo.pop_back();
    bool to_exit = false, throws = false;
    for (const CFGBlock* succ : b->succs()) {
      if (!succ) continue;
      to_exit |= succ == &cfg.getExit();
      if (!seen[succ->getBlockID()]) {
        seen[succ->getBlockID()] = true;
        todo.push_back(succ);
      }
    }
    for (const CFGElement& e : *b)
      if (auto cs = e.getAs<CFGStmt>(); cs && isa<CXXThrowExpr>(cs->getStmt())) throws = true;
    if (to_exit && !throws && !b->hasNoReturnElement() && b != &cfg.getEntry()) return true;
  }
  return false;
}

// The obligations' "may be armed" dataflow over one function's CFG.
class LeakFlow {
 public:
  LeakFlow(const CFG& cfg, ASTContext& ctx, const std::vector<Obligation>& obligations,
           ThrowSummary* throws)
      : cfg_(cfg),
        ctx_(ctx),
        throws_(throws),
        obligations_(obligations),
        n_(obligations.size()),
        has_normal_exit_(HasNormalExit(cfg)),
        first_arm_(n_),
        reported_(n_, false),
        escaped_(n_, false),
        arming_call_(n_, nullptr),
        armed_before_arm_(n_, false),
        waited_(n_, false) {
    for (size_t i = 0; i < n_; ++i) {
      by_decl_.emplace(obligations[i].decl, i);
      by_owner_.emplace(obligations[i].owner, i);
    }
  }

  // Forward "may be armed" dataflow to a fixpoint (union at joins), then one
  // pass that records the leaks; those of escaped obligations are dropped.
  std::vector<Leak> Run() {
    std::vector<std::vector<bool>> in(cfg_.getNumBlockIDs(), std::vector<bool>(n_, false));
    std::vector<bool> queued(cfg_.getNumBlockIDs(), true);
    std::vector<const CFGBlock*> work(cfg_.begin(), cfg_.end());
    while (!work.empty()) {
      const CFGBlock* b = work.back();
      work.pop_back();
      queued[b->getBlockID()] = false;
      std::vector<bool> state = in[b->getBlockID()];
      for (const CFGElement& e : *b) Step(e, *b, state, false);
      // `if (t.joinable())`: on the branch where it is not, t owns no thread.
      unsigned running_branch = 0;
      const ValueDecl* tested = nullptr;
      if (b->succ_size() == 2) tested = TestedThread(b->getLastCondition(), &running_branch);
      unsigned branch = 0;
      for (const CFGBlock* succ : b->succs()) {
        const bool idle = tested && branch++ != running_branch;
        if (!succ) continue;
        std::vector<bool>& target = in[succ->getBlockID()];
        bool changed = false;
        for (size_t i = 0; i < n_; ++i)
          if (state[i] && !target[i] &&
              !(idle && obligations_[i].decl == tested &&
                (obligations_[i].IsThread() || obligations_[i].frame_tasks)))
            target[i] = changed = true;
        if (changed && !queued[succ->getBlockID()]) {
          queued[succ->getBlockID()] = true;
          work.push_back(succ);
        }
      }
    }
    for (const CFGBlock* b : cfg_) {
      std::vector<bool> state = in[b->getBlockID()];
      for (const CFGElement& e : *b) Step(e, *b, state, true);
    }
    std::vector<Leak> owned;
    for (const Leak& l : leaks_)
      if (!escaped_[l.obligation] &&
          (!obligations_[l.obligation].frame_tasks || waited_[l.obligation]))
        owned.push_back(l);
    return owned;
  }

 private:
  // Applies one CFG element to the armed set; report=true records leaks.
  void Step(const CFGElement& elem, const CFGBlock& block, std::vector<bool>& armed, bool report) {
    if (auto dtor = elem.getAs<CFGAutomaticObjDtor>()) return Destroyed(*dtor, armed, report);
    auto cs = elem.getAs<CFGStmt>();
    if (!cs) return;
    const Stmt* s = cs->getStmt();
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      Declared(ds, armed);
    } else if (const auto* ref = dyn_cast<DeclRefExpr>(s)) {
      Referenced(ref, armed);
    } else if (const auto* lambda = dyn_cast<LambdaExpr>(s)) {
      Captured(lambda, armed);
    } else if (throws_ && report && isa<CallExpr, CXXConstructExpr>(s)) {
      MayThrowHere(cast<Expr>(s), armed);
    }
    if (isa<CXXThrowExpr>(s) && report) {
      bool leaves = block.succ_size() == 1 && *block.succ_begin() == &cfg_.getExit();
      for (size_t i = 0; i < n_ && leaves; ++i)
        if (armed[i] && !reported_[i] && (obligations_[i].group || has_normal_exit_)) {
          leaks_.push_back({i, first_arm_[i], s->getBeginLoc(), true, ""});
          reported_[i] = true;
        }
    }
  }

  // A call that may throw while a thread is armed: the exception destroys it
  // joinable (std::terminate) unless a try of this function is around it. A
  // container's own emplace_back counts only when it already held a thread.
  void MayThrowHere(const Expr* call, const std::vector<bool>& armed) {
    std::string why;
    bool checked = false, may_throw = false;
    for (size_t i = 0; i < n_; ++i) {
      if (!armed[i] || reported_[i] || !(obligations_[i].IsThread() || obligations_[i].frame_tasks))
        continue;
      if (arming_call_[i] == call && !armed_before_arm_[i]) continue;
      if (!checked) {
        checked = true;
        may_throw = throws_->MayThrow(call, &why) && !InsideTry(ctx_, call);
      }
      if (!may_throw) return;
      leaks_.push_back({i, first_arm_[i], call->getBeginLoc(), true, why});
      reported_[i] = true;
    }
  }

  void Destroyed(const CFGAutomaticObjDtor& dtor, std::vector<bool>& armed, bool report) {
    auto range = by_owner_.equal_range(dtor.getVarDecl());
    for (auto it = range.first; it != range.second; ++it) {
      size_t i = it->second;
      if (armed[i] && report && !reported_[i]) {
        leaks_.push_back({i, first_arm_[i], ExitLocation(dtor.getTriggerStmt()), false, ""});
        reported_[i] = true;
      }
      armed[i] = false;
    }
  }

  void Declared(const DeclStmt* ds, std::vector<bool>& armed) {
    for (const Decl* d : ds->decls()) {
      auto range = by_owner_.equal_range(dyn_cast<VarDecl>(d));
      for (auto it = range.first; it != range.second; ++it) {
        const Obligation& o = obligations_[it->second];
        armed[it->second] = o.armed_at_declaration;
        if (o.armed_at_declaration && first_arm_[it->second].isInvalid())
          first_arm_[it->second] = o.decl->getLocation();
      }
    }
  }

  void Referenced(const DeclRefExpr* ref, std::vector<bool>& armed) {
    auto range = by_decl_.equal_range(ref->getDecl());
    for (auto it = range.first; it != range.second; ++it) {
      size_t i = it->second;
      ObligationEvent e = Classify(ctx_, ref, obligations_[i]);
      if (e == ObligationEvent::kArm) {
        // The call this reference is the object of (a container's emplace_back).
        const Stmt* call = ParentOf(ctx_, ref);
        if (call && isa<MemberExpr>(call)) call = ParentOf(ctx_, call);
        arming_call_[i] = call;
        armed_before_arm_[i] = armed[i];
        armed[i] = true;
        if (first_arm_[i].isInvalid()) first_arm_[i] = ref->getBeginLoc();
      } else if (e == ObligationEvent::kDischarge) {
        armed[i] = false;
        waited_[i] = true;
      } else if (e == ObligationEvent::kEscape) {
        armed[i] = false;
        escaped_[i] = true;
      }
    }
  }

  // What the lambda captures: its capture list, and what its body names from
  // outside (in a template a default capture is only resolved per
  // instantiation, so the definition's capture list may be empty).
  void Captured(const LambdaExpr* lambda, std::vector<bool>& armed) {
    std::set<const ValueDecl*> captured;
    for (const LambdaCapture& c : lambda->captures())
      if (c.capturesVariable()) captured.insert(c.getCapturedVar());
    if (lambda->getCaptureDefault() != LCD_None) OuterReferences(lambda->getBody(), &captured);
    for (const ValueDecl* v : captured) {
      auto range = by_decl_.equal_range(v);
      for (auto it = range.first; it != range.second; ++it) {
        armed[it->second] = false;
        if (obligations_[it->second].group) escaped_[it->second] = true;
      }
    }
  }

  const CFG& cfg_;
  ASTContext& ctx_;
  ThrowSummary* throws_;
  const std::vector<Obligation>& obligations_;
  const size_t n_;
  const bool has_normal_exit_;
  std::multimap<const ValueDecl*, size_t> by_decl_;
  std::multimap<const VarDecl*, size_t> by_owner_;
  std::vector<SourceLocation> first_arm_;
  std::vector<bool> reported_;
  std::vector<bool> escaped_;             // on any path: the obligation is someone else's
  std::vector<const Stmt*> arming_call_;  // the latest arming, in the report pass
  std::vector<bool> armed_before_arm_;    // and whether it was armed before it
  std::vector<bool> waited_;              // discharged on some path
  std::vector<Leak> leaks_;
};

}  // namespace

std::vector<Leak> FindLeaks(const FunctionDecl* fn, ASTContext& ctx,
                            const std::vector<Obligation>& obligations, ThrowSummary* throws) {
  if (obligations.empty() || !fn->getBody()) return {};
  CFG::BuildOptions opts;
  opts.AddImplicitDtors = true;
  opts.AddLifetime = false;
  opts.setAllAlwaysAdd();
  std::unique_ptr<CFG> cfg = CFG::buildCFG(fn, fn->getBody(), &ctx, opts);
  if (!cfg) return {};
  return LeakFlow(*cfg, ctx, obligations, throws).Run();
}

}  // namespace tether::check
