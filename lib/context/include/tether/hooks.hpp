// Tracer hook points of libtether.
//
// libtether calls these at every context creation/cancellation, task
// spawn/start/end, group wait, scope begin/end and channel close. When no
// tracer is installed (the normal case) each hook site costs one relaxed
// atomic load and one predictable branch, and does no other work: ids are
// only assigned, names only built, while a tracer is installed.
//
// The tracer runtime (lib/trace) implements Tracer and installs itself when
// TETHER_TRACE=<path> is set; tests may install their own.
#pragma once

#include <atomic>
#include <cstdint>
#include <source_location>
#include <string_view>

#include "tether/error.hpp"

namespace tether::hooks {

enum class ContextKind : unsigned char {
  kBackground,
  kTODO,
  kCancel,    // WithCancel / WithCancelCause
  kDeadline,  // WithDeadline / WithTimeout
  kValue,     // WithValue
  kWithoutCancel,
  kGroup,  // the context of TaskGroup::WithContext
  kScope,  // the context of a tether::Scope
};

class Tracer {
 public:
  virtual ~Tracer() = default;
  // Contexts. parent is 0 for roots. scope is the scope the new context belongs to.
  virtual void ContextCreated(std::uint64_t ctx, std::uint64_t parent, ContextKind kind,
                              std::uint64_t scope, const std::source_location& loc) = 0;
  virtual void ContextDone(std::uint64_t ctx, ErrorCode why) = 0;
  // Tasks. group is 0 for a detached tether::Go task. detached_from is the
  // scope the spawning thread worked for when ctx carries no scope (a root
  // spawned inside a scope), else 0.
  virtual void TaskSpawned(std::uint64_t task, std::uint64_t ctx, std::uint64_t group,
                           std::uint64_t scope, std::uint64_t detached_from, std::string_view name,
                           const std::source_location& loc) = 0;
  virtual void TaskStarted(std::uint64_t task) = 0;
  virtual void TaskEnded(std::uint64_t task, ErrorCode result) = 0;
  // Groups.
  virtual void GroupCreated(std::uint64_t group, std::uint64_t ctx,
                            const std::source_location& loc) = 0;
  virtual void GroupWaitBegin(std::uint64_t group, const std::source_location& loc) = 0;
  virtual void GroupWaitEnd(std::uint64_t group, ErrorCode result) = 0;
  virtual void GroupDestroyedUnwaited(std::uint64_t group, std::uint64_t running_tasks) = 0;
  // Scopes.
  virtual void ScopeBegin(std::uint64_t scope, std::uint64_t ctx, std::string_view name,
                          const std::source_location& loc) = 0;
  virtual void ScopeEnd(std::uint64_t scope) = 0;
  // Channels (identified by address of their shared state).
  virtual void ChannelClosed(std::uint64_t channel, const std::source_location& loc) = 0;
};

namespace detail {
// Read by every event from every thread, written once: on a cache line of its
// own, so that no variable the linker puts beside it (a counter written per
// task) makes those reads miss.
alignas(64) inline std::atomic<Tracer*> g_tracer{nullptr};
}  // namespace detail

// The installed tracer, or null (the hot-path check).
inline Tracer* Active() { return detail::g_tracer.load(std::memory_order_acquire); }
// Installs t (null uninstalls). Returns the previous tracer. Not meant to be
// switched while tasks run: install before the first spawn.
Tracer* Install(Tracer* t);
// A fresh process-unique id (contexts, tasks, groups, scopes share the space).
std::uint64_t NextId();

}  // namespace tether::hooks
