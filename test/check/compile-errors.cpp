// REQUIRES: checker
// A TU with a compile error is not dropped whole: as clang-tidy does, the
// checks run on the AST Clang recovered, the errors are printed as Clang
// prints them, the TU is named as possibly incomplete, and the run exits 2
// ("analysis failed") with the recovered findings still in the report.
// RUN: rm -rf %t.cache
// RUN: not %tether check --quiet --cache-dir %t.cache %s -- %libtether_flags > %t.out 2> %t.err
// RUN: FileCheck %s --input-file=%t.out -implicit-check-not="warning:"
// RUN: FileCheck --check-prefix=ERR %s --input-file=%t.err -implicit-check-not="errors generated" -implicit-check-not="error generated"
// RUN: %python %S/Inputs/exit_code.py %tether check --quiet %s -- %libtether_flags | FileCheck --check-prefix=EXIT %s
// EXIT: exit=2
// Such a TU is never cached: a second run parses it again.
// RUN: not %tether check --quiet --cache-dir %t.cache %s -- %libtether_flags 2>&1 | FileCheck --check-prefix=CACHE %s
// CACHE: tether check: cache: 1 parsed, 0 reused of 1 translation units
// The JSON report marks the TU as partial, and keeps its findings.
// RUN: not %tether check --quiet --format json %s -- %libtether_flags | FileCheck --check-prefix=JSON %s
// JSON: "failed_units": [
// JSON: "file": "{{.*}}compile-errors.cpp",
// JSON-NEXT: "partial": true
// JSON: "findings": [
// JSON: "check": "tether-detached-context"
#include <tether/context.hpp>

void Send(const tether::Context& ctx, int n);

void Before(const tether::Context& ctx) {
  Send(tether::Background(), 1);
  // CHECK: compile-errors.cpp:[[@LINE-1]]:8: warning: root context 'tether::Background()' {{.*}} [tether-detached-context]
}

void Broken(const tether::Context& ctx) {
  Send(ctx, no_such_count);
  // ERR: tether check: error: {{.*}}compile-errors.cpp has compile errors: its results may be incomplete (checked on the AST Clang recovered):
  // ERR-NEXT: {{^}}{{.*}}compile-errors.cpp:[[@LINE-2]]:13: error: use of undeclared identifier 'no_such_count'
  Send(tether::TODO(), 2);
  // CHECK: compile-errors.cpp:[[@LINE-1]]:8: warning: root context 'tether::TODO()' {{.*}} [tether-detached-context]
}
// ERR: tether check: 2 findings in 1 translation unit; 1 with compile errors (results may be incomplete)
