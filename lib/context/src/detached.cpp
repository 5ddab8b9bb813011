// The owner of every thread nobody else joins: tether::Go tasks and AfterFunc
// callbacks.
//
// Ownership: the registry holds each such thread. A new spawn first joins the
// threads that have finished (so finished threads do not pile up), and at
// process exit a function-local static joins those that finished and detaches
// those still running: they are never left joinable (that would call
// std::terminate), and the tracer reports them from their missing TaskEnded.
#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "context_node.hpp"

namespace tether::detail {
namespace {

class DetachedThreads {
 public:
  void Spawn(std::function<void()> f) {
    JoinFinished();
    auto finished = std::make_shared<std::atomic<bool>>(false);
    std::lock_guard<std::mutex> lock(mu_);
    std::thread thread([f = std::move(f), finished] {
      f();
      finished->store(true, std::memory_order_release);
    });
    if (at_exit_) {
      // tether:detached(spawned after AtExit ran, from a thread that outlived main:
      // the registry that would join it is gone, and joinable at exit would terminate)
      thread.detach();
      return;
    }
    entries_.push_back(Entry{std::move(thread), std::move(finished)});
  }

  void AtExit() {
    std::list<Entry> entries;
    {
      std::lock_guard<std::mutex> lock(mu_);
      at_exit_ = true;
      entries.swap(entries_);
    }
    for (Entry& e : entries) {
      if (e.finished->load(std::memory_order_acquire)) {
        e.thread.join();
      } else {
        // tether:detached(still running at process exit: joining could hang exit for
        // ever; the tracer reports it as a leak from its missing TaskEnded)
        e.thread.detach();
      }
    }
  }

 private:
  struct Entry {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;  // set as the thread's last act
  };

  void JoinFinished() {
    std::list<Entry> done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = entries_.begin(); it != entries_.end();) {
        auto next = std::next(it);
        if (it->finished->load(std::memory_order_acquire)) done.splice(done.end(), entries_, it);
        it = next;
      }
    }
    for (Entry& e : done) e.thread.join();
  }

  std::mutex mu_;
  std::list<Entry> entries_;  // guarded by mu_
  bool at_exit_ = false;      // guarded by mu_
};

DetachedThreads& Registry() {
  static auto* registry = new DetachedThreads();  // never destroyed: threads may outlive exit
  struct AtExit {
    ~AtExit() { registry->AtExit(); }
  };
  static AtExit at_exit;
  return *registry;
}

}  // namespace

void RunDetachedThread(std::function<void()> f) { Registry().Spawn(std::move(f)); }

}  // namespace tether::detail
