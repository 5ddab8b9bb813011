// REQUIRES: checker
// tether-unwaited-group on futures whose tasks use the frame that made them:
// a function hands tasks that write through references or pointers to a pool,
// keeps their futures and waits for them at its end; a call that may throw in
// between leaves while the tasks run on (a future's destructor does not wait).
// The class of watchman 07ee91f ("batchFetchProperties must always join
// futures"); these variants are written for this test.
// RUN: %check_tether %s tether-unwaited-group %t
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

// A pool whose Submit returns a std::future made from a packaged_task: its
// destructor does not wait for the task.
struct Pool {
  template <class F>
  std::future<void> Submit(F f) {
    std::packaged_task<void()> task(std::move(f));
    std::future<void> result = task.get_future();
    Enqueue(std::move(task));
    return result;
  }
  void Enqueue(std::packaged_task<void()> task);
};

// A project's own future, with continuations and a combinator.
template <class T>
struct Later {
  void wait();
  T get();
  template <class F>
  Later<void> andThen(F f) {
    Chain(f);
    return {};
  }
  static void Chain(...);
};
template <class It>
Later<void> whenAll(It begin, It end);
Later<int> Lookup(const std::string& key);

int Parse(const std::string& s) {
  if (s.empty()) throw std::invalid_argument("empty key");
  return 1;
}
int Checked(const std::string& s) noexcept;

struct Row {
  int value = 0;
};

// The futures are waited for after the loop; Parse may throw in a later
// iteration, while earlier tasks still write into *row.
void FillRows(Pool& pool, std::vector<Row>& rows, const std::vector<std::string>& keys) {
  std::vector<std::future<void>> pending;
  for (size_t i = 0; i < rows.size(); ++i) {
    Row* row = &rows[i];
    int v = Parse(keys[i]);
    pending.push_back(pool.Submit([row, v] { row->value = v; }));
    // CHECK: :[[@LINE-1]]:5: warning: a task put into 'pending' here uses 'row' (a pointer), which this function does not own, and is waited for on some paths only: a future's destructor does not wait, so the task may run on after the function has left; wait on every path (a scope guard that waits covers the throws) [tether-unwaited-group]
    // CHECK: :[[@LINE-3]]:13: note: 'Parse' may throw{{.*}} here: the exception leaves this function before 'pending' is waited for, while its tasks may still run
  }
  for (auto& f : pending) f.get();
}

// The project's own futures, continuations that capture by reference, and a
// combinator that waits for all of them.
void Resolve(const std::vector<std::string>& keys, std::vector<int>& out) {
  std::vector<Later<void>> lookups;
  for (const std::string& key : keys) {
    Parse(key);
    size_t slot = out.size();
    out.push_back(0);
    lookups.emplace_back(Lookup(key).andThen([&out, slot](int v) { out[slot] = v; }));
    // CHECK: :[[@LINE-1]]:5: warning: a task put into 'lookups' here uses 'out' (by reference)
    // CHECK: :[[@LINE-5]]:5: note: 'Parse' may throw
  }
  whenAll(lookups.begin(), lookups.end()).wait();
}

// One future: the task captures the caller's string by reference.
void One(Pool& pool, std::string& text, const std::string& key) {
  auto done = pool.Submit([&text] { text += "!"; });
  // CHECK: :[[@LINE-1]]:8: warning: the task of future 'done' uses 'text' (by reference)
  Parse(key);
  // CHECK: :[[@LINE-1]]:3: note: 'Parse' may throw
  done.wait();
}

// An early return skips the wait as surely as a throw.
void EarlyReturn(Pool& pool, std::vector<Row>& rows, bool stop) {
  std::vector<std::future<void>> pending;
  for (Row& row : rows) pending.push_back(pool.Submit([&row] { row.value = 1; }));
  // CHECK: :[[@LINE-1]]:25: warning: a task put into 'pending' here uses 'row' (by reference)
  if (stop) return;
  // CHECK: :[[@LINE-1]]:13: note: 'pending' may reach the end of its scope here without wait()
  for (auto& f : pending) f.wait();
}

// --- Not reported ---

// A guard waits on every exit: its destructor runs on the throw too.
struct WaitAll {
  std::vector<std::future<void>>& futures;
  ~WaitAll() {
    for (auto& f : futures)
      if (f.valid()) f.wait();
  }
};
void Guarded(Pool& pool, std::vector<Row>& rows, const std::vector<std::string>& keys) {
  std::vector<std::future<void>> pending;
  WaitAll guard{pending};
  for (size_t i = 0; i < rows.size(); ++i) {
    Row* row = &rows[i];
    int v = Parse(keys[i]);
    pending.push_back(pool.Submit([row, v] { row->value = v; }));
  }
}

// A scope-exit lambda that waits (folly's SCOPE_EXIT, gsl::finally).
template <class F>
struct Finally {
  F f;
  ~Finally() { f(); }
};
template <class F>
Finally<F> finally(F f) {
  return {f};
}
void WithFinally(const std::vector<std::string>& keys, std::vector<int>& out) {
  std::vector<Later<void>> lookups;
  auto wait_all = finally([&] { whenAll(lookups.begin(), lookups.end()).wait(); });
  for (const std::string& key : keys) {
    Parse(key);
    size_t slot = out.size();
    out.push_back(0);
    lookups.emplace_back(Lookup(key).andThen([&out, slot](int v) { out[slot] = v; }));
  }
}

// Tasks that own what they use (copies) may outlive the frame.
void ByValue(Pool& pool, const std::vector<std::string>& keys) {
  std::vector<std::future<void>> pending;
  for (const std::string& key : keys) {
    Parse(key);
    pending.push_back(pool.Submit([key] { (void)key.size(); }));
  }
  for (auto& f : pending) f.get();
}

// std::async's futures wait when destroyed: the throw waits for them.
void Async(std::vector<Row>& rows, const std::vector<std::string>& keys) {
  std::vector<std::future<void>> pending;
  for (size_t i = 0; i < rows.size(); ++i) {
    Row* row = &rows[i];
    int v = Parse(keys[i]);
    pending.push_back(std::async(std::launch::async, [row, v] { row->value = v; }));
  }
  for (auto& f : pending) f.get();
}

// Nothing between the tasks and the wait may throw (noexcept).
void NoThrowBetween(Pool& pool, std::vector<Row>& rows, const std::vector<std::string>& keys) {
  std::vector<std::future<void>> pending;
  for (size_t i = 0; i < rows.size(); ++i) {
    Row* row = &rows[i];
    int v = Checked(keys[i]);
    pending.push_back(pool.Submit([row, v] { row->value = v; }));
  }
  for (auto& f : pending) f.get();
}

// The throw is caught inside: the function still reaches its wait.
void Caught(Pool& pool, std::vector<Row>& rows, const std::vector<std::string>& keys) {
  std::vector<std::future<void>> pending;
  for (size_t i = 0; i < rows.size(); ++i) {
    Row* row = &rows[i];
    int v = 0;
    try {
      v = Parse(keys[i]);
    } catch (const std::exception&) {
      continue;
    }
    pending.push_back(pool.Submit([row, v] { row->value = v; }));
  }
  for (auto& f : pending) f.get();
}

// Never waited for anywhere: fire-and-forget is not this rule's (the
// function does not say the tasks must end first).
void FireAndForget(Pool& pool, std::vector<Row>& rows, const std::vector<std::string>& keys) {
  std::vector<std::future<void>> pending;
  for (size_t i = 0; i < rows.size(); ++i) {
    Row* row = &rows[i];
    pending.push_back(pool.Submit([row] { row->value = 2; }));
    Parse(keys[i]);
  }
}

// Handed on: the caller waits.
std::vector<std::future<void>> Start(Pool& pool, std::vector<Row>& rows,
                                     const std::vector<std::string>& keys) {
  std::vector<std::future<void>> pending;
  for (Row& row : rows) pending.push_back(pool.Submit([&row] { row.value = 3; }));
  Parse(keys.front());
  return pending;
}

// Waited for only when there is something to wait for: an empty container
// holds no task, so the path that skips the wait leaks nothing.
void WaitIfAny(Pool& pool, std::vector<Row>& rows) {
  std::vector<std::future<void>> pending;
  for (Row& row : rows)
    if (row.value == 0) pending.push_back(pool.Submit([&row] { row.value = 4; }));
  if (!pending.empty()) {
    for (auto& f : pending) f.wait();
  }
}

// The pool that runs the tasks waits for all of them (an executor's own
// drain) before anything may throw: the futures are done (taskflow's
// `executor.wait_for_all()` before its REQUIREs).
struct Executor {
  template <class F>
  std::future<void> async(F f) {
    std::packaged_task<void()> task(std::move(f));
    std::future<void> result = task.get_future();
    Run(std::move(task));
    return result;
  }
  void Run(std::packaged_task<void()> task);
  void wait_for_all();
};
void Drained(Executor& executor, std::vector<Row>& rows, const std::vector<std::string>& keys) {
  std::vector<std::future<void>> pending;
  for (Row& row : rows) pending.push_back(executor.async([&row] { row.value = 5; }));
  executor.wait_for_all();
  Parse(keys.front());
  for (auto& f : pending) f.get();
}

// A chain of continuations on the future of the function's own promise:
// nothing runs before the function fulfils it (async_simple's tests:
// `Promise<int> p; auto f = p.getFuture().via(&ex).thenValue([&out] ..);
// p.setValue(1); f.wait();`).
template <class T>
struct Promise {
  Later<T> getFuture();
  void setValue(T v) {
    if (v < 0) throw std::logic_error("negative");
  }
};
void OwnPromise(std::vector<int>& out) {
  Promise<int> p;
  auto f = p.getFuture().andThen([&out](int v) { out.push_back(v); });
  p.setValue(1);
  f.wait();
}

// The same through a combinator over futures of the function's own
// promises (async_simple's collectAll tests).
template <class It>
Later<int> collectEach(It begin, It end);
void OwnPromises(std::vector<int>& out) {
  std::vector<Promise<int>> promises(3);
  std::vector<Later<int>> futures;
  for (auto& p : promises) futures.push_back(p.getFuture());
  auto f = collectEach(futures.begin(), futures.end()).andThen([&out](int v) { out.push_back(v); });
  for (auto& p : promises) p.setValue(1);
  f.wait();
}
