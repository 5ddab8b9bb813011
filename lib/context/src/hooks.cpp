// Tracer hook plumbing: installation, the id space, the channel-close hook.
#include "tether/hooks.hpp"

#include <cstdint>

#include "tether/channel.hpp"

namespace tether {
namespace hooks {

namespace {
std::atomic<std::uint64_t> g_next_id{1};
}  // namespace

Tracer* Install(Tracer* t) { return detail::g_tracer.exchange(t, std::memory_order_acq_rel); }

std::uint64_t NextId() { return g_next_id.fetch_add(1, std::memory_order_relaxed); }

}  // namespace hooks

namespace detail {

void OnChannelClosed(const void* channel, std::source_location loc) {
  if (auto* t = hooks::Active()) {
    t->ChannelClosed(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(channel)), loc);
  }
}

}  // namespace detail
}  // namespace tether
