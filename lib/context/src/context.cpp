// Context nodes: creation, cancellation propagation, values, deadlines.
#include "tether/context.hpp"

#include <utility>

#include "context_node.hpp"
#include "node_pool.hpp"
#include "tether/hooks.hpp"
#include "tether/scope.hpp"

namespace tether {
namespace detail {

void RunAfterFunc(const std::shared_ptr<AfterFuncState>& st) {
  std::uint64_t task = 0;
  if (auto* t = hooks::Active()) {
    task = hooks::NextId();
    t->TaskSpawned(task, st->ctx_id, 0, st->scope, st->detached_from, "AfterFunc", st->loc);
  }
  RunDetachedThread([st, task] {
    SetCurrentScope(st->scope, task);
    if (task != 0) {
      if (auto* t = hooks::Active()) t->TaskStarted(task);
    }
    st->f();
    if (task != 0) {
      if (auto* t = hooks::Active()) t->TaskEnded(task, ErrorCode::kOk);
    }
    SetCurrentScope(0, 0);  // the cached thread may run another task next
  });
}

ContextNode::ContextNode(hooks::ContextKind k, std::shared_ptr<ContextNode> parent_node,
                         bool cancellable)
    : kind(k),
      parent(std::move(parent_node)),
      cancel_parent_(cancellable && parent ? parent->canceller : nullptr) {
  if (parent) {
    scope = parent->scope;
    deadline = parent->deadline;
    canceller = parent->canceller;
  }
  if (cancellable) {
    canceller = this;
    done_signal.SetOwnedByContext();
  }
}

ContextNode::~ContextNode() {
  if (timer_key != 0) RemoveTimer(*deadline, timer_key);
  if (cancel_parent_ != nullptr && linked_.load(std::memory_order_acquire)) {
    std::lock_guard<FutexLock> lock(cancel_parent_->mu_);
    Unlink();
  }
  ReleaseParent();
}

namespace {
// Parents whose release was deferred by a destructor further down the chain.
thread_local std::vector<std::shared_ptr<ContextNode>> t_release_queue;
thread_local bool t_releasing = false;
// Set when t_release_queue got an entry. Trivially initialised, so reading
// it costs no thread-local initialisation check: the usual release (a parent
// that is not destroyed with its child) never touches the vector.
thread_local bool t_release_queued = false;
}  // namespace

void ContextNode::ReleaseParent() {
  if (!parent) return;
  if (t_releasing) {
    t_release_queue.push_back(std::move(parent));
    t_release_queued = true;
    return;
  }
  t_releasing = true;
  parent.reset();  // may destroy the parent, which queues its own parent
  if (t_release_queued) {
    while (!t_release_queue.empty()) {
      std::shared_ptr<ContextNode> next = std::move(t_release_queue.back());
      t_release_queue.pop_back();
      next.reset();
    }
    t_release_queued = false;
  }
  t_releasing = false;
}

// Requires cancel_parent_->mu_.
void ContextNode::Unlink() {
  if (!linked_.load(std::memory_order_relaxed)) return;
  if (prev_sibling_ != nullptr) {
    prev_sibling_->next_sibling_ = next_sibling_;
  } else {
    cancel_parent_->first_child_ = next_sibling_;
  }
  if (next_sibling_ != nullptr) next_sibling_->prev_sibling_ = prev_sibling_;
  prev_sibling_ = next_sibling_ = nullptr;
  linked_.store(false, std::memory_order_release);
}

// err_ and cause_ are written once, under mu_, before the done signal's
// fired flag is set (release); after seeing it set (acquire) they are
// immutable, so no lock is needed. Callers may hold other locks (a channel's).
Error ContextNode::Err() {
  if (!Cancelled()) return Error();
  return err_;
}

Error ContextNode::Cause() {
  if (!Cancelled()) return Error();
  return cause_;
}

std::size_t ContextNode::ChildCount() {
  std::lock_guard<FutexLock> lock(mu_);
  std::size_t n = 0;
  for (ContextNode* c = first_child_; c != nullptr; c = c->next_sibling_) ++n;
  return n;
}

void ContextNode::AttachChild(const std::shared_ptr<ContextNode>& child) {
  {
    std::lock_guard<FutexLock> lock(mu_);
    if (!Cancelled()) {
      child->next_sibling_ = first_child_;
      if (first_child_ != nullptr) first_child_->prev_sibling_ = child.get();
      first_child_ = child.get();
      child->linked_.store(true, std::memory_order_relaxed);
      return;
    }
  }
  // Done: err_ and cause_ are immutable now (see Err()), and this node
  // outlives the call (the child holds it).
  child->Cancel(false, err_, cause_);
}

std::vector<std::shared_ptr<ContextNode>> ContextNode::CancelSelf(const Error& err,
                                                                  const Error& cause) {
  std::vector<std::shared_ptr<ContextNode>> children;
  std::vector<std::shared_ptr<AfterFuncState>> after;
  {
    std::lock_guard<FutexLock> lock(mu_);
    if (Cancelled()) return children;
    err_ = err;
    cause_ = cause.ok() ? err : cause;
    for (ContextNode* c = first_child_; c != nullptr;) {
      ContextNode* next = c->next_sibling_;
      // A child whose last handle is going away is skipped: its destructor
      // is about to (harmlessly) find itself unlinked.
      if (auto strong = c->weak_from_this().lock()) children.push_back(std::move(strong));
      c->prev_sibling_ = c->next_sibling_ = nullptr;
      c->linked_.store(false, std::memory_order_release);  // our last touch of c
      c = next;
    }
    first_child_ = nullptr;
    after.swap(after_funcs_);
    done_signal.FireLocked();  // after err_ is set: Done() implies Err() != ok
  }
  if (id != 0) {
    if (auto* t = hooks::Active()) t->ContextDone(id, err.code());
  }
  if (timer_key != 0) RemoveTimer(*deadline, timer_key);
  for (auto& st : after) {
    int pending = 0;
    if (st->state.compare_exchange_strong(pending, 1)) {
      RunAfterFunc(st);
    }
  }
  return children;
}

void ContextNode::Cancel(bool release, const Error& err, const Error& cause) {
  // Iterative, so a chain of 10k descendants cannot overflow the stack, and
  // no two node locks are ever held at once.
  std::vector<std::shared_ptr<ContextNode>> work = CancelSelf(err, cause);
  if (!work.empty()) {
    const Error child_cause = cause.ok() ? err : cause;
    while (!work.empty()) {
      std::shared_ptr<ContextNode> n = std::move(work.back());
      work.pop_back();
      auto more = n->CancelSelf(err, child_cause);
      for (auto& m : more) work.push_back(std::move(m));
    }
  }
  if (release && cancel_parent_ != nullptr && linked_.load(std::memory_order_acquire)) {
    std::lock_guard<FutexLock> lock(cancel_parent_->mu_);
    Unlink();
  }
}

void ContextNode::AddAfterFunc(const std::shared_ptr<AfterFuncState>& st) {
  {
    std::lock_guard<FutexLock> lock(mu_);
    if (!Cancelled()) {
      after_funcs_.push_back(st);
      return;
    }
  }
  int pending = 0;
  if (st->state.compare_exchange_strong(pending, 1)) RunAfterFunc(st);
}

void ContextNode::RemoveAfterFunc(const AfterFuncState* st) {
  std::lock_guard<FutexLock> lock(mu_);
  for (auto it = after_funcs_.begin(); it != after_funcs_.end(); ++it) {
    if (it->get() == st) {
      after_funcs_.erase(it);
      return;
    }
  }
}

// A derived node, from this thread's block cache (node_pool.hpp). The two
// roots are made once and never freed, so they skip it.
template <class... Args>
std::shared_ptr<ContextNode> MakeNode(Args&&... args) {
  return std::allocate_shared<ContextNode>(NodeAllocator<ContextNode>(),
                                           std::forward<Args>(args)...);
}

void CancelNode(ContextNode& node) { node.Cancel(true, Error::Canceled(), Error()); }

namespace {

void ReportCreated(ContextNode& node, std::source_location loc) {
  if (auto* t = hooks::Active()) {
    node.id = hooks::NextId();
    t->ContextCreated(node.id, node.parent ? node.parent->id : 0, node.kind, node.scope, loc);
  }
}

// The two shared roots live for the whole process (never destroyed, so a
// Context used by a static destructor stays valid). Their handles own
// nothing (shared_ptr's aliasing constructor with an empty owner): a copy of
// Background() is two plain stores. A shared count would be an atomic
// increment and decrement on one cache line that every thread calling
// Background() writes: most of the time of a producer and a consumer passing
// Background() to a channel (bench/results/vs-go.md). A root is never a
// child, never cancelled and has no timer, so nothing needs its weak_ptr.
const std::shared_ptr<ContextNode>& Root(hooks::ContextKind kind) {
  static auto* background = new std::shared_ptr<ContextNode>(
      std::shared_ptr<void>(), new ContextNode(hooks::ContextKind::kBackground, nullptr, false));
  static auto* todo = new std::shared_ptr<ContextNode>(
      std::shared_ptr<void>(), new ContextNode(hooks::ContextKind::kTODO, nullptr, false));
  return kind == hooks::ContextKind::kTODO ? *todo : *background;
}

}  // namespace

std::shared_ptr<ContextNode> NewCancellable(const Context& parent, hooks::ContextKind kind,
                                            std::source_location loc) {
  auto node = MakeNode(kind, parent.node(), true);
  ReportCreated(*node, loc);
  if (ContextNode* p = parent.node()->canceller) p->AttachChild(node);
  return node;
}

std::shared_ptr<ContextNode> NewPlain(const Context& parent, hooks::ContextKind kind,
                                      std::uint64_t scope_override, std::source_location loc) {
  auto node = MakeNode(kind, parent.node(), false);
  if (kind == hooks::ContextKind::kWithoutCancel) {
    node->canceller = nullptr;
    node->deadline.reset();
  }
  if (scope_override != 0) node->scope = scope_override;
  ReportCreated(*node, loc);
  return node;
}

Context WithAnyValue(const Context& parent, const void* key, std::any value,
                     std::source_location loc) {
  auto node = MakeNode(hooks::ContextKind::kValue, parent.node(), false);
  node->key = key;
  node->value = std::move(value);
  ReportCreated(*node, loc);
  return Context(std::move(node));
}

}  // namespace detail

using detail::ContextNode;

Context::Context() : node_(detail::Root(hooks::ContextKind::kBackground)) {}

Signal Context::Done() const {
  ContextNode* c = node_->canceller;
  if (c == nullptr) return Signal();
  // Aliasing: the handle shares ownership of our node, which keeps its
  // canceller (itself or an ancestor) alive.
  return detail::SignalAccess::Wrap(std::shared_ptr<detail::SignalState>(node_, &c->done_signal));
}

Error Context::Err() const {
  ContextNode* c = node_->canceller;
  return c ? c->Err() : Error();
}

Error Context::Cause() const {
  ContextNode* c = node_->canceller;
  return c ? c->Cause() : Error();
}

std::optional<TimePoint> Context::Deadline() const { return node_->deadline; }

bool Context::IsRoot() const { return node_->canceller == nullptr; }

std::uint64_t Context::id() const { return node_->id; }

std::uint64_t Context::scope_id() const { return node_->scope; }

const std::any* Context::FindValue(const void* key) const {
  for (const ContextNode* n = node_.get(); n != nullptr; n = n->parent.get()) {
    if (n->key == key) return &n->value;
  }
  return nullptr;
}

Context Background() { return Context(detail::Root(hooks::ContextKind::kBackground)); }
Context TODO() { return Context(detail::Root(hooks::ContextKind::kTODO)); }

namespace {

CancelFunc MakeCancelFunc(std::shared_ptr<ContextNode> node) { return CancelFunc(std::move(node)); }

}  // namespace

ContextAndCancel WithCancel(const Context& parent, std::source_location loc) {
  auto node = detail::NewCancellable(parent, hooks::ContextKind::kCancel, loc);
  Context ctx(node);
  return {std::move(ctx), MakeCancelFunc(std::move(node))};
}

ContextAndCancelCause WithCancelCause(const Context& parent, std::source_location loc) {
  auto node = detail::NewCancellable(parent, hooks::ContextKind::kCancel, loc);
  Context ctx(node);
  CancelCauseFunc cancel(
      [node = std::move(node)](Error cause) { node->Cancel(true, Error::Canceled(), cause); });
  return {std::move(ctx), std::move(cancel)};
}

ContextAndCancel WithDeadline(const Context& parent, TimePoint d, std::source_location loc) {
  const auto& parent_deadline = parent.node()->deadline;
  if (parent_deadline && *parent_deadline <= d) {
    // The parent's deadline comes first: a plain cancel node is enough (Go
    // does the same), and Deadline() reports the parent's, the earlier one.
    return WithCancel(parent, loc);
  }
  auto node = detail::MakeNode(hooks::ContextKind::kDeadline, parent.node(), true);
  node->deadline = d;
  node->timer_key = detail::NewTimerKey();  // before publication: read by any cancel
  detail::ReportCreated(*node, loc);
  if (ContextNode* p = parent.node()->canceller) p->AttachChild(node);
  if (Clock::now() >= d) {
    node->Cancel(true, Error::DeadlineExceeded(), Error());
  } else {
    // If a parent cancel already ran, its RemoveTimer came first and this
    // entry stays until it expires (a no-op then) or ~ContextNode drops it.
    detail::AddTimer(d, node->timer_key, node);
  }
  return {Context(node), MakeCancelFunc(node)};
}

ContextAndCancel WithTimeout(const Context& parent, Duration timeout, std::source_location loc) {
  return WithDeadline(parent, Clock::now() + timeout, loc);
}

Context WithoutCancel(const Context& parent, std::source_location loc) {
  return Context(detail::NewPlain(parent, hooks::ContextKind::kWithoutCancel, 0, loc));
}

std::function<bool()> AfterFunc(const Context& ctx, std::function<void()> f,
                                std::source_location loc) {
  auto st = std::make_shared<detail::AfterFuncState>();
  st->f = std::move(f);
  st->ctx_id = ctx.id();
  st->scope = ctx.scope_id();
  st->detached_from = st->scope == 0 ? CurrentScopeId() : 0;
  st->loc = loc;
  // Keep the context alive while the registration can still fire.
  std::shared_ptr<ContextNode> node = ctx.node();
  if (ContextNode* c = node->canceller) c->AddAfterFunc(st);
  return [st, node] {
    int pending = 0;
    if (!st->state.compare_exchange_strong(pending, 2)) return false;
    if (ContextNode* c = node->canceller) c->RemoveAfterFunc(st.get());
    return true;
  };
}

}  // namespace tether
