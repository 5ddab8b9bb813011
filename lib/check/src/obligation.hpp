// A must-discharge-on-every-path analysis over Clang's CFG, shared by
// tether-unwaited-group (a spawn arms the group, Wait() discharges it) and
// tether-lost-cancel (the definition arms the cancel function, any use
// discharges it). Like go vet's lostcancel it is path-insensitive to data
// and tolerant of escapes: passing, returning, moving, or capturing the
// variable in a lambda discharges it (the new owner answers for it).
#pragma once

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
  std::string Name() const;  // "cancel", "r.cancel"
};

struct Leak {
  size_t obligation = 0;           // index into the obligations
  clang::SourceLocation armed_at;  // the first arming (spawn or definition)
  clang::SourceLocation exit_at;   // the return, end of scope, or throw
  bool by_throw = false;
};

// The locals of fn (not of nested lambdas) that the model tracks.
std::vector<Obligation> CollectObligations(const clang::FunctionDecl* fn, const ApiModel& m,
                                           bool groups, bool cancels);

// At most one leak per obligation. A throw that leaves the function is an
// exit like a return; for a cancel function only when the function can also
// return normally (one that can only throw or call a [[noreturn]] function
// is go vet's panic: no cancel is needed there).
std::vector<Leak> FindLeaks(const clang::FunctionDecl* fn, clang::ASTContext& ctx,
                            const std::vector<Obligation>& obligations);

}  // namespace tether::check
