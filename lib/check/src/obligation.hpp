// A must-discharge-on-every-path analysis over Clang's CFG, shared by
// tether-unwaited-group (a spawn arms the group, Wait() discharges it) and
// tether-lost-cancel (the definition arms the cancel function, any use
// discharges it). Like go vet's lostcancel it is path-insensitive to data
// and tolerant of escapes: passing, returning, moving, or capturing the
// variable in a lambda discharges it (the new owner answers for it).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "clang_pch.hpp"
#include "tether/check/model.hpp"

namespace tether::check {

struct Obligation {
  const clang::ValueDecl* decl = nullptr;  // the VarDecl or BindingDecl used in the code
  const clang::VarDecl* owner = nullptr;   // the variable whose destructor ends its scope
  // Set when the obligation is one member of decl (`auto r = WithCancel(..)`
  // tracks r.cancel; `auto r = TaskGroup::WithContext(..)` tracks r.group):
  // a use of another member is neutral, a use of the whole of decl hands it on.
  const clang::FieldDecl* field = nullptr;
  const TaskGroupModel* group = nullptr;  // null: a cancel function (any use discharges)
  bool armed_at_declaration = false;      // cancel functions; threads built with a callable
  // The declared-then-assigned form: `cancel = r.cancel;`, `std::tie(c, cancel) = ...`:
  // the references to decl that assign it a fresh cancel function (each arms it).
  std::vector<const clang::DeclRefExpr*> armed_by;
  // A container of thread-like group objects (std::vector<std::thread>):
  // emplace_back/push_back arm it, a range-for that joins each element
  // discharges it; group is then the container's model (join: the element's).
  bool container = false;
  // A std::unique_ptr<std::thread> (make_unique, new, reset) or a
  // std::optional<std::thread> (emplace): its thread is the obligation,
  // `t->join()` discharges it.
  bool pointer = false;
  // Futures (a container of them, or one) whose tasks use memory the
  // function does not own by value (task_use says what): a future's
  // destructor does not wait, so a throw that skips the wait leaves the
  // tasks running against a frame that is gone. Only reported when the
  // function waits for them on some path (it knows they must end first).
  bool frame_tasks = false;
  std::string task_use{};  // "'file' (a pointer)", "'this'"
  // The object whose call made the first such task (`executor` in
  // `executor.async(..)`): its own wait for all its tasks waits for them.
  const clang::ValueDecl* spawner = nullptr;
  std::string Name() const;  // "cancel", "r.cancel"
  // A thread (std::thread, a container or pointer of them): a joinable one
  // destroyed calls std::terminate, so a throw that skips its join matters.
  bool IsThread() const { return group && group->spawn_on_construct; }
};

struct Leak {
  size_t obligation = 0;           // index into the obligations
  clang::SourceLocation armed_at;  // the first arming (spawn or definition)
  clang::SourceLocation exit_at;   // the return, end of scope, or throw
  bool by_throw = false;
  std::string thrower;  // a call that may throw: "'Parse' may throw" (exit_at is the call)
};

class ThrowSummary;

// What a use of an obligation's variable does to it. kEscape: the variable is
// handed on (passed, moved, returned, captured, an unknown method): its new
// owner answers for it, on every path.
enum class ObligationEvent { kNone, kArm, kDischarge, kEscape };
// ref names o's decl: a DeclRefExpr of a local, or a MemberExpr of a member
// (the member-thread check builds obligations for fields).
ObligationEvent Classify(clang::ASTContext& ctx, const clang::Expr* ref, const Obligation& o);

// Threads and their owners, as the std-stop-token model's spawn_on_construct
// groups (std::thread) describe them.
// The element type of a std::vector/deque/list (null for anything else).
clang::QualType SequenceElement(clang::QualType t);
// std::vector/deque/list of such a thread: the container's own model.
const TaskGroupModel* ContainerOfThreads(clang::QualType t, const ApiModel& m);
// std::unique_ptr or std::optional of such a thread: the thread's model.
const TaskGroupModel* PointerToThread(clang::QualType t, const ApiModel& m);
// e builds a running thread of g however it is spelled (see obligation.cpp).
bool StartsThread(const clang::Expr* e, const TaskGroupModel& g);
// The range-for's body calls one of join on its loop variable
// (`for (auto& t : threads) t.join();`).
bool JoinsEach(const clang::CXXForRangeStmt* loop, const std::vector<std::string>& join);
// The thread (a local, or a member of this) that a branch condition tests:
// `t.joinable()`, `!t.joinable()`, `p` or `p != nullptr` for a pointer,
// `!ts.empty()` for a container.
// *running is the successor (0 = the true branch) on which it may still run.
const clang::ValueDecl* TestedThread(const clang::Expr* cond, unsigned* running);
// t joins its thread when it is destroyed: std::jthread, a class of the
// project whose destructor joins its std::thread member (an AutoJoinThread),
// or a std container, unique_ptr, optional or array of those.
bool JoinsOnDestruction(clang::QualType t);
// The members through which def, a method of rd, joins rd's threads: a
// std::thread member's join (or each of a container's), pthread_join of a
// member, or the delete of an object (reached through the member) whose
// destructor joins, directly or in rd's methods it calls. nullptr stands for
// an object reached otherwise.
std::set<const clang::FieldDecl*> JoinedMembers(const clang::CXXRecordDecl* rd,
                                                const clang::FunctionDecl* def);
// The functions that run on the threads a class starts: the callable given
// to a std::thread built in its methods or constructor initialisers, or to
// emplace_back on a container of threads (a lambda, or &Class::Method).
std::vector<const clang::FunctionDecl*> ThreadEntries(const clang::CXXRecordDecl* rd,
                                                      const ApiModel& m);

// Futures (frame_tasks.cpp): a class with wait() and get() taking no
// argument (std::future, folly's, a project's own).
bool IsFutureLike(clang::QualType t);
// std::vector/deque/list of future-like handles: the container's model
// (emplace_back/push_back put a task in, wait/get on each waits).
const TaskGroupModel* ContainerOfFutures(clang::QualType t);
// One future-like local: get() or wait() waits.
const TaskGroupModel* FutureModel();
// What the task(s) e starts use that e's function does not own by value:
// the first lambda in e capturing by reference, `this`, or a pointer.
// Empty when none, or when e is std::async (its future waits when destroyed).
std::string FrameTaskUse(const clang::Expr* e);
// The variable or member e names (through implicit casts, `->`, `.`'s base
// not included): `executor`, `pool_`, `*pool`; null for anything else.
const clang::ValueDecl* ReferencedDecl(const clang::Expr* e);
// The object of the call e's task comes from (`executor` in
// `fs.push_back(executor.async([&] {..}))`), or null.
const clang::ValueDecl* SpawnerOf(const clang::Expr* e);
// ref lies in the arguments of a call whose result is waited for
// (`collectAll(fs.begin(), fs.end()).wait()`, `whenAll(fs).get()`, `fs[i].get()`).
bool WaitedThroughCall(clang::ASTContext& ctx, const clang::Expr* ref);

// s's parent, past implicit casts, parentheses and temporaries.
const clang::Stmt* ParentOf(clang::ASTContext& ctx, const clang::Stmt* s);

// The locals of fn (not of nested lambdas) that the model tracks.
std::vector<Obligation> CollectObligations(const clang::FunctionDecl* fn, const ApiModel& m,
                                           bool groups, bool cancels);

// At most one leak per obligation. A throw that leaves the function is an
// exit like a return; for a cancel function only when the function can also
// return normally (one that can only throw or call a [[noreturn]] function
// is go vet's panic: no cancel is needed there).
// With throws, a call that may throw (may_throw.hpp) while a thread is armed,
// outside any try block of fn, is an exit by throw too.
std::vector<Leak> FindLeaks(const clang::FunctionDecl* fn, clang::ASTContext& ctx,
                            const std::vector<Obligation>& obligations,
                            ThrowSummary* throws = nullptr);

}  // namespace tether::check
