// A class's members as its code reaches them (`mu_`, a pimpl's `d->pool`),
// the pools it owns, and the tasks its methods hand them: shared by
// tether-thread-member-order (what the tasks use, destroyed before the pool
// joins) and tether-ignored-stop-flag (a task that polls through a stop).
#pragma once

#include <string>
#include <vector>

#include "clang_pch.hpp"
#include "tether/check/model.hpp"

namespace tether::check {

// A member of this as the code reaches it, outermost first and at most two
// deep: `mu_` is {mu_}, `d->pool` and `m_p->pool->add(...)`'s object are
// {d, pool} (a pimpl's member). Empty when the expression does not start
// at this.
using MemberPath = std::vector<const clang::FieldDecl*>;
MemberPath PathOf(const clang::Expr* e);

// The class a member owns and destroys with itself: a project's class held by
// value or by std::unique_ptr (a pimpl). Raw pointers own nothing we can see.
const clang::CXXRecordDecl* OwnedRecord(const clang::FieldDecl* f);

// How the user writes a path: `mu_`, `d->mutex`, `state.queue`.
std::string Spelled(const MemberPath& p);

// The lambda an argument holds: as written, or converted to a std::function
// (or another callable wrapper) by a constructor.
const clang::LambdaExpr* LambdaArgument(const clang::Expr* e);

// The members of rd that join their threads only when destroyed: its own,
// and those of a class it owns (a pimpl's pool).
std::vector<MemberPath> OwnedPools(const clang::CXXRecordDecl* rd);

// A task that polls through a stop: a loop in a task handed to a pool that
// blocks (sleeps, waits) until members of the class change, where a method of
// the class stops the pool (a stop, join or wait for its tasks) and changes
// nothing the loop tests. The members the loop waits on are changed by the
// class's own code, so a stop made there waits for a task that waits for it.
struct PollingTask {
  const clang::Stmt* loop = nullptr;
  MemberPath pool;
  MemberPath polled;                // a member the loop tests
  clang::SourceLocation polled_at;  // where
  const clang::FunctionDecl* stopper = nullptr;
  const clang::CXXMemberCallExpr* stop = nullptr;  // the stop in stopper
  const clang::FunctionDecl* changer = nullptr;    // a method that changes `polled`
};
std::vector<PollingTask> PollingTasks(const clang::CXXRecordDecl* rd, clang::ASTContext& ast,
                                      const ApiModel& model);

}  // namespace tether::check
