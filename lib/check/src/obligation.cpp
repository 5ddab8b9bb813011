// The CFG engine behind tether-unwaited-group and tether-lost-cancel.
#include "obligation.hpp"

#include <map>
#include <set>

#include "ast_util.hpp"

namespace tether::check {

using namespace clang;

namespace {

// Does init (a variable's initialiser) come from a derivation of the model?
bool FromDerivation(const Expr* init, const ApiModel& m) {
  if (!init) return false;
  init = init->IgnoreImplicit();
  if (const auto* ewc = dyn_cast<ExprWithCleanups>(init)) init = ewc->getSubExpr()->IgnoreImplicit();
  if (const auto* cons = dyn_cast<CXXConstructExpr>(init))
    if (cons->getNumArgs() == 1) init = cons->getArg(0)->IgnoreImplicit();
  if (const auto* call = dyn_cast<CallExpr>(init->IgnoreImplicit()))
    if (const FunctionDecl* fn = call->getDirectCallee())
      return ApiModel::Contains(m.derivations, QualifiedName(fn));
  return false;
}

class LocalCollector : public RecursiveASTVisitor<LocalCollector> {
 public:
  LocalCollector(const ApiModel& m, bool groups, bool cancels) : m_(m), groups_(groups), cancels_(cancels) {}
  bool TraverseLambdaExpr(LambdaExpr*) { return true; }  // its own function
  bool VisitVarDecl(VarDecl* v) {
    if (!v->hasLocalStorage() || isa<ParmVarDecl>(v)) return true;
    if (auto* dd = dyn_cast<DecompositionDecl>(v)) {
      bool derived = FromDerivation(dd->getInit(), m_);
      for (BindingDecl* b : dd->bindings()) Consider(b, dd, derived, nullptr);
      return true;
    }
    Consider(v, v, FromDerivation(v->getInit(), m_), v->getInit());
    return true;
  }
  std::vector<Obligation> out;

 private:
  void Consider(ValueDecl* d, VarDecl* owner, bool derived, const Expr* init) {
    QualType t = d->getType();
    if (t->isReferenceType()) return;  // not the owner
    if (groups_) {
      if (const TaskGroupModel* g = GroupOf(t, m_)) {
        bool armed = false;
        if (g->spawn_on_construct && init) {
          const Expr* e = init->IgnoreImplicit();
          if (const auto* ce = dyn_cast<CXXConstructExpr>(e))
            armed = ce->getNumArgs() > 0 && !ce->getConstructor()->isCopyOrMoveConstructor();
        }
        out.push_back({d, owner, g, armed});
        return;
      }
    }
    if (cancels_ && derived && IsCancelType(t, m_)) out.push_back({d, owner, nullptr, true});
  }
  const ApiModel& m_;
  bool groups_, cancels_;
};

// kEscape: the variable is handed on (passed, moved, returned, captured, an
// unknown method): its new owner answers for it, on every path.
enum class Event { kNone, kArm, kDischarge, kEscape };

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

// What a reference to an obligation's variable does to it.
Event Classify(ASTContext& ctx, const DeclRefExpr* ref, const Obligation& o) {
  if (!o.group) return Event::kDischarge;  // cancel: any use counts (lostcancel)
  const Stmt* parent = ParentOf(ctx, ref);
  const auto* member = dyn_cast_or_null<MemberExpr>(parent);
  if (!member) return Event::kEscape;  // passed, returned, moved, captured
  const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(ParentOf(ctx, member));
  if (!call || call->getCallee()->IgnoreParens() != member) return Event::kEscape;
  std::string method = member->getMemberDecl()->getNameAsString();
  if (ApiModel::Contains(o.group->spawn, method)) return Event::kArm;
  if (ApiModel::Contains(o.group->join, method)) return Event::kDischarge;
  if (ApiModel::Contains(o.group->neutral, method)) return Event::kNone;
  return Event::kEscape;  // an unknown method: assume it may hand the group on
}

SourceLocation ExitLocation(const Stmt* trigger) {
  if (!trigger) return {};
  if (const auto* cs = dyn_cast<CompoundStmt>(trigger)) return cs->getRBracLoc();
  return trigger->getBeginLoc();
}

}  // namespace

std::vector<Obligation> CollectObligations(const FunctionDecl* fn, const ApiModel& m, bool groups,
                                           bool cancels) {
  LocalCollector c(m, groups, cancels);
  if (fn->getBody()) c.TraverseStmt(fn->getBody());
  return c.out;
}

std::vector<Leak> FindLeaks(const FunctionDecl* fn, ASTContext& ctx,
                            const std::vector<Obligation>& obligations) {
  std::vector<Leak> leaks;
  if (obligations.empty() || !fn->getBody()) return leaks;
  CFG::BuildOptions opts;
  opts.AddImplicitDtors = true;
  opts.AddLifetime = false;
  opts.setAllAlwaysAdd();
  std::unique_ptr<CFG> cfg = CFG::buildCFG(fn, fn->getBody(), &ctx, opts);
  if (!cfg) return leaks;

  std::map<const ValueDecl*, size_t> by_decl;
  std::multimap<const VarDecl*, size_t> by_owner;
  for (size_t i = 0; i < obligations.size(); ++i) {
    by_decl[obligations[i].decl] = i;
    by_owner.emplace(obligations[i].owner, i);
  }
  const size_t n = obligations.size();
  std::vector<SourceLocation> first_arm(n);
  std::vector<bool> reported(n, false);
  std::vector<bool> escaped(n, false);  // on any path: the obligation is someone else's

  // Applies one CFG element to the armed set; report=true records leaks.
  auto step = [&](const CFGElement& elem, const CFGBlock& block, std::vector<bool>& armed, bool report) {
    if (auto dtor = elem.getAs<CFGAutomaticObjDtor>()) {
      auto range = by_owner.equal_range(dtor->getVarDecl());
      for (auto it = range.first; it != range.second; ++it) {
        size_t i = it->second;
        if (armed[i] && report && !reported[i]) {
          leaks.push_back({i, first_arm[i], ExitLocation(dtor->getTriggerStmt()), false});
          reported[i] = true;
        }
        armed[i] = false;
      }
      return;
    }
    auto cs = elem.getAs<CFGStmt>();
    if (!cs) return;
    const Stmt* s = cs->getStmt();
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls()) {
        auto range = by_owner.equal_range(dyn_cast<VarDecl>(d));
        for (auto it = range.first; it != range.second; ++it) {
          const Obligation& o = obligations[it->second];
          armed[it->second] = o.armed_at_declaration;
          if (o.armed_at_declaration && first_arm[it->second].isInvalid())
            first_arm[it->second] = o.decl->getLocation();
        }
      }
    } else if (const auto* ref = dyn_cast<DeclRefExpr>(s)) {
      auto it = by_decl.find(ref->getDecl());
      if (it == by_decl.end()) return;
      Event e = Classify(ctx, ref, obligations[it->second]);
      if (e == Event::kArm) {
        armed[it->second] = true;
        if (first_arm[it->second].isInvalid()) first_arm[it->second] = ref->getBeginLoc();
      } else if (e == Event::kDischarge) {
        armed[it->second] = false;
      } else if (e == Event::kEscape) {
        armed[it->second] = false;
        escaped[it->second] = true;
      }
    } else if (const auto* lambda = dyn_cast<LambdaExpr>(s)) {
      for (const LambdaCapture& c : lambda->captures())
        if (c.capturesVariable()) {
          auto it = by_decl.find(c.getCapturedVar());
          if (it == by_decl.end()) continue;
          armed[it->second] = false;
          if (obligations[it->second].group) escaped[it->second] = true;
        }
    } else if (isa<CXXThrowExpr>(s) && report) {
      bool leaves = block.succ_size() == 1 && *block.succ_begin() == &cfg->getExit();
      for (size_t i = 0; i < n && leaves; ++i)
        if (armed[i] && !reported[i]) {
          leaks.push_back({i, first_arm[i], s->getBeginLoc(), true});
          reported[i] = true;
        }
    }
  };

  // Forward "may be armed" dataflow to a fixpoint (union at joins).
  std::vector<std::vector<bool>> in(cfg->getNumBlockIDs(), std::vector<bool>(n, false));
  std::vector<bool> queued(cfg->getNumBlockIDs(), true);
  std::vector<const CFGBlock*> work(cfg->begin(), cfg->end());
  while (!work.empty()) {
    const CFGBlock* b = work.back();
    work.pop_back();
    queued[b->getBlockID()] = false;
    std::vector<bool> state = in[b->getBlockID()];
    for (const CFGElement& e : *b) step(e, *b, state, false);
    for (const CFGBlock* succ : b->succs()) {
      if (!succ) continue;
      std::vector<bool>& target = in[succ->getBlockID()];
      bool changed = false;
      for (size_t i = 0; i < n; ++i)
        if (state[i] && !target[i]) target[i] = changed = true;
      if (changed && !queued[succ->getBlockID()]) {
        queued[succ->getBlockID()] = true;
        work.push_back(succ);
      }
    }
  }
  for (const CFGBlock* b : *cfg) {
    std::vector<bool> state = in[b->getBlockID()];
    for (const CFGElement& e : *b) step(e, *b, state, true);
  }
  std::vector<Leak> owned;
  for (const Leak& l : leaks)
    if (!escaped[l.obligation]) owned.push_back(l);
  return owned;
}

}  // namespace tether::check
