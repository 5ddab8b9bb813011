// tether::Scope and the thread's current scope.
#include "tether/scope.hpp"

#include "context_node.hpp"
#include "tether/hooks.hpp"

namespace tether {

namespace {
// The scope the calling thread works for (0: none). Set by a live Scope
// object on this thread, and by a task's thread to its context's scope.
thread_local std::uint64_t t_current_scope = 0;
}  // namespace

namespace detail {
std::uint64_t SetCurrentScope(std::uint64_t scope) {
  std::uint64_t prev = t_current_scope;
  t_current_scope = scope;
  return prev;
}
}  // namespace detail

std::uint64_t CurrentScopeId() { return t_current_scope; }

Scope::Scope(const Context& parent, std::string name, std::source_location loc)
    : id_(hooks::NextId()), name_(std::move(name)) {
  ctx_ = Context(detail::NewPlain(parent, hooks::ContextKind::kScope, id_, loc));
  if (auto* t = hooks::Active()) t->ScopeBegin(id_, ctx_.id(), name_, loc);
  previous_scope_ = detail::SetCurrentScope(id_);
  owner_thread_ = std::this_thread::get_id();
}

Scope::~Scope() { End(); }

void Scope::End() {
  if (ended_) return;
  ended_ = true;
  // Only the thread that opened the scope restores its own current scope;
  // ending it from elsewhere must not clobber that thread's state.
  if (std::this_thread::get_id() == owner_thread_ && CurrentScopeId() == id_) {
    detail::SetCurrentScope(previous_scope_);
  }
  if (auto* t = hooks::Active()) t->ScopeEnd(id_);
}

}  // namespace tether
