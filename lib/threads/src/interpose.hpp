// The recording behind every interposed pthread call, shared by the two ways
// a program's calls reach it: preload.cpp (libtether_threads.so, LD_PRELOAD;
// the real function found with dlsym(RTLD_NEXT)) and wrap.cpp
// (libtether_threads_wrap.a, `-Wl,--wrap`; the real function is __real_...).
// Each entry point passes the real function and, for pthread_create, its own
// CFA, so that the recorded stack starts at the entry point's caller.
#pragma once

#include <pthread.h>

#include <cstdint>

#include "tether/trace/scope.h"

#define TETHER_THIS_CFA() reinterpret_cast<std::uintptr_t>(__builtin_dwarf_cfa())

namespace tether::threads {

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
