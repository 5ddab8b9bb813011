/// tether-unjoined-member-thread: a thread a class owns in a member
/// (std::thread, a container of them, std::unique_ptr<std::thread>) that a
/// constructor can leave by a throw while it runs, or that the destructor does
/// not join on every path. Either way a joinable std::thread is destroyed:
/// std::terminate. Docs: docs/checks/unjoined-member-thread.md
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "../ast_util.hpp"
#include "../check_base.hpp"
#include "../may_throw.hpp"
#include "../obligation.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// What one pass over a method's CFG learned about the thread members.
struct MemberFlow {
  std::vector<bool> armed_at_exit;         // may still run when the method returns
  std::vector<bool> discharged_somewhere;  // joined or detached on some path
  std::vector<SourceLocation> exit_at;     // where an armed member reaches the exit
  std::vector<SourceLocation> started_at;  // the first start in the method
  std::vector<SourceLocation> throw_at;    // a throw while it runs (constructors)
  std::vector<std::string> thrower;
  std::set<const FieldDecl*> guards;  // members read by the branch conditions
};

class UnjoinedMemberThreadCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    if (ModelsThreads(model()))
      finder->addMatcher(cxxRecordDecl(isDefinition()).bind("class"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* rd = result.Nodes.getNodeAs<CXXRecordDecl>("class");
    // A class template is checked as written, once; not per instantiation.
    if (!IsClassAsWritten(rd, sm()) || !done_.insert(rd).second) return;
    members_.clear();
    arming_.clear();
    for (const FieldDecl* f : rd->fields()) {
      QualType t = f->getType();
      if (const TaskGroupModel* c = ContainerOfThreads(t, model())) {
        members_.push_back({f, nullptr, nullptr, c, false, {}, true, false});
      } else if (const TaskGroupModel* g = PointerToThread(t, model())) {
        members_.push_back({f, nullptr, nullptr, g, false, {}, false, true});
      } else if (const TaskGroupModel* g = GroupOf(t, model()); g && g->spawn_on_construct) {
        members_.push_back({f, nullptr, nullptr, g, false, {}, false, false});
      }
    }
    if (members_.empty()) return;
    arming_.assign(members_.size(), {nullptr, false});
    if (!throws_) throws_ = std::make_unique<ThrowSummary>(sm(), true);
    summaries_.clear();
    const size_t n = members_.size();
    std::vector<bool> escaped(n, false);
    std::vector<SourceLocation> started(n);
    std::vector<std::string> joined_in(n);  // a method that joins it, for the message
    const CXXDestructorDecl* dtor = nullptr;
    // A destructor that does not join is decided only when the TU sees every
    // method: one defined elsewhere may hand the thread on.
    bool all_visible = true;
    for (const CXXMethodDecl* m : rd->methods()) {
      const FunctionDecl* def = nullptr;
      if (!m->hasBody(def) || !def || !def->getBody()) {
        if (isa<CXXDestructorDecl>(m) && m->isUserProvided()) return;  // defined elsewhere
        all_visible &= m->isImplicit() || m->isDeleted() || m->isDefaulted() || m->isPure();
        continue;
      }
      if (const auto* d = dyn_cast<CXXDestructorDecl>(def)) dtor = d;
      const bool ctor = isa<CXXConstructorDecl>(def);
      MemberFlow flow = Run(def, std::vector<bool>(n, false), ctor, &escaped);
      for (size_t i = 0; i < n; ++i) {
        if (flow.discharged_somewhere[i] && joined_in[i].empty() && !isa<CXXDestructorDecl>(def))
          joined_in[i] = def->getNameAsString();
        if (started[i].isInvalid()) started[i] = flow.started_at[i];
        if (ctor && flow.throw_at[i].isValid()) ReportConstructorThrow(rd, def, i, flow);
      }
    }
    CheckDestruction(rd, dtor, all_visible, escaped, started, joined_in);
  }

 private:
  // What the destructor (written, or the implicit one) leaves of each member.
  void CheckDestruction(const CXXRecordDecl* rd, const CXXDestructorDecl* dtor, bool all_visible,
                        const std::vector<bool>& escaped,
                        const std::vector<SourceLocation>& started,
                        const std::vector<std::string>& joined_in) {
    const size_t n = members_.size();
    std::set<const FieldDecl*> thread_writes = WrittenByThreads(ThreadEntries(rd, model()));
    MemberFlow at_destruction{std::vector<bool>(n, true),
                              std::vector<bool>(n, false),
                              std::vector<SourceLocation>(n),
                              std::vector<SourceLocation>(n),
                              std::vector<SourceLocation>(n),
                              std::vector<std::string>(n),
                              {}};
    if (dtor) at_destruction = Run(dtor, std::vector<bool>(n, true), false, nullptr);
    for (size_t i = 0; i < n; ++i) {
      // A public member the class never starts may be started by its users
      // (`state->thread_ = std::thread(f)`): that start is the one to answer for.
      SourceLocation start = started[i];
      if (start.isInvalid() && members_[i].decl->getAccess() == AS_public)
        start = ExternalStart(members_[i]);
      if (escaped[i] || start.isInvalid() || !at_destruction.armed_at_exit[i] ||
          Detached(rd, members_[i].decl))
        continue;
      const std::string name = members_[i].decl->getNameAsString();
      if (!at_destruction.discharged_somewhere[i]) {
        if (!all_visible) continue;
        // The destructor (written or implicit) never joins it: any path that
        // destroys the object before the class's own join destroys it joinable.
        const std::string where = joined_in[i].empty() ? std::string("nothing joins or detaches it")
                                                       : "only '" + joined_in[i] + "' joins it";
        Finding* f = diag(start, "thread member '" + name + "' of '" + rd->getNameAsString() +
                                     "' is started here, but its destructor does not join "
                                     "it (" +
                                     where +
                                     "): an object destroyed first (an exception, an early "
                                     "return) destroys a joinable std::thread "
                                     "(std::terminate); join it in the destructor when it "
                                     "is joinable");
        if (f)
          note(f, dtor ? dtor->getLocation() : rd->getLocation(),
               dtor ? "the destructor, which leaves '" + name + "' joinable"
                    : "'" + rd->getNameAsString() + "' has no destructor of its own");
        continue;
      }
      // Joined on some paths: a finding when the guard that skips the join is
      // a member the thread changes itself (it clears `running_` when it
      // stops on its own: the destructor then skips a joinable thread). A
      // guard only the owner sets follows the start (`if (active_) join`).
      const FieldDecl* guard = nullptr;
      for (const FieldDecl* g : at_destruction.guards)
        if (thread_writes.count(g)) guard = g;
      if (!guard) continue;
      Finding* f =
          diag(dtor->getLocation(),
               "the destructor of '" + rd->getNameAsString() + "' joins thread member '" + name +
                   "' only while '" + guard->getNameAsString() +
                   "' says so, and the thread changes '" + guard->getNameAsString() +
                   "' itself: once it stops on its own the join is skipped and a joinable "
                   "std::thread is destroyed (std::terminate); join it whenever it is joinable "
                   "(if (" +
                   name + Dot(i) + "joinable()) " + name + Dot(i) + "join();)");
      if (!f) continue;
      f->function = DisplayName(dtor);
      note(f, at_destruction.exit_at[i],
           "the destructor can end here with '" + name + "' still joinable");
      note(f, start, "'" + name + "' is started here");
    }
  }

  // Where code outside the class starts member m's thread (through another
  // object: `state->t = std::thread(f)`), when no code outside joins,
  // detaches or takes it. Found by one walk of the TU, made when first needed.
  SourceLocation ExternalStart(const Obligation& m) {
    if (!outside_) {
      outside_.emplace();
      OutsideUses visitor(this);
      visitor.TraverseDecl(ast().getTranslationUnitDecl());
    }
    auto it = outside_->find(cast<FieldDecl>(m.decl));
    if (it == outside_->end()) return {};
    for (const MemberExpr* use : it->second)
      if (Classify(ast(), use, m) != ObligationEvent::kArm &&
          Classify(ast(), use, m) != ObligationEvent::kNone)
        return {};
    for (const MemberExpr* use : it->second)
      if (Classify(ast(), use, m) == ObligationEvent::kArm) return use->getBeginLoc();
    return {};
  }

  // Uses of thread members through other objects than this, outside system headers.
  class OutsideUses : public RecursiveASTVisitor<OutsideUses> {
   public:
    explicit OutsideUses(UnjoinedMemberThreadCheck* check) : check_(check) {}
    bool shouldVisitTemplateInstantiations() const { return false; }
    bool VisitMemberExpr(MemberExpr* me) {
      const auto* field = dyn_cast<FieldDecl>(me->getMemberDecl());
      if (!field || MemberOfThis(me) || check_->sm().isInSystemHeader(me->getBeginLoc()))
        return true;
      const TaskGroupModel* g = GroupOf(field->getType(), check_->model());
      if ((g && g->spawn_on_construct) || ContainerOfThreads(field->getType(), check_->model()) ||
          PointerToThread(field->getType(), check_->model()))
        (*check_->outside_)[field].push_back(me);
      return true;
    }

   private:
    UnjoinedMemberThreadCheck* check_;
  };

  // Members the threads' own code assigns (`running_ = false`, a store).
  std::set<const FieldDecl*> WrittenByThreads(const std::vector<const FunctionDecl*>& entries) {
    std::set<const FieldDecl*> out;
    std::set<const FunctionDecl*> seen;
    std::function<void(const Stmt*, unsigned)> walk = [&](const Stmt* s, unsigned depth) {
      if (!s || isa<LambdaExpr>(s)) return;
      if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) {
        if (const FieldDecl* f = MemberOfThis(bo->getLHS())) out.insert(f);
      } else if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s);
                 op && op->getOperator() == OO_Equal && op->getNumArgs() == 2) {
        if (const FieldDecl* f = MemberOfThis(op->getArg(0))) out.insert(f);
      } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
        const std::string m = mc->getMethodDecl()->getNameAsString();
        if (m == "store" || m == "exchange")
          if (const FieldDecl* f = MemberOfThis(mc->getImplicitObjectArgument())) out.insert(f);
        const FunctionDecl* def = nullptr;
        if (isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts()) && depth < 2 &&
            mc->getMethodDecl()->hasBody(def) && def && seen.insert(def).second)
          walk(def->getBody(), depth + 1);
      }
      for (const Stmt* child : s->children()) walk(child, depth);
    };
    for (const FunctionDecl* entry : entries) walk(entry->getBody(), 0);
    return out;
  }

  // The class itself detaches the member (in a constructor, the destructor or
  // a method of its own): a decision, for tether-detached-task to ask the
  // reason of. A public detach() wrapper leaves the decision to its callers,
  // and the destructor must still handle the thread they did not detach.
  static bool Detached(const CXXRecordDecl* rd, const ValueDecl* member) {
    std::function<bool(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s) return false;
      if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
          mc && mc->getMethodDecl() && mc->getMethodDecl()->getNameAsString() == "detach" &&
          MemberOfThis(mc->getImplicitObjectArgument()) == member)
        return true;
      for (const Stmt* child : s->children())
        if (walk(child)) return true;
      return false;
    };
    for (const CXXMethodDecl* m : rd->methods()) {
      const FunctionDecl* def = nullptr;
      const bool own =
          isa<CXXConstructorDecl>(m) || isa<CXXDestructorDecl>(m) || m->getAccess() != AS_public;
      if (own && m->hasBody(def) && def && walk(def->getBody())) return true;
    }
    return false;
  }

  std::string Dot(size_t i) const { return members_[i].pointer ? "->" : "."; }

  void ReportConstructorThrow(const CXXRecordDecl* rd, const FunctionDecl* ctor, size_t i,
                              const MemberFlow& flow) {
    const std::string name = members_[i].decl->getNameAsString();
    const std::string what = members_[i].container ? "the threads already in '" + name + "'"
                                                   : "thread member '" + name + "'";
    Finding* f = diag(flow.started_at[i].isValid() ? flow.started_at[i] : ctor->getLocation(),
                      "a throw in the constructor of '" + rd->getNameAsString() + "' after " +
                          (members_[i].container ? "a thread is put into '" + name + "'"
                                                 : "'" + name + "' is started") +
                          " destroys " + what +
                          " joinable (no destructor runs for a throwing constructor: "
                          "std::terminate); stop and join them before the exception leaves, "
                          "or start the threads last");
    if (!f) return;
    f->function = DisplayName(ctor);
    note(f, flow.throw_at[i],
         (flow.thrower[i].empty() ? std::string("a throw") : flow.thrower[i]) + " here while '" +
             name + "' runs");
  }

  // What a method called on this (Stop(), Join()) does to the members: the
  // ones it joins on every path, on some path, and the members its branches
  // test. Two calls deep.
  struct Summary {
    std::vector<bool> all, some;
    std::set<const FieldDecl*> guards;
  };
  Summary Summarise(const CXXMethodDecl* m, unsigned depth) {
    const size_t n = members_.size();
    const FunctionDecl* def = nullptr;
    if (!m || depth > 2 || !m->hasBody(def) || !def || !def->getBody() ||
        isa<CXXConstructorDecl>(def) || isa<CXXDestructorDecl>(def))
      return {std::vector<bool>(n, false), std::vector<bool>(n, false), {}};
    auto it = summaries_.find(def);
    if (it != summaries_.end()) return it->second;
    // A recursive call adds nothing.
    summaries_[def] = {std::vector<bool>(n, false), std::vector<bool>(n, false), {}};
    MemberFlow flow = Run(def, std::vector<bool>(n, true), false, nullptr, depth + 1);
    Summary out{std::vector<bool>(n), flow.discharged_somewhere, flow.guards};
    for (size_t i = 0; i < n; ++i) out.all[i] = !flow.armed_at_exit[i];
    return summaries_[def] = out;
  }

  // "May run" dataflow over def's CFG for the thread members. A constructor
  // starts with none running and reports calls that may throw while one runs.
  MemberFlow Run(const FunctionDecl* def, std::vector<bool> entry, bool ctor,
                 std::vector<bool>* escaped, unsigned depth = 0) {
    const size_t n = members_.size();
    MemberFlow out{std::vector<bool>(n, false),
                   std::vector<bool>(n, false),
                   std::vector<SourceLocation>(n),
                   std::vector<SourceLocation>(n),
                   std::vector<SourceLocation>(n),
                   std::vector<std::string>(n),
                   {}};
    CFG::BuildOptions opts;
    opts.AddImplicitDtors = true;
    opts.AddInitializers = true;
    opts.setAllAlwaysAdd();
    std::unique_ptr<CFG> cfg = CFG::buildCFG(def, def->getBody(), &ast(), opts);
    if (!cfg) return out;
    std::vector<std::vector<bool>> in(cfg->getNumBlockIDs());
    std::vector<bool> seen(cfg->getNumBlockIDs(), false);
    in[cfg->getEntry().getBlockID()] = entry;
    seen[cfg->getEntry().getBlockID()] = true;
    // Forward "may run" to a fixpoint, then one pass that records.
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<const CFGBlock*> work{&cfg->getEntry()};
      std::vector<bool> queued(cfg->getNumBlockIDs(), false);
      if (pass == 1) {
        work.clear();
        for (const CFGBlock* b : *cfg)
          if (seen[b->getBlockID()]) work.push_back(b);
      }
      while (!work.empty()) {
        const CFGBlock* b = work.back();
        work.pop_back();
        queued[b->getBlockID()] = false;
        std::vector<bool> state = in[b->getBlockID()];
        for (const CFGElement& e : *b) Step(e, state, ctor, pass == 1, escaped, depth, &out);
        if (pass == 1) {
          if (b->succ_size() == 1 && *b->succ_begin() == &cfg->getExit())
            for (size_t i = 0; i < n; ++i)
              if (state[i] && !out.armed_at_exit[i]) {
                out.armed_at_exit[i] = true;
                const Stmt* t = b->getTerminatorStmt();
                out.exit_at[i] = t ? t->getBeginLoc() : def->getBody()->getEndLoc();
                for (const CFGElement& e : *b)
                  if (auto cs = e.getAs<CFGStmt>(); cs && isa<ReturnStmt>(cs->getStmt()))
                    out.exit_at[i] = cs->getStmt()->getBeginLoc();
              }
          continue;
        }
        if (b->succ_size() == 2) Guards(b->getLastCondition(), &out.guards);
        unsigned running_branch = 0;
        int tested = -1;
        // The condition the branch tests (in `a && b`, each part's own block).
        if (const ValueDecl* d = TestedThread(b->getLastCondition(), &running_branch))
          for (size_t i = 0; i < n; ++i)
            if (members_[i].decl == d) tested = static_cast<int>(i);
        unsigned k = 0;
        for (const CFGBlock* succ : b->succs()) {
          const unsigned branch = k++;
          if (!succ) continue;
          std::vector<bool> next = state;
          if (tested >= 0 && b->succ_size() == 2 && branch != running_branch)
            next[tested] = false;  // not joinable on this branch
          std::vector<bool>& target = in[succ->getBlockID()];
          bool changed = !seen[succ->getBlockID()];
          if (changed) target.assign(n, false);
          seen[succ->getBlockID()] = true;
          for (size_t i = 0; i < n; ++i)
            if (next[i] && !target[i]) target[i] = changed = true;
          if (changed && !queued[succ->getBlockID()]) {
            queued[succ->getBlockID()] = true;
            work.push_back(succ);
          }
        }
      }
    }
    return out;
  }

  static void Guards(const Stmt* cond, std::set<const FieldDecl*>* out) {
    if (!cond) return;
    if (const auto* me = dyn_cast<MemberExpr>(cond))
      if (const FieldDecl* f = MemberOfThis(me)) out->insert(f);
    for (const Stmt* child : cond->children()) Guards(child, out);
  }

  void Step(const CFGElement& elem, std::vector<bool>& state, bool ctor, bool report,
            std::vector<bool>* escaped, unsigned depth, MemberFlow* out) {
    const Stmt* s = nullptr;
    if (auto init = elem.getAs<CFGInitializer>()) {
      const CXXCtorInitializer* ci = init->getInitializer();
      for (size_t i = 0; i < members_.size(); ++i)
        if (ci->getMember() == members_[i].decl && ci->getInit() &&
            StartsThread(ci->getInit(), *members_[i].group)) {
          state[i] = true;
          if (report && out->started_at[i].isInvalid())
            out->started_at[i] = ci->getSourceLocation();
        }
      return;
    }
    if (auto cs = elem.getAs<CFGStmt>()) s = cs->getStmt();
    if (!s) return;
    if (const auto* me = dyn_cast<MemberExpr>(s)) {
      const FieldDecl* field = MemberOfThis(me);
      for (size_t i = 0; i < members_.size(); ++i) {
        if (members_[i].decl != field) continue;
        ObligationEvent e = Classify(ast(), me, members_[i]);
        if (e == ObligationEvent::kArm) {
          arming_[i] = {EnclosingCall(me), state[i]};
          state[i] = true;
          if (report && out->started_at[i].isInvalid()) out->started_at[i] = me->getBeginLoc();
        } else if (e == ObligationEvent::kDischarge) {
          state[i] = false;
          out->discharged_somewhere[i] = true;
        } else if (e == ObligationEvent::kEscape) {
          state[i] = false;
          if (escaped) (*escaped)[i] = true;
        }
      }
      return;
    }
    const auto* call = dyn_cast<CXXMemberCallExpr>(s);
    if (call && isa<CXXThisExpr>(call->getImplicitObjectArgument()->IgnoreParenImpCasts())) {
      Summary callee = Summarise(call->getMethodDecl(), depth);
      out->guards.insert(callee.guards.begin(), callee.guards.end());
      for (size_t i = 0; i < callee.all.size(); ++i) {
        if (callee.all[i]) state[i] = false;
        if (callee.some[i]) out->discharged_somewhere[i] = true;
      }
    }
    if (!ctor || !report) return;
    bool any = false;
    for (size_t i = 0; i < members_.size(); ++i) any |= state[i] && out->throw_at[i].isInvalid();
    if (!any) return;
    std::string why;
    bool throws = false;
    if (const auto* th = dyn_cast<CXXThrowExpr>(s)) {
      throws = th->getSubExpr() != nullptr && !InsideTry(ast(), s);
    } else if (isa<CallExpr, CXXConstructExpr>(s)) {
      throws = throws_->MayThrow(cast<Expr>(s), &why) && !InsideTry(ast(), s);
    }
    if (!throws) return;
    for (size_t i = 0; i < members_.size(); ++i)
      if (state[i] && out->throw_at[i].isInvalid() && !StartOf(s, i)) {
        out->throw_at[i] = s->getBeginLoc();
        out->thrower[i] = why;
      }
  }

  // s is (part of) the start that armed member i while it held no thread:
  // `t_ = std::thread(...)` or the first `workers_.emplace_back(...)` throws
  // before i runs anything. A later iteration's emplace_back is not.
  bool StartOf(const Stmt* s, size_t i) {
    const auto [call, armed_before] = arming_[i];
    if (!call || armed_before) return false;
    for (int hops = 0; s && hops < 8; ++hops) {
      if (s == call) return true;
      DynTypedNodeList parents = ast().getParents(*s);
      s = parents.empty() ? nullptr : parents[0].get<Stmt>();
    }
    return false;
  }

  // The call a member reference is the object or an argument of.
  const Stmt* EnclosingCall(const Stmt* s) {
    for (int hops = 0; s && hops < 4; ++hops) {
      DynTypedNodeList parents = ast().getParents(*s);
      s = parents.empty() ? nullptr : parents[0].get<Stmt>();
      if (s && isa<CallExpr>(s)) return s;
    }
    return nullptr;
  }

  std::vector<Obligation> members_;
  // Per member, the latest start seen by Step and whether it already ran.
  std::vector<std::pair<const Stmt*, bool>> arming_;
  std::map<const FunctionDecl*, Summary> summaries_;
  std::set<const CXXRecordDecl*> done_;
  std::unique_ptr<ThrowSummary> throws_;
  std::optional<std::map<const FieldDecl*, std::vector<const MemberExpr*>>> outside_;
};

}  // namespace

CheckRegistration UnjoinedMemberThreadCheckRegistration() {
  return RegisterCheck<UnjoinedMemberThreadCheck>(
      {"tether-unjoined-member-thread",
       "A thread a class owns is destroyed joinable: a throwing constructor, or a destructor "
       "that joins it on some paths only.",
       "A std::thread member (or a container of them, or a unique_ptr to one) must be joined, "
       "handed over or deliberately detached before it is destroyed. A constructor that throws "
       "after starting it runs no destructor; a destructor that joins it only on some paths, or "
       "a class that never joins it, destroys it joinable: std::terminate.",
       "Join the member in the destructor whenever it is joinable; in a constructor, start "
       "threads last, or catch, stop and join before rethrowing.",
       "high"});
}

}  // namespace tether::check
