/// tether-thread-member-order: a member that joins its threads only when it
/// is destroyed (std::jthread, a container of them, a project's own
/// auto-joining thread) is declared before members those threads use.
/// Members are destroyed in reverse order of declaration, so the mutex,
/// condition variable or queue the threads use is destroyed first, while
/// they may still run. Docs: docs/checks/thread-member-order.md
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "../ast_util.hpp"
#include "../check_base.hpp"
#include "../obligation.hpp"
#include "../pool_tasks.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// A member whose destruction matters to a thread still using it: not a
// scalar or pointer, and not trivially destroyed (a mutex is named: its
// destructor is trivial in libstdc++, but a thread inside lock() or a
// unique_lock's destructor touches it).
bool DestructionMatters(QualType t) {
  t = t.getCanonicalType();
  if (t->isReferenceType() || t->isScalarType()) return false;
  const std::string name = RecordName(t);
  if (name == "std::mutex" || name == "std::recursive_mutex" || name == "std::shared_mutex" ||
      name == "std::timed_mutex")
    return true;
  return t.isDestructedType() != QualType::DK_none;
}

class ThreadMemberOrderCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    if (!ModelsThreads(model())) return;
    finder->addMatcher(cxxRecordDecl(isDefinition()).bind("class"), this);
    finder->addMatcher(
        varDecl(isDefinition(), hasGlobalStorage(), unless(hasThreadStorageDuration()))
            .bind("static"),
        this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    if (const auto* var = result.Nodes.getNodeAs<VarDecl>("static")) return CheckStatic(var);
    const auto* rd = result.Nodes.getNodeAs<CXXRecordDecl>("class");
    if (!IsClassAsWritten(rd, sm()) || !done_.insert(rd).second) return;
    rd_ = rd;
    // The members that join their threads only when destroyed: the class's
    // own, and those of a class it owns (a pimpl's pool).
    std::vector<MemberPath> pools = OwnedPools(rd), unowned;
    for (const FieldDecl* f : rd->fields())
      if (ReachesUnownedPool(f)) unowned.push_back({f});
    if (pools.empty() && unowned.empty()) return;
    // The code those threads run: the class's thread entries, and the tasks
    // its methods hand to a pool (`pool.add([this] {...})`).
    std::vector<const Stmt*> code;
    for (const FunctionDecl* entry : ThreadEntries(rd, model())) code.push_back(entry->getBody());
    for (const CXXMethodDecl* m : rd->methods()) {
      const FunctionDecl* def = nullptr;
      if (m->hasBody(def) && def) Tasks(def->getBody(), pools, &code);
    }
    const CXXDestructorDecl* dtor = rd->getDestructor();
    const FunctionDecl* dtor_def = nullptr;
    if (dtor && dtor->isUserProvided() && !dtor->hasBody(dtor_def))
      return;  // defined in another TU: it may join them
    std::set<MemberPath> reported;
    std::map<MemberPath, SourceLocation> used;  // by the threads, first use
    std::set<const FunctionDecl*> seen;
    for (const Stmt* body : code) Uses(body, 0, &seen, &used);
    for (const MemberPath& pool : pools) {
      if (dtor_def && JoinedIn(dtor_def->getBody(), pool, rd, 0)) continue;
      if (pool.size() > 1 && OwnerStops(pool)) continue;
      std::vector<MemberPath> later;
      for (const auto& [path, at] : used)
        if (DestroyedBefore(path, pool)) later.push_back(path);
      if (later.empty()) continue;
      std::sort(later.begin(), later.end(),
                [&](const MemberPath& a, const MemberPath& b) { return Key(a) < Key(b); });
      bool local = pool.size() == 1;
      for (const MemberPath& p : later) local &= p.size() == 1;
      reported.insert(pool);
      if (local)
        Report(rd, pool.front(), later, used, dtor_def);
      else
        ReportOwned(rd, pool, later, used, dtor_def);
    }
    if (dtor_def) CheckHandOffs(dtor_def, pools, unowned, reported);
  }

 private:
  // The same order one level up: an object with static storage duration
  // whose threads only its destructor joins is destroyed after main returns,
  // with the other static objects, in an order across files that nobody
  // controls; its threads run on while those they use are destroyed.
  // Stockfish's global ThreadPool (8dcb4bc: "threads are still running when
  // the ThreadPool destructor is called, after main() returns"). Reported
  // when the class is whole in this TU and no other method joins every
  // member the destructor joins through (a stop the program can call before
  // main returns is the fix; a pool's resize that deletes a few is not one).
  void CheckStatic(const VarDecl* var) {
    const SourceLocation at = sm().getExpansionLoc(var->getLocation());
    if (sm().isInSystemHeader(at) || !sm().isInMainFile(at)) return;
    const CXXRecordDecl* rd = var->getType()->getAsCXXRecordDecl();
    if (!IsClassAsWritten(rd, sm()) || !rd->hasDefinition()) return;
    rd = rd->getDefinition();
    const CXXDestructorDecl* dtor = rd->getDestructor();
    const FunctionDecl* dtor_def = nullptr;
    if (!dtor || !dtor->isUserProvided() || !dtor->hasBody(dtor_def)) return;
    const std::set<const FieldDecl*> joined = JoinedMembers(rd, dtor_def);
    if (joined.empty()) return;
    for (const CXXMethodDecl* m : rd->methods()) {
      const FunctionDecl* def = nullptr;
      if (m->isImplicit() || isa<CXXDestructorDecl, CXXConstructorDecl>(m) || m->isDeleted() ||
          m->isDefaulted())
        continue;
      if (!m->hasBody(def) || !def) return;  // defined elsewhere: it may stop them
      const std::set<const FieldDecl*> stops = JoinedMembers(rd, def);
      if (std::includes(stops.begin(), stops.end(), joined.begin(), joined.end())) return;
    }
    if (!statics_.insert(dtor_def).second) return;
    const std::string name = var->getNameAsString(), cls = rd->getNameAsString();
    Finding* f = diag(
        dtor_def->getLocation(),
        "only the destructor of '" + cls + "' joins its threads, and '" + name +
            "' has static storage duration: it is destroyed after main returns, with the other "
            "static objects, in an order across files that is unspecified, so its threads may "
            "run on while objects they use are destroyed; give '" +
            cls + "' a stop that joins them and call it before main returns");
    if (f) f->function = DisplayName(dtor_def);
    if (f) note(f, var->getLocation(), "'" + name + "' is defined here");
  }

  // Where a path's object is destroyed, as a key that orders destruction
  // backwards: members in reverse order of declaration, an owned class's
  // members when its owner is (before the owner's own pointer).
  std::pair<int, int> Key(const MemberPath& p) const {
    int outer = p.front()->getFieldIndex();
    return {outer, p.size() > 1 ? static_cast<int>(p[1]->getFieldIndex()) : -1};
  }

  // The object at path is destroyed while pool's threads may still use it:
  // it matters to them and goes before pool is destroyed (and joins).
  bool DestroyedBefore(const MemberPath& path, const MemberPath& pool) const {
    if (path == pool || (path.front() == pool.front() && path.size() == 1)) return false;
    if (path.size() > 1 && (!OwnedRecord(path.front()) || OwnedRecord(path.front()) == rd_))
      return false;
    const FieldDecl* leaf = path.back();
    if (JoinsOnDestruction(leaf->getType()) || !DestructionMatters(leaf->getType())) return false;
    return Key(path) > Key(pool);
  }

  // A member that reaches a pool the class does not own: a raw pointer, a
  // reference or a std::shared_ptr to a class that joins its threads when it
  // is destroyed. Its tasks may run after the object is gone.
  static bool ReachesUnownedPool(const FieldDecl* f) {
    QualType t = f->getType().getCanonicalType();
    if (t->isPointerType() || t->isReferenceType()) {
      t = t->getPointeeType();
    } else if (const auto* spec =
                   dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl());
               spec && QualifiedName(spec->getSpecializedTemplate()) == "std::shared_ptr" &&
               spec->getTemplateArgs().size() > 0 &&
               spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type) {
      t = spec->getTemplateArgs()[0].getAsType();
    } else {
      return false;
    }
    return t->getAsCXXRecordDecl() && JoinsOnDestruction(t);
  }

  // A task handed off by the destructor: the destructor gives a pool a task
  // that uses this object's members and returns without waiting for it (the
  // call's result dropped, the pool not stopped in the destructor). The task
  // runs on the pool's thread after the destructor's body: while the member
  // that owns the pool is being destroyed (g3log's ~LogWorker sent
  // `[this] { _pimpl->_sinks.clear(); }` to `_pimpl->_bg`), after members the
  // pool outlives are destroyed, or, for a pool the class does not own, after
  // the object is gone.
  void CheckHandOffs(const FunctionDecl* dtor, const std::vector<MemberPath>& pools,
                     const std::vector<MemberPath>& unowned, const std::set<MemberPath>& reported) {
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s || isa<LambdaExpr>(s)) return;
      for (const Stmt* child : s->children()) walk(child);
      const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
      if (!mc || !ResultDropped(mc)) return;
      const MemberPath pool = PathOf(mc->getImplicitObjectArgument());
      const bool owned = std::find(pools.begin(), pools.end(), pool) != pools.end();
      if (pool.empty() || reported.count(pool) ||
          (!owned && std::find(unowned.begin(), unowned.end(), pool) == unowned.end()) ||
          JoinedIn(dtor->getBody(), pool, rd_, 0))
        return;
      for (const Expr* arg : mc->arguments()) {
        const LambdaExpr* lambda = LambdaArgument(arg);
        if (!lambda) continue;
        std::map<MemberPath, SourceLocation> used;
        std::set<const FunctionDecl*> seen;
        Uses(lambda->getBody(), 0, &seen, &used);
        for (const auto& [path, at] : used) {
          // Owned: what is destroyed before the pool drains its queue, or
          // the member whose destruction drains it (a pimpl).
          const bool dies = !owned || DestroyedBefore(path, pool) ||
                            (pool.size() > 1 && path.size() == 1 && path == MemberPath{pool[0]});
          if (!dies) continue;
          ReportHandOff(dtor, mc, pool, path, at, owned);
          return;
        }
      }
    };
    walk(dtor->getBody());
  }

  // The call is a statement of its own: nothing keeps its result (a future,
  // a token) to wait on.
  bool ResultDropped(const Expr* call) {
    const Stmt* s = call;
    for (;;) {
      DynTypedNodeList parents = ast().getParents(*s);
      if (parents.empty()) return false;
      const Stmt* parent = parents[0].get<Stmt>();
      if (!parent) return false;
      if (isa<CompoundStmt>(parent)) return true;
      if (!isa<ExprWithCleanups, ImplicitCastExpr, CXXBindTemporaryExpr, MaterializeTemporaryExpr,
               ParenExpr>(parent))
        return false;
      s = parent;
    }
  }

  void ReportHandOff(const FunctionDecl* dtor, const CXXMemberCallExpr* call,
                     const MemberPath& pool, const MemberPath& path, SourceLocation at,
                     bool owned) {
    const std::string name = Spelled(pool);
    const std::string member = Spelled(path);
    const std::string when =
        !owned ? "after the object is gone ('" + name + "' is not the object's to stop)"
        : path.size() == 1 && pool.size() > 1 && path.front() == pool.front()
            ? "while '" + member + "', whose destruction stops '" + name + "', is being destroyed"
            : "after '" + member + "' is destroyed (members go in reverse order of declaration)";
    Finding* f = diag(call->getExprLoc(),
                      "the destructor of '" + rd_->getNameAsString() + "' hands '" + name +
                          "' a task that uses '" + member +
                          "' and returns without waiting for it: the task runs on the pool's "
                          "thread " +
                          when + "; wait for the task (or stop '" + name +
                          "') before the destructor returns");
    if (!f) return;
    f->function = DisplayName(dtor);
    note(f, at, "the task uses '" + member + "' here");
  }

  // Tasks handed to a pool: a lambda given to a method called on a pool's path.
  void Tasks(const Stmt* s, const std::vector<MemberPath>& pools, std::vector<const Stmt*>* code) {
    if (!s) return;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s)) {
      const MemberPath object = PathOf(mc->getImplicitObjectArgument());
      if (!object.empty() && std::find(pools.begin(), pools.end(), object) != pools.end())
        for (const Expr* arg : mc->arguments())
          if (const LambdaExpr* lambda = LambdaArgument(arg)) code->push_back(lambda->getBody());
    }
    for (const Stmt* child : s->children()) Tasks(child, pools, code);
  }

  static std::string Names(const std::vector<MemberPath>& later) {
    std::string names;
    for (size_t k = 0; k < later.size() && k < 3; ++k)
      names +=
          (k ? (k + 1 == later.size() || k == 2 ? "' and '" : "', '") : "'") + Spelled(later[k]);
    names += "'";
    if (later.size() > 3) names += " (and " + std::to_string(later.size() - 3) + " more)";
    return names;
  }

  void Report(const CXXRecordDecl* rd, const FieldDecl* member,
              const std::vector<MemberPath>& later,
              const std::map<MemberPath, SourceLocation>& used, const FunctionDecl* dtor) {
    const std::string name = member->getNameAsString();
    const bool one = later.size() == 1;
    Finding* f =
        diag(member->getLocation(),
             "'" + name + "' joins its threads only when it is destroyed, but it is " +
                 "declared before " + Names(later) + ", which the threads use: members are " +
                 "destroyed in reverse order of declaration, so " + (one ? "it is" : "they are") +
                 " destroyed while the threads may still run; declare '" + name +
                 "' after the members its threads use, or join its threads in the "
                 "destructor of '" +
                 rd->getNameAsString() + "'");
    if (!f) return;
    f->function = rd->getNameAsString();
    note(f, used.at(later.front()), "a thread uses '" + Spelled(later.front()) + "' here");
    note(f, dtor ? dtor->getLocation() : rd->getLocation(),
         dtor ? "the destructor ends without joining '" + name + "'"
              : "'" + rd->getNameAsString() + "' has no destructor of its own");
  }

  // A pool reached through an object the class owns (a pimpl), or tasks that
  // use members of both: the class's destructor is the one place to stop the
  // pool before anything its tasks use is destroyed.
  void ReportOwned(const CXXRecordDecl* rd, const MemberPath& pool,
                   const std::vector<MemberPath>& later,
                   const std::map<MemberPath, SourceLocation>& used, const FunctionDecl* dtor) {
    const std::string name = Spelled(pool);
    const std::string stopper = Stopper(rd, pool);
    const std::string cls = rd->getNameAsString();
    Finding* f =
        diag(dtor ? dtor->getLocation() : pool.back()->getLocation(),
             (dtor ? "the destructor of '" + cls + "' does not stop '" + name + "'"
                   : "'" + cls + "' has no destructor to stop '" + name + "'") +
                 ", which joins its threads only when it is destroyed: " + Names(later) +
                 ", which its tasks use, " + (later.size() == 1 ? "is" : "are") +
                 " destroyed before it (members go in reverse order of declaration), while the "
                 "tasks may still run; stop '" +
                 name + "' first in the destructor" +
                 (stopper.empty() ? "" : ", as '" + stopper + "' does"));
    if (!f) return;
    f->function = dtor ? DisplayName(dtor) : cls;
    note(f, used.at(later.front()), "a task uses '" + Spelled(later.front()) + "' here");
    note(f, pool.back()->getLocation(),
         "'" + pool.back()->getNameAsString() + "' is declared here, before '" +
             later.front().back()->getNameAsString() + "'");
  }

  // The owned class's own destructor stops its pool before its members go
  // (g3log's `~LogWorkerImpl() { _bg.reset(); }`), or is defined elsewhere.
  bool OwnerStops(const MemberPath& pool) {
    const CXXRecordDecl* owned = OwnedRecord(pool.front());
    const CXXDestructorDecl* dtor = owned ? owned->getDestructor() : nullptr;
    const FunctionDecl* def = nullptr;
    if (!dtor || !dtor->isUserProvided()) return false;
    if (!dtor->hasBody(def) || !def) return true;
    return JoinedIn(def->getBody(), {pool[1]}, owned, 0);
  }

  // A method of the class (not the destructor) that stops the pool.
  std::string Stopper(const CXXRecordDecl* rd, const MemberPath& pool) {
    for (const CXXMethodDecl* m : rd->methods()) {
      const FunctionDecl* def = nullptr;
      if (!isa<CXXDestructorDecl>(m) && m->hasBody(def) && def &&
          JoinedIn(def->getBody(), pool, rd, 1))
        return m->getNameAsString();
    }
    return "";
  }

  // The members a thread's code uses (through this), following calls of the
  // class's own methods on this two deep.
  void Uses(const Stmt* s, unsigned depth, std::set<const FunctionDecl*>* seen,
            std::map<MemberPath, SourceLocation>* used) {
    if (!s || isa<LambdaExpr>(s)) return;
    if (const auto* me = dyn_cast<MemberExpr>(s)) {
      if (MemberPath path = PathOf(me); !path.empty()) used->try_emplace(path, me->getExprLoc());
    } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s)) {
      const FunctionDecl* def = nullptr;
      if (isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts()) && depth < 2 &&
          mc->getMethodDecl() && mc->getMethodDecl()->getParent() == rd_ &&
          mc->getMethodDecl()->hasBody(def) && def && seen->insert(def).second)
        Uses(def->getBody(), depth + 1, seen, used);
    }
    for (const Stmt* child : s->children()) Uses(child, depth, seen, used);
  }

  // The destructor stops pool's threads before it ends: join() on it (or on
  // each element), a pool's stop, or clear()/reset() that destroys them
  // there; in a method of the class it calls on this, two deep.
  bool JoinedIn(const Stmt* s, const MemberPath& pool, const CXXRecordDecl* rd, unsigned depth) {
    if (!s || isa<LambdaExpr>(s)) return false;
    if (const auto* loop = dyn_cast<CXXForRangeStmt>(s);
        loop && PathOf(loop->getRangeInit()) == pool && JoinsEach(loop, {"join"}))
      return true;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
      static const std::set<std::string> ends = {
          "join", "clear",    "reset", "pop_back",  "resize", "erase", "stop",
          "wait", "shutdown", "await", "terminate", "close",  "quit",  "request_stop"};
      if (PathOf(mc->getImplicitObjectArgument()) == pool &&
          ends.count(mc->getMethodDecl()->getNameAsString()))
        return true;
      const FunctionDecl* def = nullptr;
      if (isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts()) && depth < 2 &&
          mc->getMethodDecl()->getParent() == rd && mc->getMethodDecl()->hasBody(def) && def &&
          JoinedIn(def->getBody(), pool, rd, depth + 1))
        return true;
    }
    for (const Stmt* child : s->children())
      if (JoinedIn(child, pool, rd, depth)) return true;
    return false;
  }

  const CXXRecordDecl* rd_ = nullptr;
  std::set<const CXXRecordDecl*> done_;
  std::set<const FunctionDecl*> statics_;
};

}  // namespace

CheckRegistration ThreadMemberOrderCheckRegistration() {
  return RegisterCheck<ThreadMemberOrderCheck>(
      {"tether-thread-member-order",
       "A member that joins its threads on destruction (std::jthread) is declared before "
       "members the threads use: they are destroyed first, while the threads run.",
       "Members are destroyed in reverse order of declaration. A std::jthread (or a container of "
       "them, or an auto-joining thread class) declared before the mutex, condition variable or "
       "queue its thread uses joins only after those are destroyed: the thread, still running, "
       "uses destroyed objects.",
       "Declare the thread member after the members its thread uses, or join it in the "
       "destructor.",
       "high"});
}

}  // namespace tether::check
