// The deadline timer service: one thread for every WithDeadline/WithTimeout
// context in the process, started on first use.
//
// Entries sit in an ordered map keyed by (when, key), the earliest first: a
// min-heap that also supports removal, so a cancelled context takes its entry
// out at once instead of leaving it to expire. The thread sleeps on a
// condition variable until the earliest entry is due (or an earlier one
// arrives) and cancels the expired contexts outside the lock.
//
// Ownership: the service object is never destroyed (contexts may be released
// by other static destructors); a function-local static Stopper stops and
// joins the thread at exit, after which timers no longer fire.
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "context_node.hpp"
#include "tether/scope_exit.hpp"
#include "tether/trace/scope.h"

namespace tether::detail {
namespace {

class TimerService {
 public:
  void Add(TimePoint when, std::uint64_t key, std::weak_ptr<ContextNode> node) {
    bool earliest;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
      // Service() leaks the one instance on purpose (it outlives every context, static
      // destructors included); its Stopper joins the thread at exit.
      if (!thread_.joinable()) {
        // Under `tether trace --threads on` the timer thread is libtether's,
        // not the program's: it is not recorded (it was reported as a zombie
        // of the scope whose WithTimeout first needed it).
        tether_thread_pool_creating(1);
        ScopeExit recorded_again{[] { tether_thread_pool_creating(0); }};
        // NOLINTNEXTLINE(tether-unjoined-member-thread): never destroyed; Stopper joins
        thread_ = std::thread([this] { Run(); });
      }
      auto it = entries_.emplace(std::make_pair(when, key), std::move(node)).first;
      earliest = it == entries_.begin();
    }
    if (earliest) cv_.notify_one();
  }

  void Remove(TimePoint when, std::uint64_t key) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.erase(std::make_pair(when, key));
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopped_ = true;
      entries_.clear();
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopped_) {
      if (entries_.empty()) {
        cv_.wait(lock);
        continue;
      }
      TimePoint next = entries_.begin()->first.first;
      if (Clock::now() < next) {
        cv_.wait_until(lock, next);
        continue;
      }
      std::vector<std::weak_ptr<ContextNode>> due;
      TimePoint now = Clock::now();
      while (!entries_.empty() && entries_.begin()->first.first <= now) {
        due.push_back(std::move(entries_.begin()->second));
        entries_.erase(entries_.begin());
      }
      lock.unlock();
      for (auto& w : due) {
        if (auto node = w.lock()) node->Cancel(true, Error::DeadlineExceeded(), Error());
      }
      due.clear();  // the last reference to a node may go here, outside the lock
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<TimePoint, std::uint64_t>, std::weak_ptr<ContextNode>> entries_;  // mu_
  bool stopped_ = false;  // guarded by mu_
  std::thread thread_;    // started under mu_ by the first Add; joined by Stop
};

TimerService& Service() {
  static auto* service = new TimerService();
  struct Stopper {
    ~Stopper() { service->Stop(); }
  };
  static Stopper stopper;
  return *service;
}

std::atomic<std::uint64_t> g_next_key{1};

}  // namespace

std::uint64_t NewTimerKey() { return g_next_key.fetch_add(1, std::memory_order_relaxed); }

void AddTimer(TimePoint when, std::uint64_t key, std::weak_ptr<ContextNode> node) {
  Service().Add(when, key, std::move(node));
}

void RemoveTimer(TimePoint when, std::uint64_t key) { Service().Remove(when, key); }

}  // namespace tether::detail
