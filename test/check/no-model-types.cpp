// REQUIRES: checker
// When no type of the model (a context, cancel or task group type) is
// declared in any TU, the run says so once: the model does not fit the code.
// RUN: rm -rf %t.cache
// RUN: %tether check --quiet --cache-dir %t.cache %s %S/Inputs/clean-std.cpp -- -std=c++20 2>&1 | FileCheck %s
// The answer survives the result cache (a reused TU was not parsed):
// RUN: %tether check --quiet --cache-dir %t.cache %s %S/Inputs/clean-std.cpp -- -std=c++20 2>&1 | FileCheck --check-prefix=CACHED %s
// CHECK: tether check: note: none of the model's types appear in 2 TUs: nothing to check; see --model
// CHECK-NOT: none of the model's types
// CHECK: tether check: 0 findings in 2 translation units
// CACHED: tether check: note: none of the model's types appear in 2 TUs: nothing to check; see --model
// CACHED: tether check: cache: 0 parsed, 2 reused of 2 translation units
// One TU that declares a modelled type (here std::thread, through <thread>) is enough to be quiet:
// RUN: %tether check --quiet %s %S/Inputs/clean-std.cpp -- -std=c++20 -DWITH_THREAD 2>&1 | FileCheck --check-prefix=SOME %s
// SOME-NOT: none of the model's types
// SOME: tether check: 0 findings in 2 translation units
#include <string>
#include <vector>
#ifdef WITH_THREAD
#include <thread>
#endif

std::vector<std::string> Split(const std::string& s) { return {s}; }
