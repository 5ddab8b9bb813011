// tether::Select: one Waiter registered with every source; no polling.
#include "tether/select.hpp"

#include <utility>

#include "signal_state.hpp"

namespace tether {
namespace {

// A Done signal's or another Signal's case: ready once it has fired.
class SignalCase final : public detail::SelectCase {
 public:
  SignalCase(Signal signal, std::function<void()> handler)
      : signal_(std::move(signal)), handler_(std::move(handler)) {}
  bool TryReady() override { return detail::SignalAccess::FiredSettled(signal_); }
  bool Attach(detail::Waiter* w) override { return signal_.Register(w); }
  void Detach(detail::Waiter* w) override { signal_.Unregister(w); }
  void Run() override {
    if (handler_) handler_();
  }

 private:
  Signal signal_;
  std::function<void()> handler_;
};

// A timer needs no thread and no registration: Wait() sleeps until the
// earliest deadline among its cases.
class DeadlineCase final : public detail::SelectCase {
 public:
  DeadlineCase(TimePoint at, std::function<void()> handler) : handler_(std::move(handler)) {
    deadline = at;
  }
  bool TryReady() override { return Clock::now() >= *deadline; }
  bool Attach(detail::Waiter*) override { return Clock::now() < *deadline; }
  void Detach(detail::Waiter*) override {}
  void Run() override {
    if (handler_) handler_();
  }

 private:
  std::function<void()> handler_;
};

}  // namespace

Select::~Select() {
  for (std::size_t i = 0; i < size(); ++i) {
    const Entry& e = entry(i);
    if (e.on_heap)
      delete e.c;
    else
      e.c->~SelectCase();
  }
}

Select& Select::OnDone(const Context& ctx, std::function<void()> handler) {
  return OnSignal(ctx.Done(), std::move(handler));
}

Select& Select::OnSignal(const Signal& signal, std::function<void()> handler) {
  return Emplace<SignalCase>(signal, std::move(handler));
}

Select& Select::OnTimer(Duration after, std::function<void()> handler) {
  return OnDeadline(Clock::now() + after, std::move(handler));
}

Select& Select::OnDeadline(TimePoint at, std::function<void()> handler) {
  return Emplace<DeadlineCase>(at, std::move(handler));
}

Select& Select::AddCase(detail::FunctionCase c) {
  return Emplace<detail::FunctionCase>(std::move(c));
}

void* Select::InlineSpace(std::size_t size, std::size_t align) {
  if (align > alignof(std::max_align_t)) return nullptr;
  const std::size_t at = (storage_used_ + align - 1) / align * align;
  if (at > kInlineBytes || size > kInlineBytes - at) return nullptr;
  storage_used_ = at + size;
  return storage_ + at;
}

void Select::Push(detail::SelectCase* c, bool on_heap) {
  if (count_ < kInlineCases)
    entries_[count_] = Entry{c, on_heap};
  else
    more_.push_back(Entry{c, on_heap});
  ++count_;
}

std::size_t Select::Wait() {
  // Non-timer cases first (in declaration order), then timers: a ready
  // receive wins over a timer that expired at the same moment.
  auto try_all = [&]() -> std::optional<std::size_t> {
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t i = 0; i < size(); ++i) {
        if (at(i).deadline.has_value() != (pass == 1)) continue;
        if (at(i).TryReady()) return i;
      }
    }
    return std::nullopt;
  };
  std::optional<TimePoint> earliest;
  for (std::size_t i = 0; i < size(); ++i) {
    const auto& deadline = at(i).deadline;
    if (deadline && (!earliest || *deadline < *earliest)) earliest = deadline;
  }
  detail::Waiter waiter;
  for (;;) {
    if (auto ready = try_all()) {
      at(*ready).Run();
      return *ready;
    }
    // Register with every source; a source that became ready in between
    // refuses the registration, and we look again.
    std::size_t attached = 0;
    bool raced = false;
    for (; attached < size(); ++attached) {
      if (!at(attached).Attach(&waiter)) {
        raced = true;
        break;
      }
    }
    if (!raced) waiter.WaitUntil(earliest);
    for (std::size_t i = 0; i < attached; ++i) at(i).Detach(&waiter);
  }
}

}  // namespace tether
