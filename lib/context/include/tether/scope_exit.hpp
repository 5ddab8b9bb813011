// tether::ScopeExit — runs a function when the scope that declares it ends,
// on every path (a return, an exception): the RAII way to call a CancelFunc
// or wait for a task group, as Go's `defer cancel()`.
//
//   auto [ctx, cancel] = tether::WithTimeout(parent, 30s);
//   tether::ScopeExit release{[&] { cancel(); }};
//
// It belongs to the one scope that declared it: not copyable, not movable.
// Release() disarms it. The function must not throw (it may run during
// unwinding).
#pragma once

#include <type_traits>
#include <utility>

namespace tether {

template <class F>
class ScopeExit {
 public:
  explicit ScopeExit(F f) noexcept(std::is_nothrow_move_constructible_v<F>) : f_(std::move(f)) {}
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;
  ~ScopeExit() {
    if (armed_) f_();
  }

  // The function will not run.
  void Release() noexcept { armed_ = false; }

 private:
  F f_;
  bool armed_ = true;
};

template <class F>
ScopeExit(F) -> ScopeExit<F>;

}  // namespace tether
