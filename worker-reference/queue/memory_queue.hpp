// The embedded build queue of `tether-worker run`: the builds named on the
// command line, in order. Vela's worker pops builds from Redis; here the
// executor loops pop from this queue, and popping honours the worker's
// context, so after the first shutdown signal no loop takes another build.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "queue/queue.hpp"
#include "tether/channel.hpp"
#include "tether/context.hpp"

namespace tether::worker::queue {

class MemoryQueue : public BuildSource {
 public:
  // Every item is queued at once; the queue is then closed.
  explicit MemoryQueue(std::vector<BuildItem> items);
  // The next build; nullopt when the queue is empty or ctx is done.
  std::optional<BuildItem> Pop(const Context& ctx);
  Error Pop(const Context& ctx, std::optional<BuildItem>* out) override;
  // Nothing to acknowledge: build.json is the result.
  Error Finish(const Context&, const BuildItem&, const JobResult&) override { return Error(); }
  // Removes and returns the builds nobody popped (after a shutdown).
  std::vector<BuildItem> Drain() override;
  std::size_t size() const { return items_.size(); }

 private:
  Channel<BuildItem> items_;
};

}  // namespace tether::worker::queue
