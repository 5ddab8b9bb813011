// REQUIRES: checker
// RUN: not %tether check --quiet --format=json %s -- %libtether_flags > %t.json
// RUN: %python -c "import json,sys; json.load(open(sys.argv[1]))" %t.json
// RUN: FileCheck %s --input-file=%t.json
#include <tether/context.hpp>
#include <tether/task.hpp>

void Use(const tether::Context& ctx);

void Handler(const tether::Context& ctx) {
  Use(tether::Background());
  tether::Go(ctx, [] {});
}
// CHECK:   "failed_units": [],
// CHECK: "findings": [
// CHECK:     "check": "tether-detached-context",
// CHECK-NEXT: "col": 7,
// CHECK-NEXT: "file": "{{.*}}output-json.cpp",
// CHECK-NEXT: "fingerprint": "{{[0-9a-f]+}}:1",
// CHECK-NEXT: "fixes": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "file": "{{.*}}output-json.cpp",
// CHECK-NEXT:     "length": 20,
// CHECK-NEXT:     "offset": {{[0-9]+}},
// CHECK-NEXT:     "text": "ctx"
// CHECK:      "function": "Handler",
// CHECK-NEXT: "level": "warning",
// CHECK-NEXT: "line": 11,
// CHECK-NEXT: "message": "root context 'tether::Background()' created in 'Handler'{{.*}}",
// CHECK-NEXT: "notes": [
// CHECK:          "line": 10,
// CHECK-NEXT:     "message": "context 'ctx' is reachable here (parameter)"
// CHECK:     "check": "tether-detached-task",
// CHECK:     "line": 12,
// CHECK:   "units": 1
