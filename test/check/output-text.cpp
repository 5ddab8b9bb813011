// REQUIRES: checker
// A text report written with --output ends with the summary line that stderr
// shows (the diagnostics alone do not say how many TUs were checked).
// RUN: not %tether check --quiet --output %t.txt %s -- %libtether_flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.txt
// RUN: FileCheck --check-prefix=ERR %s --input-file=%t.err
#include <tether/context.hpp>

void Send(const tether::Context& ctx);

void Retry(const tether::Context& ctx) { Send(tether::Background()); }
// CHECK: output-text.cpp:[[@LINE-1]]:47: warning: root context 'tether::Background()' {{.*}} [tether-detached-context]
// CHECK: {{^}}tether check: 1 finding in 1 translation unit{{$}}
// CHECK-EMPTY:
// ERR: {{^}}tether check: 1 finding in 1 translation unit{{$}}
