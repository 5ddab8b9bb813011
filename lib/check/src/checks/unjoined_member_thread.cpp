/// tether-unjoined-member-thread: a thread a class owns in a member
/// (std::thread, a container of them, std::unique_ptr<std::thread>) that a
/// constructor can leave by a throw while it runs, or that the destructor does
/// not join on every path. Either way a joinable std::thread is destroyed:
/// std::terminate. Docs: docs/checks/unjoined-member-thread.md
#include <map>
#include <memory>
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
    std::vector<bool> escaped(n, false), joined_anywhere(n, false);
    std::vector<SourceLocation> started(n);
    const CXXDestructorDecl* dtor = nullptr;
    // "Never joined" is decided only when the TU sees every method: one
    // defined elsewhere may be the one that joins.
    bool all_visible = true;
    for (const CXXMethodDecl* m : rd->methods()) {
      const FunctionDecl* def = nullptr;
      if (!m->hasBody(def) || !def || !def->getBody()) {
        all_visible &= m->isImplicit() || m->isDeleted() || m->isDefaulted() || m->isPure();
        continue;
      }
      if (const auto* d = dyn_cast<CXXDestructorDecl>(def)) dtor = d;
      const bool ctor = isa<CXXConstructorDecl>(def);
      MemberFlow flow = Run(def, std::vector<bool>(n, false), ctor, &escaped);
      for (size_t i = 0; i < n; ++i) {
        joined_anywhere[i] = joined_anywhere[i] || flow.discharged_somewhere[i];
        if (started[i].isInvalid()) started[i] = flow.started_at[i];
        if (ctor && flow.throw_at[i].isValid()) ReportConstructorThrow(rd, def, i, flow);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (escaped[i] || started[i].isInvalid()) continue;
      const std::string name = members_[i].decl->getNameAsString();
      if (!joined_anywhere[i]) {
        if (!all_visible) continue;
        // Started, never joined or detached by the class, never handed on.
        Finding* f = diag(started[i], "thread member '" + name + "' of '" + rd->getNameAsString() +
                                          "' is started here but never joined or detached: "
                                          "its destructor destroys it joinable "
                                          "(std::terminate); join it in the destructor");
        if (f) note(f, members_[i].decl->getLocation(), "'" + name + "' is declared here");
        continue;
      }
      if (!dtor) continue;  // joined by a Stop() the owner calls: not decidable here
      MemberFlow flow = Run(dtor, std::vector<bool>(n, true), false, nullptr);
      if (!flow.discharged_somewhere[i] || !flow.armed_at_exit[i]) continue;
      Finding* f =
          diag(dtor->getLocation(),
               "the destructor of '" + rd->getNameAsString() + "' joins thread member '" + name +
                   "' on some paths only (a joinable std::thread destroyed calls "
                   "std::terminate); join it whenever it is joinable (if (" +
                   name + Dot(i) + "joinable()) " + name + Dot(i) + "join();)");
      if (!f) continue;
      f->function = DisplayName(dtor);
      note(f, flow.exit_at[i], "the destructor can end here with '" + name + "' still joinable");
      note(f, started[i], "'" + name + "' is started here");
    }
  }

 private:
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

  // A method called on this (implicitly or explicitly) whose every path
  // joins member i: the summary of one level of helper (Stop(), Join()).
  std::vector<bool> JoinsOnEveryPath(const CXXMethodDecl* m, unsigned depth) {
    const size_t n = members_.size();
    const FunctionDecl* def = nullptr;
    if (!m || depth > 2 || !m->hasBody(def) || !def || !def->getBody() ||
        isa<CXXConstructorDecl>(def) || isa<CXXDestructorDecl>(def))
      return std::vector<bool>(n, false);
    auto it = summaries_.find(def);
    if (it != summaries_.end()) return it->second;
    summaries_[def] = std::vector<bool>(n, false);  // recursion adds nothing
    MemberFlow flow = Run(def, std::vector<bool>(n, true), false, nullptr, depth + 1);
    std::vector<bool> joins(n);
    for (size_t i = 0; i < n; ++i) joins[i] = !flow.armed_at_exit[i];
    return summaries_[def] = joins;
  }

  // "May run" dataflow over def's CFG for the thread members. A constructor
  // starts with none running and reports calls that may throw while one runs.
  MemberFlow Run(const FunctionDecl* def, std::vector<bool> entry, bool ctor,
                 std::vector<bool>* escaped, unsigned depth = 0) {
    const size_t n = members_.size();
    MemberFlow out{std::vector<bool>(n, false),    std::vector<bool>(n, false),
                   std::vector<SourceLocation>(n), std::vector<SourceLocation>(n),
                   std::vector<SourceLocation>(n), std::vector<std::string>(n)};
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
      std::vector<bool> joins = JoinsOnEveryPath(call->getMethodDecl(), depth);
      for (size_t i = 0; i < joins.size(); ++i)
        if (joins[i]) {
          state[i] = false;
          out->discharged_somewhere[i] = true;
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
  std::map<const FunctionDecl*, std::vector<bool>> summaries_;
  std::set<const CXXRecordDecl*> done_;
  std::unique_ptr<ThrowSummary> throws_;
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
