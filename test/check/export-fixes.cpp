// REQUIRES: checker
// RUN: rm -rf %t && mkdir -p %t && grep -v -E "CHECK|YAML|FIXED" %s > %t/input.cpp
// RUN: not %tether check --quiet --export-fixes=%t/fixes.yaml %t/input.cpp -- %libtether_flags
// RUN: FileCheck --check-prefix=YAML %s --input-file=%t/fixes.yaml
// The YAML is what clang-apply-replacements consumes:
// RUN: clang-apply-replacements-16 %t
// RUN: FileCheck --check-prefix=FIXED %s --input-file=%t/input.cpp
#include <tether/context.hpp>

void Use(const tether::Context& ctx);
void Destroy();
void Destroy(const tether::Context& ctx);

void Handler(const tether::Context& request_ctx) {
  Use(tether::Background());
  Destroy();
}
// YAML: ---
// YAML: MainSourceFile:  '{{.*}}input.cpp'
// YAML: Diagnostics:
// YAML:   - DiagnosticName:  tether-detached-context
// YAML:           ReplacementText: 'request_ctx'
// YAML:   - DiagnosticName:  tether-context-not-forwarded
// YAML:         - FilePath:        '{{.*}}input.cpp'
// YAML-NEXT:      Offset:          {{[0-9]+}}
// YAML-NEXT:      Length:          0
// YAML-NEXT:      ReplacementText: 'request_ctx'
// YAML: ...
// FIXED: {{^}}  Use(request_ctx);{{$}}
// FIXED: {{^}}  Destroy(request_ctx);{{$}}
