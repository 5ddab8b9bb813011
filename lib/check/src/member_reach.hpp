// What a class's code does with its members, for the stop-flag check: which
// flags and members a body reads and writes, the condition variables it
// notifies and waits on, the locks it holds, the joins it makes. A body is
// walked with the methods it calls on this (two deep).
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ast_util.hpp"
#include "clang_pch.hpp"

namespace tether::check {

// How the user wrote the object: `cv` for this->cv or other->cv.
std::string NameOf(const clang::Expr* e);
// The local lock a wait is given: `std::unique_lock<std::mutex> lock(m); cv.wait(lock)`.
const clang::VarDecl* LockVariable(const clang::Expr* lock);

// A wait on a condition variable in a thread's code.
struct Wait {
  const clang::CallExpr* call = nullptr;    // cv.wait(..), or pthread_cond_wait(&cv_, &mu_)
  std::string cv_name;                      // as written: a member of this or another object
  const clang::VarDecl* lock = nullptr;     // the local lock it is given
  const clang::FieldDecl* cv = nullptr;     // the member of this waited on
  const clang::FieldDecl* mutex = nullptr;  // the member its lock holds, when known
  bool direct = false;  // given the mutex member itself: mu_.lock(); cv.wait(mu_)
  bool timed = false;   // wait_for / wait_until with a bound: it wakes up by itself
  const clang::Expr* predicate = nullptr;
};

// A wait on the future of a promise member: `p_.get_future().get()`, or a
// local future taken from it.
struct PromiseWait {
  const clang::CXXMemberCallExpr* call = nullptr;
  const clang::FieldDecl* promise = nullptr;
};

// The condition of a while, for or do loop (null for anything else).
const clang::Expr* LoopCondition(const clang::Stmt* s);
// The body of a while, for or do loop (null for anything else).
const clang::Stmt* LoopBody(const clang::Stmt* s);

// What a body (with the methods of the class it calls on this, two deep)
// does with the class's members.
struct Reach {
  std::set<const clang::FieldDecl*> reads;   // members read (not only written)
  std::set<const clang::FieldDecl*> writes;  // assigned, stored, or changed by a method
  // Each assignment, store or increment of a member, where it is written.
  std::vector<std::pair<const clang::FieldDecl*, const clang::Stmt*>> write_sites;
  std::set<const clang::FieldDecl*> notifies;  // condition variables notified
  std::vector<std::pair<const clang::FieldDecl*, const clang::Stmt*>> notify_calls;
  std::vector<std::pair<const clang::FieldDecl*, const clang::Stmt*>> flag_writes;
  std::vector<Wait> waits;
  std::vector<PromiseWait> promise_waits;
  // The first wake-up of a thread blocked elsewhere: a notify of a condition
  // variable member, or a write to a descriptor member (`::write(wake_fd_, ..)`,
  // eventfd_write, send), the self-pipe of an event loop.
  const clang::Stmt* wake = nullptr;
  const clang::Stmt* join =
      nullptr;  // a join of a thread member (or each in a loop, or pthread_join)
  bool joins = false;
};

class MemberReach {
 public:
  MemberReach(clang::ASTContext& ast, const clang::CXXRecordDecl* rd) : ast_(ast), rd_(rd) {}
  // Records what s does to the members. In a thread's code (thread = true)
  // the waits are collected too.
  void Walk(const clang::Stmt* s, Reach* r, unsigned depth, bool thread);
  // One use of member f: a read, or a write (a flag write when constant).
  void Use(const clang::MemberExpr* me, const clang::FieldDecl* f, Reach* r);
  // mutex is held at s: the last statement before s that takes or releases
  // it, in the innermost block around s that has one, takes it (a guard
  // declared, mutex.lock(), a guard's lock(), pthread_mutex_lock, a function
  // whose body locks the mutex it is given).
  bool HeldAt(const clang::Stmt* s, const clang::FieldDecl* mutex);
  // s is a call of a function given mutex that takes it inside, for the
  // call's work (srt's `CSync::lock_notify_one(m_cond, m_lock)`).
  bool LocksInside(const clang::Stmt* s, const clang::FieldDecl* mutex);
  // The class itself or one of its bases: their methods on this are the
  // object's own code.
  bool Own(const clang::CXXRecordDecl* rd) const;
  // The first loop of body that can never end: no condition, or a constant
  // true one, and no break, return, throw or goto out of it.
  const clang::Stmt* EndlessLoop(const clang::Stmt* body);
  // The endless loop of a thread entry: in its body, or in the body of a
  // method it calls on this (`[this] { Run(); }`).
  const clang::Stmt* EndlessThreadLoop(const clang::FunctionDecl* entry);
  // The code a thread entry runs: its body, and the bodies of the methods it
  // calls on this as statements of its own (`[this] { Run(); }`).
  std::vector<const clang::Stmt*> ThreadBodies(const clang::FunctionDecl* entry);
  // The first loop of body (not in a lambda) whose condition reads flag.
  static const clang::Stmt* LoopOn(const clang::Stmt* body, const clang::FieldDecl* flag);
  // body, or a method it calls on this (two deep; a lambda given to
  // std::call_once counts), fulfils promise (set_value/set_exception).
  bool Fulfils(const clang::Stmt* body, const clang::FieldDecl* promise, unsigned depth = 0);
  // Where a wait's lock was last taken before the wait (invalid if unknown).
  // When that is the end of an RAII unlocker's block, *released is the
  // unlocker's declaration.
  clang::SourceLocation LockPoint(const Wait& w, clang::SourceLocation wait_at,
                                  const clang::Stmt** released = nullptr);
  // The statement that took mutex for s: the last one before s, in the
  // innermost block around s that takes or releases it (null when mutex is
  // not held at s).
  const clang::Stmt* HoldStart(const clang::Stmt* s, const clang::FieldDecl* mutex);
  // The function (or lambda) whose body holds s.
  const clang::FunctionDecl* EnclosingFunction(const clang::Stmt* s);
  // The innermost loop around s whose body takes the lock at locked_at.
  const clang::Stmt* LoopAround(const clang::Stmt* s, clang::SourceLocation locked_at);
  // The members s reads, each with where: directly, or through a call of
  // the object's methods on this (the call's place).
  std::vector<std::pair<const clang::FieldDecl*, clang::SourceLocation>> MemberReads(
      const clang::Stmt* s);

 private:
  void Call(const clang::CXXMemberCallExpr* mc, Reach* r, unsigned depth, bool thread);
  void CallC(const clang::CallExpr* call, Reach* r, bool thread);
  static const clang::FieldDecl* LockedMutex(const clang::Expr* lock);
  static const clang::FieldDecl* PromiseBehind(const clang::Expr* future);
  // +1: the statement s takes mutex; -1: it releases it; 0: neither.
  static int LockChange(const clang::Stmt* s, const clang::FieldDecl* mutex);
  static bool HasExit(const clang::Stmt* s, unsigned nested);

  clang::ASTContext& ast_;
  const clang::CXXRecordDecl* rd_;
  std::set<const clang::FunctionDecl*> visiting_;
};

}  // namespace tether::check
