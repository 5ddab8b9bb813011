// tether::Scope — a unit of work with a lifetime (a build, a request), for
// the tracer.
//
//   tether::Scope build(ctx, "build 42");     // scope begins
//   RunBuild(build.context());                // tasks spawned under it belong to it
//   // ~Scope: scope ends; any task of it still running is a zombie
//
// A task belongs to the scope of the context it was spawned with (contexts
// inherit their parent's scope; roots have none). A task spawned with a root
// context from code running inside a scope is "detached from" that scope.
// When tracing is off a Scope costs one context derivation and one branch.
#pragma once

#include <cstdint>
#include <memory>
#include <source_location>
#include <string>

#include "tether/context.hpp"

namespace tether {

class Scope {
 public:
  Scope(const Context& parent, std::string name,
        std::source_location loc = std::source_location::current());
  ~Scope();  // ends the scope
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // The context to pass to the scope's work: a child of parent carrying this
  // scope (not cancelled by the scope itself).
  const Context& context() const { return ctx_; }
  std::uint64_t id() const { return id_; }
  const std::string& name() const { return name_; }
  // Ends the scope early (idempotent, from any thread); the destructor then
  // does nothing.
  void End();

  struct LiveFlag;  // shared with the opening thread's list of its scopes

 private:
  Context ctx_;
  std::uint64_t id_;
  std::string name_;
  std::shared_ptr<LiveFlag> live_;
};

// The scope the calling thread works for: the innermost Scope this thread
// created that has not ended (in any order, on any thread), else the scope of
// the task it runs in (0: none). Never a scope that has ended.
std::uint64_t CurrentScopeId();

}  // namespace tether
