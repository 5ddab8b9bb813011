// REQUIRES: checker
// RUN: not %tether check --quiet --graph=%t.json %s %S/Inputs/forwarding-callees.cpp -- %libtether_flags > /dev/null
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['tether_static_graph'] == 1" %t.json
// RUN: FileCheck %s --input-file=%t.json
#include <tether/context.hpp>

void Upload();

void Step(const tether::Context& ctx) { Upload(); }
// CHECK: "calls": [
// CHECK:      "file": "{{.*}}graph.cpp",
// CHECK-NEXT: "from": "c:@F@Step{{.*}}",
// CHECK-NEXT: "line": [[@LINE-4]],
// CHECK-NEXT: "passes_context": false,
// CHECK-NEXT: "to": "c:@F@Upload#"
// CHECK: "findings": [
// CHECK:      "check": "tether-context-not-forwarded",
// CHECK:      "function": "Step",
// CHECK-NEXT: "line": [[@LINE-10]],
// CHECK: "functions": [
// CHECK:      "creates_roots": [],
// CHECK:      "id": "c:@F@Step{{.*}}",
// CHECK:      "name": "Step",
// CHECK-NEXT: "qualified_name": "Step",
// CHECK-NEXT: "receives_context": true,
// CHECK:      "creates_roots": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "call": "tether::Background",
// CHECK-NEXT:     "file": "{{.*}}forwarding-callees.cpp",
// CHECK-NEXT:     "justified": false,
// CHECK-NEXT:     "line": 7
// CHECK:      "id": "c:@F@Upload#",
// CHECK:      "receives_context": false,
// CHECK: "tether_static_graph": 1
