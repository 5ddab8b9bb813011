// Internal: the node behind every tether::Context, and the helpers the rest
// of libtether (TaskGroup, Scope, AfterFunc) builds on.
//
// One node class covers Go's emptyCtx, cancelCtx, timerCtx, valueCtx and
// withoutCancelCtx: the kind says which fields matter. A node points up to its
// parent (strongly: values and ancestors stay alive as long as a descendant),
// and a cancellable node keeps an intrusive list of its cancellable children
// (raw links, guarded by its mutex) so that a cancel reaches every descendant.
// A child unlinks itself when it is cancelled (the CancelFunc contract) or
// destroyed, so a parent never points at a dead child.
#pragma once

#include <any>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <source_location>
#include <vector>

#include "signal_state.hpp"
#include "tether/context.hpp"
#include "tether/hooks.hpp"

namespace tether::detail {

// The shared state of one AfterFunc registration. state: 0 pending, 1 started
// (f runs or ran), 2 stopped; the one CAS away from 0 decides.
// The tracer sees the callback as a detached task of the registering
// context (spawned when it fires), so the context's ids are kept, not the
// context itself: the node holds this state, which must not hold the node.
struct AfterFuncState {
  std::atomic<int> state{0};
  std::function<void()> f;
  std::uint64_t ctx_id = 0;
  std::uint64_t scope = 0;
  std::uint64_t detached_from = 0;  // the registering thread's scope, when ctx has none
  std::source_location loc;
};

// Runs an AfterFunc callback on its own detached thread, traced as a task.
void RunAfterFunc(const std::shared_ptr<AfterFuncState>& st);

class ContextNode : public std::enable_shared_from_this<ContextNode> {
 public:
  ContextNode(hooks::ContextKind kind, std::shared_ptr<ContextNode> parent_node, bool cancellable);
  ~ContextNode();
  ContextNode(const ContextNode&) = delete;
  ContextNode& operator=(const ContextNode&) = delete;

  // --- Set before the node is published, immutable afterwards. ---
  const hooks::ContextKind kind;
  std::uint64_t id = 0;     // 0 unless a tracer was installed at creation
  std::uint64_t scope = 0;  // inherited from the parent; a Scope node sets its own
  // Null for roots. Released iteratively by ~ContextNode (a chain of 100k
  // derivations must not recurse 100k destructors deep).
  std::shared_ptr<ContextNode> parent;
  // This node if it is cancellable, else the nearest cancellable ancestor;
  // null when nothing can cancel this context (roots, WithoutCancel chains).
  // Alive as long as this node: it is this node or reachable through parent.
  ContextNode* canceller = nullptr;
  std::optional<TimePoint> deadline;  // never later than the parent's
  const void* key = nullptr;          // value nodes: the ContextKey's address
  std::any value;

  // --- Cancellable nodes only. ---
  SignalState done_signal;  // fired once, under mu_, together with setting err_
  bool Cancelled() const { return done_signal.Fired(); }
  Error Err();
  Error Cause();
  // Cancels this node and every descendant (err and cause propagate down);
  // with release, also unlinks it from its parent. Idempotent.
  void Cancel(bool release, const Error& err, const Error& cause);
  // Links a freshly built cancellable child (or cancels it at once if this
  // node is already done).
  void AttachChild(const std::shared_ptr<ContextNode>& child);
  // AfterFunc: runs st->f on its own thread once this node is done.
  void AddAfterFunc(const std::shared_ptr<AfterFuncState>& st);
  void RemoveAfterFunc(const AfterFuncState* st);
  // Linked cancellable children (tests check that a cancel releases a child).
  std::size_t ChildCount();
  // Deadline nodes: the timer-service key (set once, before publication).
  std::uint64_t timer_key = 0;

 private:
  // One node's own cancel step: returns its live children, already unlinked.
  std::vector<std::shared_ptr<ContextNode>> CancelSelf(const Error& err, const Error& cause);
  void Unlink();
  void ReleaseParent();

  FutexLock& mu_ = done_signal.mutex();  // one lock for the cancel state and the waiters
  Error err_;    // written once under mu_ before done_signal fires; then immutable
  Error cause_;  // likewise
  ContextNode* first_child_ = nullptr;                        // guarded by mu_
  std::vector<std::shared_ptr<AfterFuncState>> after_funcs_;  // guarded by mu_

  // Our link in cancel_parent_'s child list: guarded by cancel_parent_->mu_.
  ContextNode* const cancel_parent_;
  ContextNode* prev_sibling_ = nullptr;
  ContextNode* next_sibling_ = nullptr;
  // Written under cancel_parent_->mu_, the parent's last touch of this node
  // when it unlinks it; read without the lock to skip locking when unlinked.
  std::atomic<bool> linked_{false};
};

// Builds a cancellable child of parent of the given kind and reports it to the
// tracer. The caller owns cancelling it.
std::shared_ptr<ContextNode> NewCancellable(const Context& parent, hooks::ContextKind kind,
                                            std::source_location loc);
// Builds a non-cancellable child (values, scopes, WithoutCancel) and reports it.
std::shared_ptr<ContextNode> NewPlain(const Context& parent, hooks::ContextKind kind,
                                      std::uint64_t scope_override, std::source_location loc);

// The scope the calling thread's task works for, and the task (0: none), as
// CurrentScopeId() and libtether_threads.so see them (scope.cpp). Returns the
// previous scope.
std::uint64_t SetCurrentScope(std::uint64_t scope, std::uint64_t task);

// Deadline timers: one shared thread for the whole process (timer.cpp).
std::uint64_t NewTimerKey();  // unique, never 0
void AddTimer(TimePoint when, std::uint64_t key, std::weak_ptr<ContextNode> node);
void RemoveTimer(TimePoint when, std::uint64_t key);  // no-op if gone

// Runs f on a thread of its own from the process-wide thread cache
// (thread_cache.cpp): an idle cached thread, or a new one. Nobody joins it.
void RunDetachedThread(std::function<void()> f);

}  // namespace tether::detail
