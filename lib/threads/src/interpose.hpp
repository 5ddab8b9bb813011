// The recording behind every interposed pthread call, shared by the two ways
// a program's calls reach it: preload.cpp (libtether_threads.so, LD_PRELOAD;
// the real function found with dlsym(RTLD_NEXT)) and wrap.cpp
// (libtether_threads_wrap.a, `-Wl,--wrap`; the real function is __real_...).
// Each entry point passes the real function and, for pthread_create, its own
// CFA, so that the recorded stack starts at the entry point's caller.
#pragma once

#include <dlfcn.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tether/trace/scope.h"

#define TETHER_THIS_CFA() reinterpret_cast<std::uintptr_t>(__builtin_dwarf_cfa())

namespace tether::threads {

// The next definition of name in the loader's search order after the shim's
// (libc's): the real function a preloaded wrapper calls. Aborts, saying
// which, when there is none.
template <class Fn>
Fn NextDefinition(const char* name) {
  static_assert(sizeof(Fn) == sizeof(void*));
  void* sym = dlsym(RTLD_NEXT, name);
  if (sym == nullptr) {
    std::fprintf(stderr, "libtether_threads: cannot find the real %s: %s\n", name, dlerror());
    std::abort();
  }
  return reinterpret_cast<Fn>(sym);
}

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
using JoinFn = int (*)(pthread_t, void**);
using DetachFn = int (*)(pthread_t);
using ExitFn = void (*)(void*);
using SetNameFn = int (*)(pthread_t, const char*);

int TracedCreate(CreateFn real, std::uintptr_t caller_cfa, pthread_t* thread,
                 const pthread_attr_t* attr, void* (*fn)(void*), void* arg);
int TracedJoin(JoinFn real, pthread_t thread, void** result);
int TracedDetach(DetachFn real, std::uintptr_t caller_cfa, pthread_t thread);
[[noreturn]] void TracedExit(ExitFn real, void* result);
int TracedSetName(SetNameFn real, pthread_t thread, const char* name);

// Child processes (child_processes.cpp). fork and posix_spawn record the
// child as a `process` task (process_ids.hpp) of the scope open where it was
// started, at the caller's site; waitpid, wait and wait4 record its end when
// they reap it. (vfork is not interposed: a wrapper's frame would be gone
// when the child returns into it.) system(), popen() and pclose() are done
// here (shell_commands.cpp), as glibc does them, through the traced
// posix_spawn and waitpid: their shell is a process of the scope open where
// they were called.
using ForkFn = pid_t (*)();
using SpawnFn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*,
                        const posix_spawnattr_t*, char* const[], char* const[]);
using WaitPidFn = pid_t (*)(pid_t, int*, int);
using WaitFn = pid_t (*)(int*);
using Wait4Fn = pid_t (*)(pid_t, int*, int, struct rusage*);

pid_t TracedFork(ForkFn real, std::uintptr_t caller_cfa);
int TracedSpawn(SpawnFn real, std::uintptr_t caller_cfa, pid_t* pid, const char* path,
                const posix_spawn_file_actions_t* actions, const posix_spawnattr_t* attr,
                char* const argv[], char* const envp[]);
pid_t TracedWaitPid(WaitPidFn real, pid_t pid, int* status, int options);
int TracedSystem(SpawnFn real_spawn, WaitPidFn real_wait, std::uintptr_t caller_cfa,
                 const char* command);
FILE* TracedPopen(SpawnFn real_spawn, WaitPidFn real_wait, std::uintptr_t caller_cfa,
                  const char* command, const char* mode);
int TracedPclose(WaitPidFn real_wait, FILE* stream);
pid_t TracedWait(WaitFn real, int* status);
pid_t TracedWait4(Wait4Fn real, pid_t pid, int* status, int options, struct rusage* usage);

// threads.cpp: the records of a child's start (its creator's scope and
// parent task, the caller's return addresses above caller_cfa) and end.
void RecordProcessStart(std::uintptr_t caller_cfa, pid_t pid, const char* name);
void RecordProcessEnd(pid_t pid, int status);

// The process is ending without exit's handlers (_exit, _Exit, quick_exit,
// a fatal or terminating signal): what the rings hold is written now, and the
// exit record when the status is known (status null: killed by a signal).
void FlushBeforeEnd(const int* status);
// Installs the signal flush (exit_paths.cpp); called once, when tracing starts.
void FlushOnSignals();

// libtether's tether_context_thread_v1 in this process (null: the program is
// not linked with libtether). Looked up once, when tracing starts: by name in
// preload.cpp, by a weak reference resolved at link time in wrap.cpp.
const tether_context_thread_v1* FindLibtether();

}  // namespace tether::threads
