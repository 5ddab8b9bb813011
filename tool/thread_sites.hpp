// Sites a person can read for threads recorded by libtether_threads.so: the
// return addresses at pthread_create, symbolized at report time, and the
// first frame in the program's own code chosen as the thread's site.
#pragma once

#include "tether/trace/model.hpp"

namespace tether::tool {

// Fills in the site of every task that has return addresses and no site.
// With LLVM's symbolizer (libtether_llvm.so, loaded only when the trace has
// return addresses: llvm_module.cpp): file:line in function, from debug info
// (inlined frames included); without debug info the function and offset;
// without LLVM the object and offset.
void ResolveThreadSites(trace::Trace* trace);

// The same, with the symbolizer this object was built with (thread_sites.cpp:
// LLVM's in libtether_llvm.so; none in the tether executable).
void SymbolizeThreadSites(trace::Trace* trace);

}  // namespace tether::tool
