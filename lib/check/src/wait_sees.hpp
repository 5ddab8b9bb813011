// What a thread's wait sees of a stop, for tether-ignored-stop-flag: whether
// its predicate or its loop tests the flag, and whether the stop's writes and
// notifies reach it under the wait's mutex.
#pragma once

#include <optional>

#include "clang_pch.hpp"
#include "member_reach.hpp"

namespace tether::check {

// A wait through a local wrapper bound at construction to a condition
// variable and a lock: `CSync sync(self->cond_, holder.locker()); sync.wait();`
// where the wrapper's wait() is `m_cond->wait(*m_locker)` and its constructor
// stores the addresses of its arguments (srt's CSync). The Wait names the
// condition variable and the lock (the local guard or lock holder) it was
// given; none for anything else.
std::optional<Wait> WrapperWait(const clang::CXXMemberCallExpr* call);
// s (with the methods it calls on this) reads member f.
bool ReadsMember(MemberReach& reach, const clang::Stmt* s, const clang::FieldDecl* f);
// The predicate reads the flag, or something the stopper changes (a stop
// that pushes a sentinel into the queue the predicate tests is seen too); a
// predicate that reads no member is not ours to judge.
bool PredicateSees(MemberReach& reach, const clang::Expr* predicate, const clang::FieldDecl* flag,
                   const Reach& stop);
// The stop notifies cv while holding mutex: the waiter is then either
// before its test (it sees the flag) or already asleep.
bool NotifiesUnder(MemberReach& reach, const Reach& stop, const clang::FieldDecl* cv,
                   const clang::FieldDecl* mutex);
// The stop writes, holding the wait's mutex, a member the wait's predicate
// reads: the predicate sees the stop even when the flag was written
// unlocked (a generation count bumped under the lock).
bool PostsUnder(MemberReach& reach, const Reach& stop, const Wait& w);
// The thread tests the flag right before this wait: in the wait's
// predicate, or in the condition of a loop around it.
bool GuardsWait(MemberReach& reach, clang::ASTContext& ast, const Wait& w,
                const clang::FieldDecl* flag);

}  // namespace tether::check
