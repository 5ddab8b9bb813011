// A thread member started without the lock its stop joins it under: for
// tether-ignored-stop-flag (a start after the stop).
//
// A method that joins a thread member while it holds a mutex says that the
// std::thread object is shared between threads, and that the mutex orders
// the join against whatever else touches it. A method that starts the same
// member without that mutex can run while the stop joins, or just after it:
// the thread it starts is never joined (SRT's processData() started the
// TSBPD thread while releaseSynch() joined it, a6f6663).
#pragma once

#include <string>
#include <vector>

#include "clang_pch.hpp"
#include "member_reach.hpp"
#include "tether/check/model.hpp"

namespace tether::check {

struct UnlockedStart {
  const clang::FieldDecl* thread = nullptr;  // the member
  const clang::Stmt* start = nullptr;        // `t_ = std::thread(..)`, or the call it is given to
  std::string through;                       // that call's function ("StartThread"), or ""
  const clang::FunctionDecl* starter = nullptr;  // the method that starts it
  const clang::FunctionDecl* stopper = nullptr;  // a method that joins it under `mutex`
  const clang::Stmt* join = nullptr;
  const clang::FieldDecl* mutex = nullptr;
};

// The starts of rd's thread members (std::thread, std::jthread, a
// unique_ptr or optional of one) that hold none of the mutexes a method of
// rd holds while it joins the member. A start is an assignment of a new
// thread, or the member handed by reference to a function that assigns it
// one, or whose body is not seen, where the code has just found the member
// not joinable (`if (!t_.joinable()) StartThread(t_, ..)`: a function given a
// thread that is not joinable can only start it). Constructors (nothing else
// has the object yet) and the destructor (a start racing destruction is
// wrong whatever it locks) are neither starters nor stoppers; nor is a
// method called only from constructors.
std::vector<UnlockedStart> UnlockedStarts(const clang::CXXRecordDecl* rd, clang::ASTContext& ast,
                                          const ApiModel& model, MemberReach& reach);

// For a start after the stop: a thread started on each call of body (a
// local std::thread that is detached: its declaration; an emplace_back or
// push_back into a member container of threads), or an invalid location.
clang::SourceLocation StartEachCall(const clang::Stmt* body, const ApiModel& model);
// A loop in body that waits until a member says the threads are done: its
// condition reads a member, its body sleeps or waits (a stop that drains).
bool DrainLoop(const clang::Stmt* body, const ApiModel& model, MemberReach& reach);

}  // namespace tether::check
