// The CFG engine behind tether-unwaited-group and tether-lost-cancel: the
// "may be armed" dataflow over one function's CFG (obligation.hpp).
#include <map>
#include <set>

#include "ast_util.hpp"
#include "may_throw.hpp"
#include "obligation.hpp"

namespace tether::check {

using namespace clang;

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
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s)) Drained(mc, armed);
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

  // The executor that runs a frame task waits for all of its tasks
  // (`executor.wait_for_all()`, `pool.join()`): the futures are then done.
  void Drained(const CXXMemberCallExpr* call, std::vector<bool>& armed) {
    const CXXMethodDecl* method = call->getMethodDecl();
    if (!method || !method->getDeclName().isIdentifier()) return;
    const llvm::StringRef name = method->getName();
    if (!name.startswith("wait") && !name.startswith("join")) return;
    const ValueDecl* object = ReferencedDecl(call->getImplicitObjectArgument());
    if (!object) return;
    for (size_t i = 0; i < n_; ++i)
      if (obligations_[i].frame_tasks && obligations_[i].spawner == object) {
        armed[i] = false;
        waited_[i] = true;
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
