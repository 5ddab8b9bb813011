// tether::Select: one Waiter registered with every source; no polling.
#include "tether/select.hpp"

#include <algorithm>

#include "signal_state.hpp"

namespace tether {

Select& Select::OnDone(const Context& ctx, std::function<void()> handler) {
  return OnSignal(ctx.Done(), std::move(handler));
}

Select& Select::OnSignal(const Signal& signal, std::function<void()> handler) {
  detail::SelectCase c;
  c.try_ready = [signal] { return detail::SignalAccess::FiredSettled(signal); };
  c.attach = [signal](detail::Waiter* w) { return signal.Register(w); };
  c.detach = [signal](detail::Waiter* w) { signal.Unregister(w); };
  c.run = std::move(handler);
  return AddCase(std::move(c));
}

Select& Select::OnTimer(Duration after, std::function<void()> handler) {
  return OnDeadline(Clock::now() + after, std::move(handler));
}

Select& Select::OnDeadline(TimePoint at, std::function<void()> handler) {
  // A timer needs no thread and no registration: Wait() sleeps until the
  // earliest deadline among its cases.
  detail::SelectCase c;
  c.try_ready = [at] { return Clock::now() >= at; };
  c.attach = [at](detail::Waiter*) { return Clock::now() < at; };
  c.detach = [](detail::Waiter*) {};
  c.run = std::move(handler);
  c.deadline = at;
  return AddCase(std::move(c));
}

Select& Select::AddCase(detail::SelectCase c) {
  cases_.push_back(std::move(c));
  return *this;
}

std::size_t Select::Wait() {
  // Non-timer cases first (in declaration order), then timers: a ready
  // receive wins over a timer that expired at the same moment.
  auto try_all = [&]() -> std::optional<std::size_t> {
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t i = 0; i < cases_.size(); ++i) {
        if (cases_[i].deadline.has_value() != (pass == 1)) continue;
        if (cases_[i].try_ready()) return i;
      }
    }
    return std::nullopt;
  };
  std::optional<TimePoint> earliest;
  for (const auto& c : cases_) {
    if (c.deadline && (!earliest || *c.deadline < *earliest)) earliest = c.deadline;
  }
  detail::Waiter waiter;
  for (;;) {
    if (auto ready = try_all()) {
      if (cases_[*ready].run) cases_[*ready].run();
      return *ready;
    }
    // Register with every source; a source that became ready in between
    // refuses the registration, and we look again.
    std::size_t attached = 0;
    bool raced = false;
    for (; attached < cases_.size(); ++attached) {
      if (!cases_[attached].attach(&waiter)) {
        raced = true;
        break;
      }
    }
    if (!raced) waiter.WaitUntil(earliest);
    for (std::size_t i = 0; i < attached; ++i) cases_[i].detach(&waiter);
  }
}

}  // namespace tether
