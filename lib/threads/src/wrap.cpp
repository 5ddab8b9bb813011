// libtether_threads_wrap.a's entry points (Tether::threads_wrap), for
// programs that cannot be preloaded (static binaries): linked with
// -Wl,--wrap=pthread_create,... every call to pthread_create in the linked
// objects, libstdc++.a's std::thread included, becomes a call to
// __wrap_pthread_create, and __real_pthread_create is libc's.
//
// The recording is libtether_threads.so's (threads.cpp), started the same way
// by TETHER_THREADS_TRACE, which `tether trace` sets when it finds the marker
// below in the program. A program both wrapped and preloaded records once:
// the preloaded object's constructor runs first and removes the variable, so
// this copy stays off and forwards every call to the preloaded one.
#include "interpose.hpp"

extern "C" {

// Found by `tether trace` in the program's file (tool/trace_cmd.cpp).
__attribute__((used)) const char tether_threads_wrap_marker[] = "TETHER_THREADS_WRAP_V1";

// libtether's, when the program links it (lib/context/src/scope.cpp); a
// static program has no dynamic symbols to look it up by name.
__attribute__((weak)) extern const tether_context_thread_v1 tether_context_thread_v1;

int __real_pthread_create(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
int __real_pthread_join(pthread_t, void**);
int __real_pthread_detach(pthread_t);
[[noreturn]] void __real_pthread_exit(void*);

int __wrap_pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*),
                          void* arg) {
  return tether::threads::TracedCreate(__real_pthread_create, TETHER_THIS_CFA(), thread, attr, fn,
                                       arg);
}

int __wrap_pthread_join(pthread_t thread, void** result) {
  return tether::threads::TracedJoin(__real_pthread_join, thread, result);
}

int __wrap_pthread_detach(pthread_t thread) {
  return tether::threads::TracedDetach(__real_pthread_detach, TETHER_THIS_CFA(), thread);
}

[[noreturn]] void __wrap_pthread_exit(void* result) {
  tether::threads::TracedExit(__real_pthread_exit, result);
}

// The process ends without exit's handlers: the records first, then the
// real call, as libtether_threads.so's interposers do (preload.cpp). exit()
// itself ends in _exit too, after its handlers: the trace is finished by then
// and FlushBeforeEnd does nothing more.
[[noreturn]] void __real__exit(int);
[[noreturn]] void __real__Exit(int);
[[noreturn]] void __real_quick_exit(int);

[[noreturn]] void __wrap__exit(int status) {
  tether::threads::FlushBeforeEnd(&status);
  __real__exit(status);
}

[[noreturn]] void __wrap__Exit(int status) {
  tether::threads::FlushBeforeEnd(&status);
  __real__Exit(status);
}

[[noreturn]] void __wrap_quick_exit(int status) {
  tether::threads::FlushBeforeEnd(&status);
  __real_quick_exit(status);
}

}  // extern "C"

// (The variable hides the struct's name here: hence `struct`.)
const struct tether_context_thread_v1* tether::threads::FindLibtether() {
  return &tether_context_thread_v1;
}
