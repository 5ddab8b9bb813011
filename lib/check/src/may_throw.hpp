// Which calls may throw, as a summary over the call graph: a callee that is
// noexcept never throws; a known-throwing library call (std::stoi, at(),
// std::future::get, a std::thread start...) may; a function whose visible body
// (outside system headers) throws outside a try, or calls one that may, may.
// Unresolvable calls (virtual, through pointers) are taken not to throw: the
// checks that use this report a path only where it is real.
#pragma once

#include <map>
#include <string>

#include "clang_pch.hpp"

namespace tether::check {

class ThrowSummary {
 public:
  // thread_starts: count std::system_error from starting a std::thread (its
  // constructor, emplace_back into a container of threads) as a throw. The
  // member-thread check does (a constructor that starts several threads);
  // local threads do not (a test starting two threads is not a finding).
  ThrowSummary(const clang::SourceManager& sm, bool thread_starts)
      : sm_(sm), thread_starts_(thread_starts) {}
  // The call (a CallExpr or a CXXConstructExpr) may throw; *why says what
  // ("'std::stoi' may throw", "'Parse' may throw (it throws at a.cpp:12)").
  bool MayThrow(const clang::Expr* call, std::string* why = nullptr);
  // The function may let an exception escape.
  bool FunctionMayThrow(const clang::FunctionDecl* fn, unsigned depth = 0);

 private:
  bool BodyMayThrow(const clang::Stmt* s, unsigned depth);
  bool KnownThrowing(const clang::FunctionDecl* fn) const;
  const clang::SourceManager& sm_;
  const bool thread_starts_;
  std::map<const clang::FunctionDecl*, bool> memo_;
};

// s lies inside the try block of a try statement of its own function (not
// inside a lambda's body nested in it): a handler there may deal with it.
bool InsideTry(clang::ASTContext& ctx, const clang::Stmt* s);

}  // namespace tether::check
