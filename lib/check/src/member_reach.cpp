// What a class's code does with its members (member_reach.hpp).
#include "member_reach.hpp"

#include <functional>
#include <vector>

#include "ast_util.hpp"
#include "obligation.hpp"
#include "wait_sees.hpp"

namespace tether::check {

using namespace clang;

// How the user wrote the object: `jobAddedCondition` for this->jobAddedCondition
// or jobSystem->jobAddedCondition.
std::string NameOf(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (const auto* me = dyn_cast<MemberExpr>(e)) return me->getMemberDecl()->getNameAsString();
  if (const auto* ref = dyn_cast<DeclRefExpr>(e)) return ref->getDecl()->getNameAsString();
  return "the condition variable";
}

// The local lock a wait is given: `std::unique_lock<std::mutex> lock(m); cv.wait(lock)`.
const VarDecl* LockVariable(const Expr* lock) {
  const auto* ref = dyn_cast<DeclRefExpr>(lock->IgnoreParenImpCasts());
  const auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  return var && var->hasLocalStorage() ? var : nullptr;
}

bool MemberReach::Own(const CXXRecordDecl* rd) const {
  return rd && (rd == rd_ || (rd_->hasDefinition() && rd_->isDerivedFrom(rd)));
}

// The mutex member a wait's lock holds: `std::unique_lock<std::mutex> lock(mu_);
// cv_.wait(lock, ...)`.
const FieldDecl* MemberReach::LockedMutex(const Expr* lock) {
  const VarDecl* var = LockVariable(lock);
  if (!var || !var->getInit()) return nullptr;
  const auto* ce = dyn_cast<CXXConstructExpr>(var->getInit()->IgnoreImplicit());
  return ce && ce->getNumArgs() > 0 ? MemberOfThis(ce->getArg(0)) : nullptr;
}

// Whether mutex is held at s: the last statement before s, in the innermost
// block around s that has one, that takes or releases it decides. A guard
// (lock_guard, unique_lock, scoped_lock) declared there, mutex.lock(), or a
// lock function take it; mutex.unlock(), a guard's unlock() and an unlock
// function release it (`lk.unlock(); cv.notify_all();` notifies unheld).
bool MemberReach::HeldAt(const Stmt* s, const FieldDecl* mutex) {
  return HoldStart(s, mutex) != nullptr;
}

const Stmt* MemberReach::HoldStart(const Stmt* s, const FieldDecl* mutex) {
  const Stmt* child = s;
  DynTypedNodeList parents = ast_.getParents(*s);
  while (!parents.empty()) {
    if (parents[0].get<FunctionDecl>() || parents[0].get<LambdaExpr>()) return nullptr;
    const Stmt* parent = parents[0].get<Stmt>();
    if (!parent) return nullptr;
    if (const auto* block = dyn_cast<CompoundStmt>(parent)) {
      int last = 0;
      const Stmt* at = nullptr;
      for (const Stmt* before : block->body()) {
        if (before == child) break;
        if (const int change = LockChange(before, mutex)) last = change, at = before;
      }
      if (last != 0) return last > 0 ? at : nullptr;
    }
    child = parent;
    parents = ast_.getParents(*parent);
  }
  return nullptr;
}

// The member a C call is given: `&cond_`, `tid_`.
static const FieldDecl* MemberArg(const CallExpr* call, unsigned i) {
  if (call->getNumArgs() <= i) return nullptr;
  const Expr* e = call->getArg(i)->IgnoreParenImpCasts();
  if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
    e = u->getSubExpr();
  return MemberOfThis(e);
}

// What a function does to its parameter p: +1 it locks it, -1 it unlocks it
// (a project's `inline void enterCS(Mutex& m) { m.lock(); }`), 0 neither, both
// (a lock then an unlock: a hold of its own), or not seen.
static int ChangeOfParameter(const FunctionDecl* fn, const ParmVarDecl* p) {
  const FunctionDecl* def = nullptr;
  if (!fn->hasBody(def) || !def) return 0;
  std::vector<int> changes;  // in source order
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
      const auto* ref =
          dyn_cast<DeclRefExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts());
      const std::string name = mc->getMethodDecl()->getNameAsString();
      if (ref && ref->getDecl() == p && (name == "lock" || name == "unlock"))
        changes.push_back(name == "lock" ? 1 : -1);
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(def->getBody());
  if (changes.empty() || (changes.front() > 0 && changes.back() < 0)) return 0;
  return changes.back();
}

bool MemberReach::LocksInside(const Stmt* s, const FieldDecl* mutex) {
  const auto* call = dyn_cast<CallExpr>(s);
  const FunctionDecl* fn = call ? call->getDirectCallee() : nullptr;
  if (!fn || isa<CXXMemberCallExpr>(call)) return false;
  for (unsigned i = 0; i < call->getNumArgs() && i < fn->getNumParams(); ++i)
    if (MemberArg(call, i) == mutex && LocksParameter(fn, i)) return true;
  return false;
}

int MemberReach::LockChange(const Stmt* s, const FieldDecl* mutex) {
  if (const auto* ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl* d : ds->decls())
      if (const auto* v = dyn_cast<VarDecl>(d); v && v->getInit())
        if (const auto* ce = dyn_cast<CXXConstructExpr>(v->getInit()->IgnoreImplicit()))
          for (const Expr* arg : ce->arguments())
            if (MemberOfThis(arg) == mutex)
              return IsRaiiUnlocker(ce->getType()->getAsCXXRecordDecl()) ? -1
                     : DefersLock(ce)                                    ? 0
                                                                         : 1;
    return 0;
  }
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s->IgnoreContainers())) {
    const std::string name = mc->getMethodDecl() ? mc->getMethodDecl()->getNameAsString() : "";
    if (name != "lock" && name != "unlock") return 0;
    const Expr* object = mc->getImplicitObjectArgument();
    // The mutex itself, or a local guard of it: `lk.unlock()`.
    const bool ours = MemberOfThis(object) == mutex || LockedMutex(object) == mutex;
    return ours ? (name == "lock" ? 1 : -1) : 0;
  }
  if (const auto* call = dyn_cast<CallExpr>(s->IgnoreContainers())) {
    const llvm::StringRef c = CFunctionName(call);
    if ((c == "pthread_mutex_lock" || c == "pthread_mutex_unlock") && MemberArg(call, 0) == mutex)
      return c == "pthread_mutex_lock" ? 1 : -1;
    const FunctionDecl* fn = call->getDirectCallee();
    if (!fn || isa<CXXMethodDecl>(fn) || c.empty()) return 0;
    for (unsigned i = 0; i < call->getNumArgs() && i < fn->getNumParams(); ++i)
      if (MemberArg(call, i) == mutex) return ChangeOfParameter(fn, fn->getParamDecl(i));
  }
  return 0;
}

// A write to a descriptor the object holds: `::write(wake_fd_, &one, 8)`,
// `write(pipe_[1], ..)`, `eventfd_write(efd_, 1)`, `send(sock_, ..)`.
static bool WritesToMember(const CallExpr* call) {
  const FunctionDecl* fn = call->getDirectCallee();
  if (!fn || isa<CXXMethodDecl>(fn) || call->getNumArgs() == 0 || !fn->getDeclName().isIdentifier())
    return false;
  const llvm::StringRef name = fn->getName();
  if (name != "write" && name != "eventfd_write" && name != "send") return false;
  const Expr* fd = call->getArg(0)->IgnoreParenImpCasts();
  if (const auto* sub = dyn_cast<ArraySubscriptExpr>(fd))
    fd = sub->getBase()->IgnoreParenImpCasts();
  return MemberOfThis(fd) != nullptr;
}

// The C calls on the members: a write to a wake-up descriptor, pthread_join,
// and pthreads' condition variables (signal and broadcast notify; wait and
// timedwait, given the mutex member itself, wait).
void MemberReach::CallC(const CallExpr* call, Reach* r, bool thread) {
  const llvm::StringRef name = CFunctionName(call);
  if (!r->wake && WritesToMember(call)) {
    r->wake = call;
  } else if (name == "pthread_join" && MemberArg(call, 0)) {
    r->joins = true;
    if (!r->join) r->join = call;
  } else if ((name == "pthread_cond_signal" || name == "pthread_cond_broadcast") &&
             MemberArg(call, 0)) {
    if (!r->wake) r->wake = call;
    r->notifies.insert(MemberArg(call, 0));
    r->notify_calls.emplace_back(MemberArg(call, 0), call);
  } else if (thread && (name == "pthread_cond_wait" || name == "pthread_cond_timedwait") &&
             MemberArg(call, 0)) {
    Wait w;
    w.call = call;
    w.cv = MemberArg(call, 0);
    w.cv_name = w.cv->getNameAsString();
    w.mutex = MemberArg(call, 1);
    w.direct = w.mutex != nullptr;
    w.timed = name == "pthread_cond_timedwait";
    r->waits.push_back(w);
  } else if (const FunctionDecl* fn = call->getDirectCallee()) {
    // A function given a condition variable member that notifies the
    // parameter it binds to (srt's `CSync::lock_notify_one(m_cond, m_lock)`).
    for (unsigned i = 0; i < call->getNumArgs() && i < fn->getNumParams(); ++i) {
      const FieldDecl* cv = MemberArg(call, i);
      if (cv && IsConditionVariable(cv->getType()) && NotifiesParameter(fn, i)) {
        if (!r->wake) r->wake = call;
        r->notifies.insert(cv);
        r->notify_calls.emplace_back(cv, call);
      }
    }
  }
}

// Records what s does to the members; follows calls of this class's
// methods on this, two deep. In a thread's code (thread = true) the waits
// are collected too.
void MemberReach::Walk(const Stmt* s, Reach* r, unsigned depth, bool thread) {
  if (!s) return;
  if (const auto* me = dyn_cast<MemberExpr>(s)) {
    if (const FieldDecl* f = MemberOfThis(me)) Use(me, f, r);
  } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s)) {
    Call(mc, r, depth, thread);
  } else if (const auto* call = dyn_cast<CallExpr>(s)) {
    CallC(call, r, thread);
  } else if (const auto* loop = dyn_cast<CXXForRangeStmt>(s)) {
    if (MemberOfThis(loop->getRangeInit()) && JoinsEach(loop, {"join"})) {
      r->joins = true;
      if (!r->join) r->join = loop;
    }
  }
  for (const Stmt* child : s->children()) {
    // A lambda's body runs elsewhere; a wait's predicate is walked by Call.
    if (isa_and_nonnull<LambdaExpr>(child)) continue;
    Walk(child, r, depth, thread);
  }
}

void MemberReach::Use(const MemberExpr* me, const FieldDecl* f, Reach* r) {
  DynTypedNodeList parents = ast_.getParents(*me);
  const Stmt* parent = parents.empty() ? nullptr : parents[0].get<Stmt>();
  while (parent && isa<ImplicitCastExpr, ParenExpr>(parent)) {
    parents = ast_.getParents(*parent);
    parent = parents.empty() ? nullptr : parents[0].get<Stmt>();
  }
  bool write = false;
  const Expr* value = nullptr;
  if (const auto* bo = dyn_cast_or_null<BinaryOperator>(parent);
      bo && bo->isAssignmentOp() && bo->getLHS()->IgnoreParenImpCasts() == me) {
    write = true;
    value = bo->getRHS();
  } else if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(parent);
             op && op->getOperator() == OO_Equal && op->getNumArgs() == 2 &&
             op->getArg(0)->IgnoreParenImpCasts() == me) {
    write = true;
    value = op->getArg(1);
  } else if (const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(
                 parent ? ast_.getParents(*parent).empty() ? nullptr
                                                           : ast_.getParents(*parent)[0].get<Stmt>()
                        : nullptr);
             call && isa<MemberExpr>(parent) && call->getMethodDecl()) {
    std::string m = call->getMethodDecl()->getNameAsString();
    if (m == "store" || m == "exchange") {
      write = true;
      value = call->getNumArgs() > 0 ? call->getArg(0) : nullptr;
    } else if (!call->getMethodDecl()->isConst() && m != "load" && m != "wait" && m != "wait_for" &&
               m != "wait_until" && m != "notify_one" && m != "notify_all" && m != "lock" &&
               m != "unlock") {
      r->writes.insert(f);  // push, emplace, clear...: the stop changes it
    }
  } else if (const auto* u = dyn_cast_or_null<UnaryOperator>(parent);
             u && u->isIncrementDecrementOp()) {
    write = true;
  }
  if (!write) {
    r->reads.insert(f);
    return;
  }
  r->writes.insert(f);
  r->write_sites.emplace_back(f, me);
  bool constant = false;
  if (value) {
    const Expr* v = value->IgnoreParenImpCasts();
    constant = isa<CXXBoolLiteralExpr, IntegerLiteral>(v);
  }
  if (IsFlagType(f->getType()) && constant) r->flag_writes.emplace_back(f, me);
}

void MemberReach::Call(const CXXMemberCallExpr* mc, Reach* r, unsigned depth, bool thread) {
  const CXXMethodDecl* method = mc->getMethodDecl();
  if (!method) return;
  const std::string name = method->getNameAsString();
  const Expr* object = mc->getImplicitObjectArgument();
  const FieldDecl* member = MemberOfThis(object);
  if (thread && object && IsWaitName(name) && !IsConditionVariable(object->getType()))
    if (std::optional<Wait> w = WrapperWait(mc)) r->waits.push_back(*w);
  if (object && IsConditionVariable(object->getType())) {
    if (member && IsNotifyName(name)) {
      if (!r->wake) r->wake = mc;
      r->notifies.insert(member);
      r->notify_calls.emplace_back(member, mc);
    }
    if (thread && IsWaitName(name)) {
      Wait w;
      w.call = mc;
      w.cv = member;
      w.cv_name = NameOf(object);
      const bool std_cv =
          RecordName(object->getType()).find("::condition_variable") != std::string::npos;
      // A bounded wait_for/wait_until wakes up by itself; one whose bound may
      // be INT_MAX does not.
      w.timed = name != "wait" && !(mc->getNumArgs() > 1 && MayBeUnbounded(mc->getArg(1), ast_));
      const unsigned with_predicate = name == "wait" ? 2 : 3;
      if (std_cv && mc->getNumArgs() >= with_predicate)
        w.predicate = mc->getArg(mc->getNumArgs() - 1);
      if (!std_cv && mc->getNumArgs() > 1 && PredicateLambda(mc->getArg(mc->getNumArgs() - 1)))
        w.predicate = mc->getArg(mc->getNumArgs() - 1);
      if (mc->getNumArgs() > 0) {
        w.lock = LockVariable(mc->getArg(0));
        w.mutex = LockedMutex(mc->getArg(0));
        // condition_variable_any, or a project's own: given the mutex itself.
        if (!w.lock && IsLockable(mc->getArg(0)->getType()))
          if ((w.mutex = MemberOfThis(mc->getArg(0)))) w.direct = true;
      }
      // The predicate runs on the thread: what it reads, the thread reads.
      if (w.predicate)
        if (const auto* lambda = PredicateLambda(w.predicate))
          Walk(lambda->getBody(), r, depth, thread);
      r->waits.push_back(w);
    }
    return;
  }
  if (name == "join" && member) {
    r->joins = true;
    if (!r->join) r->join = mc;
  }
  if (thread && (name == "get" || name == "wait"))
    if (const FieldDecl* promise = PromiseBehind(object)) r->promise_waits.push_back({mc, promise});
  // A method of this class on this: what it does is done here.
  if (object && isa<CXXThisExpr>(object->IgnoreParenImpCasts()) && depth < 2 &&
      Own(method->getParent())) {
    const FunctionDecl* def = nullptr;
    if (method->hasBody(def) && def && def->getBody() && visiting_.insert(def).second) {
      Walk(def->getBody(), r, depth + 1, thread);
      visiting_.erase(def);
    }
  }
}

// The endless loop of a thread entry: in its body, or in the body of a
// method it calls on this (`[this] { Run(); }`).
const Stmt* MemberReach::EndlessThreadLoop(const FunctionDecl* entry) {
  for (const Stmt* body : ThreadBodies(entry))
    if (const Stmt* loop = EndlessLoop(body)) return loop;
  return nullptr;
}

std::vector<const Stmt*> MemberReach::ThreadBodies(const FunctionDecl* entry) {
  std::vector<const Stmt*> out{entry->getBody()};
  const auto* body = dyn_cast_or_null<CompoundStmt>(entry->getBody());
  if (!body) return out;
  for (const Stmt* s : body->body()) {
    const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
    const FunctionDecl* def = nullptr;
    if (mc && mc->getMethodDecl() &&
        isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts()) &&
        Own(mc->getMethodDecl()->getParent()) && mc->getMethodDecl()->hasBody(def) && def)
      out.push_back(def->getBody());
  }
  return out;
}

// The first loop of body that can never end: no condition, or a constant
// true one, and no break, return, throw or goto out of it.
const Stmt* MemberReach::EndlessLoop(const Stmt* body) {
  const Stmt* found = nullptr;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || found || isa<LambdaExpr>(s)) return;
    const Expr* cond = nullptr;
    const Stmt* loop_body = nullptr;
    bool loop = false;
    if (const auto* w = dyn_cast<WhileStmt>(s)) {
      loop = true, cond = w->getCond(), loop_body = w->getBody();
    } else if (const auto* f = dyn_cast<ForStmt>(s)) {
      loop = true, cond = f->getCond(), loop_body = f->getBody();
    } else if (const auto* d = dyn_cast<DoStmt>(s)) {
      loop = true, cond = d->getCond(), loop_body = d->getBody();
    }
    if (loop) {
      bool forever = !cond;
      if (cond && !cond->isValueDependent()) {
        bool value = false;
        if (cond->EvaluateAsBooleanCondition(value, ast_)) forever = value;
      }
      if (forever && !HasExit(loop_body, 0)) {
        found = s;
        return;
      }
    }
    for (const Stmt* child : s->children()) walk(child);
  };
  walk(body);
  return found;
}

const Expr* LoopCondition(const Stmt* s) {
  if (const auto* w = dyn_cast<WhileStmt>(s)) return w->getCond();
  if (const auto* f = dyn_cast<ForStmt>(s)) return f->getCond();
  if (const auto* d = dyn_cast<DoStmt>(s)) return d->getCond();
  return nullptr;
}

const Stmt* LoopBody(const Stmt* s) {
  if (const auto* w = dyn_cast<WhileStmt>(s)) return w->getBody();
  if (const auto* f = dyn_cast<ForStmt>(s)) return f->getBody();
  if (const auto* d = dyn_cast<DoStmt>(s)) return d->getBody();
  return nullptr;
}

const Stmt* MemberReach::LoopOn(const Stmt* body, const FieldDecl* flag) {
  const Stmt* found = nullptr;
  std::function<bool(const Stmt*)> reads = [&](const Stmt* s) {
    if (!s) return false;
    if (const auto* me = dyn_cast<MemberExpr>(s); me && MemberOfThis(me) == flag) return true;
    for (const Stmt* child : s->children())
      if (reads(child)) return true;
    return false;
  };
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || found || isa<LambdaExpr>(s)) return;
    if (const Expr* cond = LoopCondition(s); cond && reads(cond)) {
      found = s;
      return;
    }
    for (const Stmt* child : s->children()) walk(child);
  };
  walk(body);
  return found;
}

// A way out of the loop: break (not of a nested loop or switch), return,
// throw, goto, or a call that does not return.
bool MemberReach::HasExit(const Stmt* s, unsigned nested) {
  if (!s || isa<LambdaExpr>(s)) return false;
  if (isa<ReturnStmt, CXXThrowExpr, GotoStmt>(s)) return true;
  if (isa<BreakStmt>(s)) return nested == 0;
  if (const auto* call = dyn_cast<CallExpr>(s))
    if (const FunctionDecl* fn = call->getDirectCallee(); fn && fn->isNoReturn()) return true;
  const bool inner = isa<WhileStmt, ForStmt, DoStmt, CXXForRangeStmt, SwitchStmt>(s);
  for (const Stmt* child : s->children())
    if (HasExit(child, nested + (inner ? 1 : 0))) return true;
  return false;
}

const FieldDecl* MemberReach::PromiseBehind(const Expr* future) {
  if (!future) return nullptr;
  future = future->IgnoreImplicit()->IgnoreParenImpCasts();
  if (const auto* ref = dyn_cast<DeclRefExpr>(future))
    if (const auto* var = dyn_cast<VarDecl>(ref->getDecl()); var && var->getInit())
      future = var->getInit()->IgnoreImplicit()->IgnoreParenImpCasts();
  // Before C++17 the local is move-constructed from the call's result.
  if (const auto* move = dyn_cast<CXXConstructExpr>(future); move && move->getNumArgs() == 1)
    future = move->getArg(0)->IgnoreImplicit()->IgnoreParenImpCasts();
  const auto* call = dyn_cast<CXXMemberCallExpr>(future);
  if (!call || !call->getMethodDecl() || call->getMethodDecl()->getNameAsString() != "get_future")
    return nullptr;
  const FieldDecl* f = MemberOfThis(call->getImplicitObjectArgument());
  return f && RecordName(f->getType()) == "std::promise" ? f : nullptr;
}

bool MemberReach::Fulfils(const Stmt* s, const FieldDecl* promise, unsigned depth) {
  if (!s) return false;
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
    const std::string name = mc->getMethodDecl()->getNameAsString();
    if (MemberOfThis(mc->getImplicitObjectArgument()) == promise && name.rfind("set_", 0) == 0)
      return true;
    const FunctionDecl* def = nullptr;
    if (isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts()) && depth < 2 &&
        Own(mc->getMethodDecl()->getParent()) && mc->getMethodDecl()->hasBody(def) && def &&
        Fulfils(def->getBody(), promise, depth + 1))
      return true;
  }
  if (const auto* lambda = dyn_cast<LambdaExpr>(s))
    return Fulfils(lambda->getBody(), promise, depth);
  for (const Stmt* child : s->children())
    if (Fulfils(child, promise, depth)) return true;
  return false;
}

// Where the wait's lock was last taken before the wait: the local lock's
// declaration (unless deferred), or a later lock.lock() (mu_.lock() when the
// wait is given the mutex itself) in the same function.
SourceLocation MemberReach::LockPoint(const Wait& w, SourceLocation wait_at,
                                      const Stmt** released) {
  if (released) *released = nullptr;
  const SourceManager& sm = ast_.getSourceManager();
  SourceLocation at;
  const auto* init = w.lock && w.lock->getInit() ? w.lock->getInit()->IgnoreImplicit() : nullptr;
  // A guard given the mutex alone, or a lock holder given it first with
  // other things (srt's `CUniqueSync lcc(mutex, cond)`), locks when declared.
  if (const auto* ce = dyn_cast_or_null<CXXConstructExpr>(init);
      ce && ce->getNumArgs() > 0 && !DefersLock(ce) &&
      (ce->getNumArgs() == 1 || IsLockable(ce->getArg(0)->getType())))
    at = sm.getExpansionLoc(w.lock->getEndLoc());
  // An RAII unlocker of the mutex (`InvertedLock unlocked(mu_);`) frees it
  // for the rest of its block: the lock is taken again at the block's end.
  auto relocked_at = [&](const Stmt* s) -> SourceLocation {
    const auto* ds = dyn_cast<DeclStmt>(s);
    if (!ds || !ds->isSingleDecl() || !w.mutex) return {};
    const auto* v = dyn_cast<VarDecl>(ds->getSingleDecl());
    const auto* ce =
        v && v->getInit() ? dyn_cast<CXXConstructExpr>(v->getInit()->IgnoreImplicit()) : nullptr;
    if (!ce || !IsRaiiUnlocker(ce->getType()->getAsCXXRecordDecl())) return {};
    bool ours = false;
    for (const Expr* arg : ce->arguments()) ours |= MemberOfThis(arg) == w.mutex;
    DynTypedNodeList parents = ast_.getParents(*ds);
    const auto* block = parents.empty() ? nullptr : parents[0].get<CompoundStmt>();
    return ours && block ? sm.getExpansionLoc(block->getRBracLoc()) : SourceLocation();
  };
  auto is_lock = [&](const Expr* object) {
    if (w.direct) return MemberOfThis(object) == w.mutex;
    const auto* ref = dyn_cast<DeclRefExpr>(object->IgnoreParenImpCasts());
    return ref && ref->getDecl() == w.lock;
  };
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || isa<LambdaExpr>(s)) return;
    const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
    const auto* call = dyn_cast<CallExpr>(s);
    if ((mc && mc->getMethodDecl() && mc->getMethodDecl()->getNameAsString() == "lock" &&
         is_lock(mc->getImplicitObjectArgument())) ||
        (!mc && call && w.direct && CFunctionName(call) == "pthread_mutex_lock" &&
         MemberArg(call, 0) == w.mutex)) {
      SourceLocation l = sm.getExpansionLoc(s->getEndLoc());
      if (sm.isBeforeInTranslationUnit(l, wait_at) &&
          (at.isInvalid() || sm.isBeforeInTranslationUnit(at, l))) {
        at = l;
        if (released) *released = nullptr;
      }
    }
    if (const SourceLocation l = relocked_at(s);
        l.isValid() && sm.isBeforeInTranslationUnit(l, wait_at) &&
        (at.isInvalid() || sm.isBeforeInTranslationUnit(at, l))) {
      at = l;
      if (released) *released = s;
    }
    for (const Stmt* child : s->children()) walk(child);
  };
  const FunctionDecl* fn =
      w.lock ? dyn_cast_or_null<FunctionDecl>(w.lock->getParentFunctionOrMethod()) : nullptr;
  if (!fn) fn = EnclosingFunction(w.call);
  if (fn) walk(fn->getBody());
  return at;
}

const FunctionDecl* MemberReach::EnclosingFunction(const Stmt* s) {
  DynTypedNodeList parents = ast_.getParents(*s);
  while (!parents.empty()) {
    if (const auto* fn = parents[0].get<FunctionDecl>()) return fn;
    const Stmt* p = parents[0].get<Stmt>();
    if (!p) return nullptr;
    if (const auto* lambda = dyn_cast<LambdaExpr>(p)) return lambda->getCallOperator();
    parents = ast_.getParents(*p);
  }
  return nullptr;
}

// The innermost loop around s whose body takes the lock at locked_at: each
// of its iterations tests, locks and waits.
const Stmt* MemberReach::LoopAround(const Stmt* s, SourceLocation locked_at) {
  const SourceManager& sm = ast_.getSourceManager();
  DynTypedNodeList parents = ast_.getParents(*s);
  while (!parents.empty()) {
    const Stmt* p = parents[0].get<Stmt>();
    if (!p || isa<LambdaExpr>(p)) return nullptr;
    if (isa<WhileStmt, ForStmt, DoStmt, CXXForRangeStmt>(p)) {
      SourceRange range(sm.getExpansionLoc(p->getBeginLoc()), sm.getExpansionLoc(p->getEndLoc()));
      if (sm.isBeforeInTranslationUnit(range.getBegin(), locked_at) &&
          sm.isBeforeInTranslationUnit(locked_at, range.getEnd()))
        return p;
    }
    parents = ast_.getParents(*p);
  }
  return nullptr;
}

// The members s reads, each with where: directly, or through a call of
// this class's methods on this (the call's place).
std::vector<std::pair<const FieldDecl*, SourceLocation>> MemberReach::MemberReads(const Stmt* s) {
  const SourceManager& sm = ast_.getSourceManager();
  std::vector<std::pair<const FieldDecl*, SourceLocation>> out;
  std::function<void(const Stmt*)> walk = [&](const Stmt* st) {
    if (!st || isa<LambdaExpr>(st)) return;
    const SourceLocation at = sm.getExpansionLoc(st->getBeginLoc());
    if (const auto* me = dyn_cast<MemberExpr>(st)) {
      if (const FieldDecl* f = MemberOfThis(me)) {
        Reach r;
        Use(me, f, &r);
        if (r.reads.count(f)) out.emplace_back(f, at);
      }
    } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(st);
               mc && mc->getMethodDecl() && Own(mc->getMethodDecl()->getParent()) &&
               isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts())) {
      Reach r;
      Walk(mc, &r, 1, false);
      for (const FieldDecl* f : r.reads) out.emplace_back(f, at);
      return;
    }
    for (const Stmt* child : st->children()) walk(child);
  };
  walk(s);
  return out;
}

}  // namespace tether::check
