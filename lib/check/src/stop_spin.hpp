// A thread that spins once it is stopped: for tether-ignored-stop-flag.
//
// A wait whose predicate tests the stop flag returns at once when the flag
// is set: that is how the stop wakes it. If the path the thread then takes
// goes back to the same wait (a `continue` in a loop that does not test the
// flag) and changes nothing the predicate reads, the wait returns at once
// again: the thread neither leaves nor sleeps, it spins on the lock, and the
// stop waits for a thread that burns a core (log4cplus's ThreadPool, 63930ee:
// every worker but the last one `continue`d back to a satisfied wait).
#pragma once

#include <optional>

#include "clang_pch.hpp"
#include "member_reach.hpp"

namespace tether::check {

struct StopSpin {
  const clang::ContinueStmt* back = nullptr;  // the continue that goes back to the wait
  const clang::Expr* taken = nullptr;         // the condition that takes it when stopped
};

// The value a flag write stores, when it is a constant (`stop_ = true`,
// `running_.store(false)`).
std::optional<bool> StoredValue(clang::ASTContext& ast, const clang::Stmt* write);

// For a wait w (with a predicate) in a thread's loop, and a stop that sets
// flag to stop_value: a continue of that loop, after the wait, on a path that
// the stopped flag can take (an if on the way tests the flag that way, and
// none tests it the other way), with the wait on every iteration before it,
// nothing on the way that changes a member the predicate reads or blocks,
// and a loop condition that does not test the flag.
std::optional<StopSpin> SpinAfterStop(const Wait& w, const clang::FieldDecl* flag, bool stop_value,
                                      clang::ASTContext& ast, MemberReach& reach);

// A drain that refills itself: the thread's loop goes on after the stop
// while a container member is not empty (`while (running_ || !queue_.empty())`:
// the work queued before the stop is finished first), and the loop itself
// puts entries back into that container (an entry skipped "for later"). An
// entry it keeps re-queueing holds the thread in the loop, and the stop's
// join waits for ever (LabSound's AudioContext::update, d8a80df).
struct RefillingDrain {
  const clang::Expr* term = nullptr;  // `!pending_.empty()` in the condition
  const clang::FieldDecl* container = nullptr;
  const clang::Stmt* refill = nullptr;  // the loop's push back into it
};

// For a thread's loop whose condition reads flag, and a stop that stores
// stop_value in it: a term of the condition's disjunction that is false once
// the flag is stopped, another that tests a container member for entries (of
// this object or of a member it points to: `impl_->queue_`), a loop body that
// takes entries out of that container and puts some back, and no exit from
// the loop that the stopped flag takes.
std::optional<RefillingDrain> DrainThatRefills(const clang::Stmt* loop,
                                               const clang::FieldDecl* flag, bool stop_value,
                                               clang::ASTContext& ast, MemberReach& reach);

}  // namespace tether::check
