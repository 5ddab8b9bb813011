#include "queue/memory_queue.hpp"

namespace tether::worker::queue {

MemoryQueue::MemoryQueue(std::vector<BuildItem> items) : items_(items.empty() ? 1 : items.size()) {
  for (BuildItem& item : items) {
    // Cannot block or fail: the buffer holds every item.
    items_.Send(Background(), std::move(item));
  }
  items_.Close();
}

std::optional<BuildItem> MemoryQueue::Pop(const Context& ctx) {
  if (!ctx.Err().ok()) return std::nullopt;  // never pop after shutdown began
  return items_.Recv(ctx);
}

Error MemoryQueue::Pop(const Context& ctx, std::optional<BuildItem>* out) {
  *out = Pop(ctx);
  return Error();
}

std::vector<BuildItem> MemoryQueue::Drain() {
  std::vector<BuildItem> left;
  while (std::optional<BuildItem> item = items_.TryRecv()) left.push_back(std::move(*item));
  return left;
}

}  // namespace tether::worker::queue
