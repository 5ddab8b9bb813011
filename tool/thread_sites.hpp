// Sites a person can read for threads recorded by libtether_threads.so: the
// return addresses at pthread_create, symbolized at report time, and the
// first frame in the program's own code chosen as the thread's site.
#pragma once

#include "tether/trace/model.hpp"

namespace tether::tool {

// Fills in the site of every task that has return addresses and no site.
// With LLVM's symbolizer (linked when found at build time): file:line in
// function, from debug info (inlined frames included); without debug info the
// function and offset; without LLVM the object and offset.
void ResolveThreadSites(trace::Trace* trace);

}  // namespace tether::tool
