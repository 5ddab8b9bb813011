// libtether: Go's context package in C++20.
//
// Rules of use (as in Go):
//  - A function that does work on behalf of a unit of work (a build, a request)
//    takes a `const tether::Context&` as its first parameter, named ctx, and
//    passes it on to whatever it calls. It does not store it in a long-lived
//    object and does not create a fresh root (Background()/TODO()) instead.
//  - Only main(), tests, static initialisers and thread entry points with no
//    context create roots. Anything else that must outlive its caller's
//    cancellation detaches visibly: WithoutCancel(ctx), with a
//    `// tether:detached(<why>)` comment that says why.
//  - Every CancelFunc returned by a With* function is called on every path,
//    as soon as the work under that context is done (it releases the node
//    from its parent; calling it twice is harmless).
//  - Cancellation flows from a parent to all its descendants, never upwards.
//    A child's deadline is never later than its parent's.
//
// Context is a cheap, copyable handle (one shared_ptr). All methods are safe
// to call from any thread.
#pragma once

#include <any>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <utility>

#include "tether/error.hpp"
#include "tether/signal.hpp"

namespace tether {

using Clock = std::chrono::steady_clock;
using Duration = Clock::duration;
using TimePoint = Clock::time_point;

namespace detail {
class ContextNode;
// Cancels node and its descendants and releases it from its parent.
void CancelNode(ContextNode& node);
}  // namespace detail

// A typed key for WithValue/Value. Keys compare by address: declare them as
// namespace-scope (or static) constants, one per value kind.
//   inline const tether::ContextKey<std::string> kRequestId{"request-id"};
template <class T>
class ContextKey {
 public:
  explicit constexpr ContextKey(const char* name) : name_(name) {}
  const char* name() const { return name_; }

 private:
  const char* name_;
};

class Context {
 public:
  // A default-constructed Context is Background(): never cancelled, no values.
  Context();

  // A signal that fires when this context is cancelled or its deadline
  // passes. It never fires for Background()/TODO()/WithoutCancel() chains.
  // Wait on it alone (Done().Wait()) or with other sources (tether::Select).
  Signal Done() const;
  // Ok while not done; then Canceled or DeadlineExceeded, forever.
  Error Err() const;
  // The cause given to the CancelCauseFunc that cancelled this context (or an
  // ancestor); Err() when no cause was given; ok while not done.
  Error Cause() const;
  // The deadline after which this context is done, if any.
  std::optional<TimePoint> Deadline() const;
  // The value for key on this context or its nearest ancestor; null if none.
  template <class T>
  const T* Value(const ContextKey<T>& key) const {
    const std::any* v = FindValue(&key);
    return v ? std::any_cast<T>(v) : nullptr;
  }

  // True for the roots (Background, TODO) and for WithoutCancel: nothing can
  // ever cancel this context.
  bool IsRoot() const;
  // A process-unique id, stable for the context's lifetime (0 for the shared
  // Background and TODO roots); the tracer names contexts by it.
  std::uint64_t id() const;
  // The id of the tracer scope this context belongs to (0: none). See scope.hpp.
  std::uint64_t scope_id() const;

  // Implementation access (libtether and the tracer only).
  explicit Context(std::shared_ptr<detail::ContextNode> node) : node_(std::move(node)) {}
  const std::shared_ptr<detail::ContextNode>& node() const { return node_; }

 private:
  const std::any* FindValue(const void* key) const;
  std::shared_ptr<detail::ContextNode> node_;
};

// Cancels the context it came from and all its descendants, and releases it
// from its parent. Idempotent, thread-safe. Must be called on every path.
class CancelFunc {
 public:
  CancelFunc() = default;
  explicit CancelFunc(std::function<void()> f) : f_(std::move(f)) {}
  // libtether's own: cancels node directly (no type erasure, no allocation).
  explicit CancelFunc(std::shared_ptr<detail::ContextNode> node) : node_(std::move(node)) {}
  void operator()() const {
    if (node_) {
      detail::CancelNode(*node_);
    } else if (f_) {
      f_();
    }
  }

 private:
  std::function<void()> f_;
  std::shared_ptr<detail::ContextNode> node_;  // keeps the node alive while cancellable
};

// Like CancelFunc, but records a cause that Context::Cause() returns.
class CancelCauseFunc {
 public:
  CancelCauseFunc() = default;
  explicit CancelCauseFunc(std::function<void(Error)> f) : f_(std::move(f)) {}
  void operator()(Error cause = Error::Canceled()) const {
    if (f_) f_(std::move(cause));
  }

 private:
  std::function<void(Error)> f_;
};

struct ContextAndCancel {
  Context ctx;
  CancelFunc cancel;
};
struct ContextAndCancelCause {
  Context ctx;
  CancelCauseFunc cancel;
};

// Roots. Background is for main, tests and initialisation; TODO marks a place
// where the right context is not plumbed yet.
Context Background();
Context TODO();

// Derivations. Each returns a child of parent, done when parent is done or
// when its own cancel (or deadline) fires, whichever is first.
ContextAndCancel WithCancel(const Context& parent,
                            std::source_location loc = std::source_location::current());
ContextAndCancelCause WithCancelCause(const Context& parent,
                                      std::source_location loc = std::source_location::current());
// The deadline is min(parent's deadline, d).
ContextAndCancel WithDeadline(const Context& parent, TimePoint d,
                              std::source_location loc = std::source_location::current());
ContextAndCancel WithTimeout(const Context& parent, Duration timeout,
                             std::source_location loc = std::source_location::current());

namespace detail {
Context WithAnyValue(const Context& parent, const void* key, std::any value,
                     std::source_location loc);
}  // namespace detail

template <class T, class V>
Context WithValue(const Context& parent, const ContextKey<T>& key, V&& value,
                  std::source_location loc = std::source_location::current()) {
  return detail::WithAnyValue(parent, &key, std::any(T(std::forward<V>(value))), loc);
}

// Keeps parent's values (and scope), drops its cancellation and deadline: the
// explicit, visible way to detach. Justify every use with
// `// tether:detached(<why>)`.
Context WithoutCancel(const Context& parent,
                      std::source_location loc = std::source_location::current());

// Arranges for f to run on its own thread once ctx is done. The returned stop
// function unregisters f; it returns true if that prevented f from running.
// (Go: context.AfterFunc.) f runs at most once.
std::function<bool()> AfterFunc(const Context& ctx, std::function<void()> f,
                                std::source_location loc = std::source_location::current());

}  // namespace tether
