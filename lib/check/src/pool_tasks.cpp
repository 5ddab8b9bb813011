// Members as code reaches them, owned pools and the tasks handed to them
// (pool_tasks.hpp).
#include "pool_tasks.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "ast_util.hpp"
#include "blocking.hpp"
#include "obligation.hpp"

namespace tether::check {

using namespace clang;

MemberPath PathOf(const Expr* e) {
  MemberPath path;
  while (e) {
    e = e->IgnoreParenImpCasts();
    if (isa<CXXThisExpr>(e)) {
      std::reverse(path.begin(), path.end());
      if (path.size() > 2) path.resize(2);
      return path;
    }
    if (const auto* arrow = dyn_cast<CXXOperatorCallExpr>(e);
        arrow && arrow->getOperator() == OO_Arrow) {
      e = arrow->getArg(0);
      continue;
    }
    const auto* me = dyn_cast<MemberExpr>(e);
    const auto* f = me ? dyn_cast<FieldDecl>(me->getMemberDecl()) : nullptr;
    if (!f) return {};
    path.push_back(f);
    e = me->getBase();
  }
  return {};
}

const CXXRecordDecl* OwnedRecord(const FieldDecl* f) {
  QualType t = f->getType().getCanonicalType();
  if (const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl());
      spec && QualifiedName(spec->getSpecializedTemplate()) == "std::unique_ptr" &&
      spec->getTemplateArgs().size() > 0 &&
      spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
    t = spec->getTemplateArgs()[0].getAsType().getCanonicalType();
  const CXXRecordDecl* rd = t->getAsCXXRecordDecl();
  if (!rd || !rd->hasDefinition() || QualifiedName(rd).rfind("std::", 0) == 0) return nullptr;
  return rd->getDefinition();
}

std::string Spelled(const MemberPath& p) {
  std::string out = p.front()->getNameAsString();
  if (p.size() > 1)
    out += (p.front()->getType()->isPointerType() ||
                    RecordName(p.front()->getType()) == "std::unique_ptr"
                ? "->"
                : ".") +
           p[1]->getNameAsString();
  return out;
}

const LambdaExpr* LambdaArgument(const Expr* e) {
  for (int i = 0; e && i < 6; ++i) {
    e = e->IgnoreImplicit()->IgnoreParens();
    if (const auto* lambda = dyn_cast<LambdaExpr>(e)) return lambda;
    if (const auto* mte = dyn_cast<MaterializeTemporaryExpr>(e)) {
      e = mte->getSubExpr();
    } else if (const auto* bind = dyn_cast<CXXBindTemporaryExpr>(e)) {
      e = bind->getSubExpr();
    } else if (const auto* ce = dyn_cast<CXXConstructExpr>(e); ce && ce->getNumArgs() >= 1) {
      e = ce->getArg(0);
    } else if (const auto* cast = dyn_cast<CastExpr>(e)) {
      e = cast->getSubExpr();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

std::vector<MemberPath> OwnedPools(const CXXRecordDecl* rd) {
  std::vector<MemberPath> pools;
  for (const FieldDecl* f : rd->fields()) {
    if (JoinsOnDestruction(f->getType())) pools.push_back({f});
    if (const CXXRecordDecl* owned = OwnedRecord(f); owned && owned != rd)
      for (const FieldDecl* g : owned->fields())
        if (JoinsOnDestruction(g->getType())) pools.push_back({f, g});
  }
  return pools;
}

namespace {

// A call that stops a pool and waits for its running tasks, best first: a
// stop or join, the pool's destruction (`reset()`; `reset(new Pool)` makes
// the next pool). Not a wait for the queue to drain: that is no stop.
int StopRank(const CXXMemberCallExpr* call) {
  static const std::vector<std::string> ranked = {"stop", "join", "shutdown", "reset"};
  const std::string name = call->getMethodDecl()->getNameAsString();
  auto it = std::find(ranked.begin(), ranked.end(), name);
  if (it == ranked.end() || (name == "reset" && call->getNumArgs() > 0)) return -1;
  return static_cast<int>(it - ranked.begin());
}

// Calls on a pool that only wait for its tasks, or make a new pool: neither a
// stop nor a hand-off of a task.
bool WaitsOrRenews(const CXXMemberCallExpr* call) {
  const std::string name = call->getMethodDecl()->getNameAsString();
  return name == "reset" || name == "wait" || name == "await" || name == "wait_for_tasks";
}

// A lock, condition variable or pool: what a loop holds or waits with, not
// the state it waits for.
bool IsSyncObject(const FieldDecl* f) {
  const std::string name = RecordName(f->getType().getNonReferenceType());
  return name.find("mutex") != std::string::npos ||
         name.find("condition_variable") != std::string::npos || JoinsOnDestruction(f->getType());
}

class PollFinder {
 public:
  PollFinder(const CXXRecordDecl* rd, ASTContext& ast, const ApiModel& model)
      : rd_(rd), ast_(ast), model_(model), pools_(OwnedPools(rd)) {}

  std::vector<PollingTask> Find() {
    std::vector<PollingTask> out;
    if (pools_.empty()) return out;
    struct Stop {
      const FunctionDecl* in;
      const CXXMemberCallExpr* call;
      int rank;
    };
    std::map<MemberPath, std::vector<Stop>> stops;  // of each pool
    std::vector<std::pair<MemberPath, const LambdaExpr*>> tasks;
    std::vector<const FunctionDecl*> defs;
    for (const CXXMethodDecl* m : rd_->methods()) {
      const FunctionDecl* def = nullptr;
      if (!m->hasBody(def) || !def || !def->getBody()) continue;
      defs.push_back(def);
      std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
        if (!s || isa<LambdaExpr>(s)) return;
        if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
          MemberPath pool = PathOf(mc->getImplicitObjectArgument());
          if (std::find(pools_.begin(), pools_.end(), pool) != pools_.end()) {
            const int rank = StopRank(mc);
            if (rank >= 0) stops[pool].push_back({def, mc, rank});
            if (rank < 0 && !WaitsOrRenews(mc))
              for (const Expr* arg : mc->arguments())
                if (const LambdaExpr* lambda = LambdaArgument(arg))
                  tasks.emplace_back(pool, lambda);
          }
        }
        for (const Stmt* child : s->children()) walk(child);
      };
      walk(def->getBody());
    }
    for (auto& [pool, of_pool] : stops)
      std::stable_sort(of_pool.begin(), of_pool.end(),
                       [](const Stop& a, const Stop& b) { return a.rank < b.rank; });
    std::map<const FunctionDecl*, std::set<MemberPath>> writes;  // of each method
    for (const FunctionDecl* def : defs) Writes(def->getBody(), 0, &writes[def]);
    for (const auto& [pool, lambda] : tasks) {
      auto of_pool = stops.find(pool);
      if (of_pool == stops.end()) continue;
      for (const Stmt* loop : PollLoops(lambda->getBody())) {
        PollingTask t;
        const auto reads = Reads(loop, pool);
        for (const auto& [path, at] : reads) {
          for (const FunctionDecl* def : defs)
            if (writes[def].count(path)) {
              t.changer = def, t.polled = path, t.polled_at = at;
              break;
            }
          if (t.changer) break;
        }
        if (!t.changer) continue;
        // A stop that changes nothing the loop tests: the loop cannot see it.
        for (const Stop& stop : of_pool->second) {
          bool seen = false;
          for (const auto& [path, at] : reads) seen |= writes[stop.in].count(path) > 0;
          if (seen) continue;
          t.stopper = stop.in, t.stop = stop.call;
          break;
        }
        if (!t.stopper) continue;
        t.loop = loop, t.pool = pool;
        out.push_back(t);
        break;  // one finding per task
      }
    }
    return out;
  }

 private:
  // Loops of a task that wait: a blocking call (a sleep, a wait) in the body,
  // and a condition that is absent, always true, or reads only members (no
  // local counter that bounds it).
  std::vector<const Stmt*> PollLoops(const Stmt* body) {
    std::vector<const Stmt*> loops;
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s || isa<LambdaExpr>(s)) return;
      const Expr* cond = nullptr;
      const Stmt* loop_body = nullptr;
      if (const auto* w = dyn_cast<WhileStmt>(s)) cond = w->getCond(), loop_body = w->getBody();
      if (const auto* d = dyn_cast<DoStmt>(s)) cond = d->getCond(), loop_body = d->getBody();
      if (const auto* f = dyn_cast<ForStmt>(s)) cond = f->getCond(), loop_body = f->getBody();
      if (loop_body && !ReadsLocal(cond) && Blocks(loop_body)) loops.push_back(s);
      for (const Stmt* child : s->children()) walk(child);
    };
    walk(body);
    return loops;
  }

  bool ReadsLocal(const Stmt* s) {
    if (!s) return false;
    if (const auto* ref = dyn_cast<DeclRefExpr>(s))
      if (const auto* var = dyn_cast<VarDecl>(ref->getDecl()); var && var->isLocalVarDeclOrParm())
        return true;
    for (const Stmt* child : s->children())
      if (ReadsLocal(child)) return true;
    return false;
  }

  bool Blocks(const Stmt* s) {
    if (!s || isa<LambdaExpr>(s)) return false;
    if (const auto* call = dyn_cast<CallExpr>(s)) {
      std::string why;
      if (IsBlockingCall(call, model_, &why)) return true;
    }
    for (const Stmt* child : s->children())
      if (Blocks(child)) return true;
    return false;
  }

  // The members a loop tests, each with where: state, not the locks, the
  // pool, or the owner through which a pimpl's members are reached.
  std::vector<std::pair<MemberPath, SourceLocation>> Reads(const Stmt* loop,
                                                           const MemberPath& pool) {
    std::vector<std::pair<MemberPath, SourceLocation>> out;
    std::set<MemberPath> seen;
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s || isa<LambdaExpr>(s)) return;
      if (const auto* me = dyn_cast<MemberExpr>(s)) {
        MemberPath path = PathOf(me);
        const bool owner =
            path.size() == 1 && OwnedRecord(path.front()) && OwnedRecord(path.front()) != rd_;
        if (!path.empty() && path != pool && !owner && !IsSyncObject(path.back()) &&
            seen.insert(path).second)
          out.emplace_back(path, me->getExprLoc());
      }
      for (const Stmt* child : s->children()) walk(child);
    };
    walk(loop);
    return out;
  }

  // What a body changes (outside the tasks it hands off): assigned,
  // incremented, or changed by a non-const method (push, pop, clear, store);
  // with the class's methods it calls on this, two deep.
  void Writes(const Stmt* s, unsigned depth, std::set<MemberPath>* out) {
    if (!s || isa<LambdaExpr>(s)) return;
    if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) {
      out->insert(PathOf(bo->getLHS()));
    } else if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s);
               op && op->isAssignmentOp() && op->getNumArgs() > 0) {
      out->insert(PathOf(op->getArg(0)));
    } else if (const auto* u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp()) {
      out->insert(PathOf(u->getSubExpr()));
    } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
      const CXXMethodDecl* m = mc->getMethodDecl();
      const Expr* object = mc->getImplicitObjectArgument();
      if (!m->isConst()) out->insert(PathOf(object));
      const FunctionDecl* def = nullptr;
      if (object && isa<CXXThisExpr>(object->IgnoreParenImpCasts()) && depth < 2 &&
          m->getParent() == rd_ && m->hasBody(def) && def)
        Writes(def->getBody(), depth + 1, out);
    }
    for (const Stmt* child : s->children()) Writes(child, depth, out);
  }

  const CXXRecordDecl* rd_;
  ASTContext& ast_;
  const ApiModel& model_;
  std::vector<MemberPath> pools_;
};

}  // namespace

std::vector<PollingTask> PollingTasks(const CXXRecordDecl* rd, ASTContext& ast,
                                      const ApiModel& model) {
  return PollFinder(rd, ast, model).Find();
}

}  // namespace tether::check
