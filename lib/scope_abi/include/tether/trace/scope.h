/* Scopes without libtether: mark a unit of work (a request, a build, a job)
 * in any C or C++ program, so that `tether trace` charges the threads it
 * starts to it and reports those still running when it ends (zombies).
 *
 *   uint64_t id = tether_scope_begin("request 42");
 *   ...                                  // threads created here belong to it
 *   tether_scope_end(id);
 *
 *   { TETHER_SCOPE("request 42"); ... }  // C++: ends at the closing brace
 *
 * Header-only. The functions are found at run time in libtether_threads.so
 * (which `tether trace` preloads); when it is not loaded, tether_scope_begin
 * returns 0 and tether_scope_end(0) does nothing: after the first call, one
 * load and one predictable branch. The scope's site is where
 * tether_scope_begin (or TETHER_SCOPE) is called, found from the return
 * addresses at report time. A scope belongs to the thread that began it: a
 * thread that thread creates while the scope is open is charged to it, and so
 * are the threads those threads create. */
#ifndef TETHER_TRACE_SCOPE_H
#define TETHER_TRACE_SCOPE_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported by libtether_threads.so under the name "tether_scope_api_v1". */
struct tether_scope_api_v1 {
  uint64_t (*begin)(const char* name);
  void (*end)(uint64_t id);
};

/* Exported under "tether_scope_threads_v1": the threads charged to a scope
 * (created while it was open on the creating thread, or by such a thread)
 * that are still running. */
struct tether_running_thread {
  uint64_t id;     /* the thread's task id in the trace */
  uint64_t age_ns; /* how long ago it was created */
};
struct tether_scope_threads_v1 {
  size_t (*running)(uint64_t scope, uint32_t grace_ms, struct tether_running_thread* out,
                    size_t max);
};

/* The object exported under name, or null when the program is not traced.
 * Each translation unit looks it up once per cache (a racing first lookup
 * is harmless: both find the same). */
static inline const void* tether_scope_lookup_(const void** cache, const char* name) {
  const void* found = __atomic_load_n(cache, __ATOMIC_RELAXED);
  if (__builtin_expect((uintptr_t)found == 1, 0)) {
    /* (void*)0 is RTLD_DEFAULT (glibc), spelled so without _GNU_SOURCE. */
    found = dlsym((void*)0, name);
    __atomic_store_n(cache, found, __ATOMIC_RELAXED);
  }
  return found;
}

static inline const struct tether_scope_api_v1* tether_scope_api_(void) {
  static const void* cached = (const void*)1;
  return (const struct tether_scope_api_v1*)tether_scope_lookup_(&cached, "tether_scope_api_v1");
}

static inline uint64_t tether_scope_begin(const char* name) {
  const struct tether_scope_api_v1* api = tether_scope_api_();
  if (__builtin_expect(api == 0, 1)) return 0;
  return api->begin(name);
}

/* Exported under "tether_scope_at_v1": tether_scope_begin with the site
 * given, for a scope begun on another's behalf (a GoogleTest listener begins
 * each test's scope: its site is the TEST line, not the listener's). */
struct tether_scope_at_v1 {
  uint64_t (*begin_at)(const char* name, const char* file, int line);
};

/* tether_scope_begin whose site is file:line rather than the caller. */
static inline uint64_t tether_scope_begin_at(const char* name, const char* file, int line) {
  static const void* cached = (const void*)1;
  const struct tether_scope_at_v1* api =
      (const struct tether_scope_at_v1*)tether_scope_lookup_(&cached, "tether_scope_at_v1");
  if (__builtin_expect(api == 0, 1)) return tether_scope_begin(name);
  return api->begin_at(name, file, line);
}

static inline void tether_scope_end(uint64_t id) {
  if (__builtin_expect(id == 0, 1)) return;
  tether_scope_api_()->end(id);
}

/* Waits up to grace_ms for the threads charged to scope to end, then writes
 * up to max of those still running to out and returns how many there are.
 * 0 when the program is not traced (nothing is known) or scope is 0. */
static inline size_t tether_scope_threads_running(uint64_t scope, uint32_t grace_ms,
                                                  struct tether_running_thread* out, size_t max) {
  static const void* cached = (const void*)1;
  const struct tether_scope_threads_v1* api =
      (const struct tether_scope_threads_v1*)tether_scope_lookup_(&cached,
                                                                  "tether_scope_threads_v1");
  if (api == 0 || scope == 0) return 0;
  return api->running(scope, grace_ms, out, max);
}

/* Exported under "tether_thread_site_v1": where a running thread charged to
 * a scope was created, as a person reads it ("pool.cpp:42 in Pool::Start"),
 * for a verdict given in the process (a test's end). */
struct tether_thread_site_v1 {
  size_t (*site)(uint64_t thread, char* out, size_t cap);
};

/* Writes the site of thread (a tether_running_thread's id) to out,
 * NUL-terminated, and returns its length; 0 when it is not known (the
 * program is not traced, the thread has ended, no frame is the program's). */
static inline size_t tether_thread_site(uint64_t thread, char* out, size_t cap) {
  static const void* cached = (const void*)1;
  const struct tether_thread_site_v1* api =
      (const struct tether_thread_site_v1*)tether_scope_lookup_(&cached, "tether_thread_site_v1");
  if (api == 0 || cap == 0) return 0;
  return api->site(thread, out, cap);
}

/* Exported under "tether_thread_running_v1": where a running thread charged
 * to a scope was running when it was asked (its scope ended with it running,
 * or tether_scope_threads_running asked it), as a person reads it
 * ("worker.cpp:62 in WaitForWork"): goleak's current stack, for a verdict
 * given in the process. */
struct tether_thread_running_v1 {
  size_t (*running_at)(uint64_t thread, char* out, size_t cap);
};

/* Writes where thread (a tether_running_thread's id) was running to out,
 * NUL-terminated, and returns its length; 0 when it is not known (not
 * traced, never asked: a thread in a sleep, poll or epoll_wait is not, or no
 * frame is the program's). */
static inline size_t tether_thread_running_at(uint64_t thread, char* out, size_t cap) {
  static const void* cached = (const void*)1;
  const struct tether_thread_running_v1* api =
      (const struct tether_thread_running_v1*)tether_scope_lookup_(&cached,
                                                                   "tether_thread_running_v1");
  if (api == 0 || cap == 0) return 0;
  return api->running_at(thread, out, cap);
}

/* Exported under "tether_thread_pool_v1", for a runtime that traces the
 * work on its own threads itself (libtether's thread cache: its tasks are
 * traced as tasks). Between creating(1) and creating(0) on a thread, the
 * threads that thread creates are the runtime's, not the program's: they are
 * not recorded, so an idle one still alive at exit is no leak. */
struct tether_thread_pool_v1 {
  void (*creating)(int on);
};

/* Marks the threads the calling thread creates from now until
 * tether_thread_pool_creating(0) as a runtime's own. Nothing when the
 * program is not traced. */
static inline void tether_thread_pool_creating(int on) {
  static const void* cached = (const void*)1;
  const struct tether_thread_pool_v1* api =
      (const struct tether_thread_pool_v1*)tether_scope_lookup_(&cached, "tether_thread_pool_v1");
  if (api != 0) api->creating(on);
}

/* Exported by libtether (lib/context/src/scope.cpp) under
 * "tether_context_thread_v1", the other way round: libtether_threads.so
 * reads it so that a thread created inside a tether::Scope, or by a libtether
 * task, is charged to that scope as a task would be. current() describes the
 * calling thread only; it neither blocks nor allocates. Ids are libtether's
 * (below 2^48); 0 means none, and both are 0 when libtether's tracer is not
 * installed (its scopes are then in no trace). */
struct tether_thread_work {
  uint64_t scope; /* tether::CurrentScopeId(): the innermost live Scope, else the task's */
  uint64_t task;  /* the libtether task the thread is running (0 when untraced) */
};
struct tether_context_thread_v1 {
  struct tether_thread_work (*current)(void);
};

#ifdef __cplusplus
} /* extern "C" */

namespace tether::trace {
/* TETHER_SCOPE's object: begins the scope, ends it when destroyed. */
class ScopeMark {
 public:
  explicit ScopeMark(const char* name) : id_(tether_scope_begin(name)) {}
  ~ScopeMark() { tether_scope_end(id_); }
  ScopeMark(const ScopeMark&) = delete;
  ScopeMark& operator=(const ScopeMark&) = delete;
  uint64_t id() const { return id_; }

 private:
  uint64_t id_;
};
}  // namespace tether::trace

#define TETHER_SCOPE_CAT2_(a, b) a##b
#define TETHER_SCOPE_CAT_(a, b) TETHER_SCOPE_CAT2_(a, b)
#define TETHER_SCOPE(name) \
  ::tether::trace::ScopeMark TETHER_SCOPE_CAT_(tether_scope_mark_, __LINE__)(name)
#endif

#endif /* TETHER_TRACE_SCOPE_H */
