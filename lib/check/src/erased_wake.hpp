// A thread that erases its stop's wake-up: for tether-ignored-stop-flag.
//
// A stop often wakes its thread twice over: it sets the flag, and then,
// under the mutex the thread sleeps by, it writes a member that makes the
// thread's next wait return (a deadline set to 0, a generation counter, a
// pending bit). The flag alone is tested at the top of the loop, the member
// tells the thread not to sleep. If the thread, under that mutex, overwrites
// the member without looking at it or at the flag (`deadline_ = INT64_MAX` at
// the top of each pass), a stop that lands between the thread's test of the
// flag and that write is erased: the thread tests nothing more, goes back to
// sleep, and the stop's join hangs (brpc's TimerThread, d4e46bd: `run()`
// reset `_nearest_run_time` under `_mutex` over the 0 that `stop_and_join()`
// had written to wake it, then slept in futex_wait).
#pragma once

#include <optional>

#include "clang_pch.hpp"
#include "member_reach.hpp"

namespace tether::check {

struct ErasedWake {
  const clang::Stmt* erase = nullptr;           // the thread's blind write of the member
  const clang::FieldDecl* signal = nullptr;     // the member the stop writes to wake it
  const clang::FieldDecl* mutex = nullptr;      // held by both writes
  const clang::Stmt* posted = nullptr;          // the stop's write of the member
  const clang::FunctionDecl* poster = nullptr;  // the function that makes it
  const clang::Stmt* sleep = nullptr;           // where the thread then sleeps
};

// For a thread (the writes and waits of its code, thread) and a stop that
// sets flag (stop): a write by the thread, inside a loop, of a member the
// stop also writes under a mutex, made under that mutex with neither that
// member nor the flag read in the same hold, with the thread reading the
// member later in the loop, then sleeping (a wait whose predicate does not
// test the flag, or a wait on the address of a member the stop changes)
// without testing the flag after that hold began.
std::optional<ErasedWake> ErasedWakeUp(const Reach& thread, const Reach& stop,
                                       const clang::FieldDecl* flag, clang::ASTContext& ast,
                                       MemberReach& reach);

}  // namespace tether::check
