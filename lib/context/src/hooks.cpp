// Tracer hook plumbing: installation, the id space, the channel-close hook.
#include "tether/hooks.hpp"

#include <cstdint>

#include "tether/channel.hpp"

namespace tether {
namespace hooks {

namespace {
// Ids are handed out to each thread in blocks, so that taking one (every
// traced spawn, group, scope and context) writes nothing another thread
// writes: one shared atomic add per kIdBlock ids. Unique and never 0, but
// not in creation order across threads (the trace orders events by time).
constexpr std::uint64_t kIdBlock = 1024;
std::atomic<std::uint64_t> g_next_block{1};
struct IdBlock {
  std::uint64_t next = 0;
  std::uint64_t end = 0;
};
thread_local IdBlock t_ids;
}  // namespace

Tracer* Install(Tracer* t) { return detail::g_tracer.exchange(t, std::memory_order_acq_rel); }

std::uint64_t NextId() {
  IdBlock& ids = t_ids;
  if (ids.next == ids.end) {
    ids.next = g_next_block.fetch_add(kIdBlock, std::memory_order_relaxed);
    ids.end = ids.next + kIdBlock;
  }
  return ids.next++;
}

}  // namespace hooks

namespace detail {

void OnChannelClosed(const void* channel, std::source_location loc) {
  if (auto* t = hooks::Active()) {
    t->ChannelClosed(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(channel)), loc);
  }
}

}  // namespace detail
}  // namespace tether
