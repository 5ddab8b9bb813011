// Internal: libtether's own waits say when a task's thread sleeps in them.
// The thread cache runs at most as many tasks at once as there are cores
// before queueing the next (lib/context/src/thread_cache.cpp); a task asleep
// in TaskGroup::Wait, on a Done(), or on a channel runs nothing meanwhile, so
// while it sleeps its thread does not count, and a queued task (often the
// very task it waits for) gets a thread at once instead of after the
// queue's bound.
#pragma once

namespace tether::detail {

// Put around a sleep (a condition variable's or a futex's wait), on any
// thread: on one that is not running a task it does nothing. Nests.
class BlockingRegion {
 public:
  BlockingRegion();
  ~BlockingRegion();
  BlockingRegion(const BlockingRegion&) = delete;
  BlockingRegion& operator=(const BlockingRegion&) = delete;

 private:
  bool counted_;
};

}  // namespace tether::detail
