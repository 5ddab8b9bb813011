// tether::Scope and the thread's current scope.
//
// A thread's current scope is the innermost *live* Scope it opened, else the
// scope its task adopted (the base). Scopes need not end in the order they
// began, nor on the thread that opened them: each opening thread keeps a
// stack of the scopes it opened, every entry shares an `ended` flag with its
// Scope, and the thread skips (and pops) ended entries when it reads its
// current scope. So CurrentScopeId() is never a scope that has ended, whoever
// ended it and in whatever order.
#include "tether/scope.hpp"

#include <atomic>
#include <memory>
#include <vector>

#include "context_node.hpp"
#include "tether/hooks.hpp"
#include "tether/trace/scope.h"

namespace tether {

struct Scope::LiveFlag {
  std::atomic<bool> ended{false};
};

namespace {

struct OpenedScope {
  std::uint64_t id;
  std::shared_ptr<Scope::LiveFlag> flag;
};

// The scope a task's thread works for, and the task (set by RunTask); 0: none.
thread_local std::uint64_t t_base_scope = 0;
thread_local std::uint64_t t_task = 0;
// The scopes this thread opened and may still be live, innermost last.
thread_local std::vector<OpenedScope> t_opened;

}  // namespace

namespace detail {
std::uint64_t SetCurrentScope(std::uint64_t scope, std::uint64_t task) {
  std::uint64_t prev = t_base_scope;
  t_base_scope = scope;
  t_task = task;
  return prev;
}
}  // namespace detail

std::uint64_t CurrentScopeId() {
  while (!t_opened.empty()) {
    if (!t_opened.back().flag->ended.load(std::memory_order_acquire)) return t_opened.back().id;
    t_opened.pop_back();
  }
  return t_base_scope;
}

Scope::Scope(const Context& parent, std::string name, std::source_location loc)
    : id_(hooks::NextId()), name_(std::move(name)), live_(std::make_shared<LiveFlag>()) {
  ctx_ = Context(detail::NewPlain(parent, hooks::ContextKind::kScope, id_, loc));
  if (auto* t = hooks::Active()) t->ScopeBegin(id_, ctx_.id(), name_, loc);
  t_opened.push_back(OpenedScope{id_, live_});
}

Scope::~Scope() { End(); }

void Scope::End() {
  if (live_->ended.exchange(true, std::memory_order_acq_rel)) return;
  // The opening thread's stack drops this entry the next time it reads its
  // current scope (at once, if this is that thread).
  (void)CurrentScopeId();
  if (auto* t = hooks::Active()) t->ScopeEnd(id_);
}

}  // namespace tether

// For libtether_threads.so (scope.h): a thread the program creates inside a
// Scope or a task is charged to the scope, with the task as its parent.
// libtether is a static library: a program's link exports this object
// (--export-dynamic-symbol, lib/context/CMakeLists.txt) so that the preloaded
// shim finds it by name.
extern "C" {
// Without a tracer installed libtether's scopes are in no trace: a thread
// charged to one would be charged to a scope the report cannot name.
static tether_thread_work CurrentThreadWork() {
  if (tether::hooks::Active() == nullptr) return tether_thread_work{0, 0};
  return tether_thread_work{tether::CurrentScopeId(), tether::t_task};
}
__attribute__((visibility("default")))
tether_context_thread_v1 tether_context_thread_v1{CurrentThreadWork};
}  // extern "C"
