// libtether_threads.so's entry points: the program's pthread_create, join,
// detach and exit, interposed by LD_PRELOAD; the real ones are the next
// definitions in the loader's search order (libc's).
#include <dlfcn.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>

#include "interpose.hpp"

namespace {

using namespace tether::threads;

// Looked up once per function: the function types are distinct, so each
// has its own instance (and its own static). posix_spawn and posix_spawnp
// share a type, so neither comes from here: posix_spawn's is RealPosixSpawn,
// posix_spawnp keeps its own.
template <class Fn>
Fn RealOnce(const char* name) {
  static const Fn fn = NextDefinition<Fn>(name);
  return fn;
}

// The real _exit, _Exit and quick_exit, looked up when the library is
// loaded, not when called: `_exit` is what a forked child calls when its exec
// fails, and dlsym there could wait on a loader lock that another thread of
// the parent held at the fork.
using EndFn = void (*)(int);
const EndFn g_real_exit = NextDefinition<EndFn>("_exit");
const EndFn g_real_Exit = NextDefinition<EndFn>("_Exit");
const EndFn g_real_quick_exit = NextDefinition<EndFn>("quick_exit");

// Writes the records, then ends the process with the real call (looked up
// now when called before this file's initializers ran).
[[noreturn]] void EndWith(EndFn loaded, const char* name, int status) {
  FlushBeforeEnd(&status);
  (loaded != nullptr ? loaded : NextDefinition<EndFn>(name))(status);
  __builtin_unreachable();
}

// libc's posix_spawn: posix_spawn's own, and what system() and popen() start
// their shell with.
SpawnFn RealPosixSpawn() {
  static const SpawnFn fn = NextDefinition<SpawnFn>("posix_spawn");
  return fn;
}

}  // namespace

const tether_context_thread_v1* tether::threads::FindLibtether() {
  return static_cast<const tether_context_thread_v1*>(
      dlsym(RTLD_DEFAULT, "tether_context_thread_v1"));
}

extern "C" {

__attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                          const pthread_attr_t* attr,
                                                          void* (*fn)(void*), void* arg) {
  return TracedCreate(RealOnce<CreateFn>("pthread_create"), TETHER_THIS_CFA(), thread, attr, fn,
                      arg);
}

__attribute__((visibility("default"))) int pthread_join(pthread_t thread, void** result) {
  return TracedJoin(RealOnce<JoinFn>("pthread_join"), thread, result);
}

__attribute__((visibility("default"))) int pthread_detach(pthread_t thread) {
  return TracedDetach(RealOnce<DetachFn>("pthread_detach"), TETHER_THIS_CFA(), thread);
}

__attribute__((visibility("default"), noreturn)) void pthread_exit(void* result) {
  TracedExit(RealOnce<ExitFn>("pthread_exit"), result);
}

__attribute__((visibility("default"))) int pthread_setname_np(pthread_t thread,
                                                              const char* name) noexcept {
  return TracedSetName(RealOnce<SetNameFn>("pthread_setname_np"), thread, name);
}

// The processes it starts and reaps (child_processes.cpp).
__attribute__((visibility("default"))) pid_t fork() {
  return TracedFork(RealOnce<ForkFn>("fork"), TETHER_THIS_CFA());
}

__attribute__((visibility("default"))) int posix_spawn(pid_t* pid, const char* path,
                                                       const posix_spawn_file_actions_t* actions,
                                                       const posix_spawnattr_t* attr,
                                                       char* const argv[], char* const envp[]) {
  return TracedSpawn(RealPosixSpawn(), TETHER_THIS_CFA(), pid, path, actions, attr, argv, envp);
}

__attribute__((visibility("default"))) int posix_spawnp(pid_t* pid, const char* file,
                                                        const posix_spawn_file_actions_t* actions,
                                                        const posix_spawnattr_t* attr,
                                                        char* const argv[], char* const envp[]) {
  static const SpawnFn real = NextDefinition<SpawnFn>("posix_spawnp");
  return TracedSpawn(real, TETHER_THIS_CFA(), pid, file, actions, attr, argv, envp);
}

// system(command), popen() and pclose() through the two above
// (shell_commands.cpp); system(NULL) asks only whether a shell is there, and
// starts none to record.
__attribute__((visibility("default"))) int system(const char* command) {
  using SystemFn = int (*)(const char*);
  if (command == nullptr) return RealOnce<SystemFn>("system")(nullptr);
  return TracedSystem(RealPosixSpawn(), RealOnce<WaitPidFn>("waitpid"), TETHER_THIS_CFA(), command);
}

__attribute__((visibility("default"))) FILE* popen(const char* command, const char* mode) {
  return TracedPopen(RealPosixSpawn(), RealOnce<WaitPidFn>("waitpid"), TETHER_THIS_CFA(), command,
                     mode);
}

__attribute__((visibility("default"))) int pclose(FILE* stream) {
  return TracedPclose(RealOnce<WaitPidFn>("waitpid"), stream);
}

__attribute__((visibility("default"))) pid_t waitpid(pid_t pid, int* status, int options) {
  return TracedWaitPid(RealOnce<WaitPidFn>("waitpid"), pid, status, options);
}

__attribute__((visibility("default"))) pid_t wait(int* status) {
  return TracedWait(RealOnce<WaitFn>("wait"), status);
}

__attribute__((visibility("default"))) pid_t wait4(pid_t pid, int* status, int options,
                                                   struct rusage* usage) {
  return TracedWait4(RealOnce<Wait4Fn>("wait4"), pid, status, options, usage);
}

// The process ends without exit's handlers: the records first
// (exit_paths.cpp), then the real call.
__attribute__((visibility("default"), noreturn)) void _exit(int status) {
  EndWith(g_real_exit, "_exit", status);
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status) noexcept {
  EndWith(g_real_Exit, "_Exit", status);
}

__attribute__((visibility("default"), noreturn)) void quick_exit(int status) noexcept {
  EndWith(g_real_quick_exit, "quick_exit", status);
}

}  // extern "C"
