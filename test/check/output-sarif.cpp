// REQUIRES: checker
// RUN: not %tether check --quiet --format=sarif --sarif-root=%S --output=%t.sarif %s -- %libtether_flags
// RUN: %python %S/Inputs/validate_sarif.py %t.sarif | FileCheck --check-prefix=VALID %s
// VALID: OK: valid SARIF 2.1.0
// RUN: FileCheck %s --input-file=%t.sarif
// Every helpUri (and the informationUri) names a page that exists.
// RUN: %python -c "import json,sys,os,urllib.parse; d=json.load(open(sys.argv[1]))['runs'][0]['tool']['driver']; uris=[d['informationUri']]+[r['helpUri'] for r in d['rules']]; bad=[u for u in uris if not (u.startswith('file://') and os.path.isfile(urllib.parse.unquote(u[7:])))]; print(len(uris), 'pages', 'missing:', bad)" %t.sarif | FileCheck --check-prefix=PAGES %s
// PAGES: {{[0-9]+}} pages missing: []
#include <tether/context.hpp>

void Use(const tether::Context& ctx);

void Handler(const tether::Context& ctx) { Use(tether::TODO()); }
// CHECK: "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
// CHECK: "results": [
// CHECK:     "level": "warning",
// CHECK:     "locations": [
// CHECK:           "artifactLocation": {
// CHECK-NEXT:        "uri": "output-sarif.cpp",
// CHECK-NEXT:        "uriBaseId": "%SRCROOT%"
// CHECK:           "region": {
// CHECK-NEXT:        "startColumn": 48,
// CHECK-NEXT:        "startLine": [[@LINE-10]]
// CHECK:     "partialFingerprints": {
// CHECK-NEXT:  "primaryLocationLineHash": "{{[0-9a-f]+}}:1"
// CHECK:     "relatedLocations": [
// CHECK:     "ruleId": "tether-detached-context",
// CHECK-NEXT: "ruleIndex": 0
// CHECK:  "tool": {
// CHECK:      "informationUri": "file://{{[^"]+}}/docs/checker.md",
// CHECK-NEXT: "name": "tether",
// CHECK:      "rules": [
// CHECK:          "fullDescription": {
// CHECK:          "help": {
// CHECK-NEXT:       "markdown": "{{.*}}docs/checks/detached-context.md{{.*}}",
// CHECK:          "helpUri": "file://{{[^"]+}}/docs/checks/detached-context.md",
// CHECK:          "id": "tether-detached-context",
// CHECK:          "shortDescription": {
// CHECK:          "id": "tether-lost-cancel",
// CHECK:      "semanticVersion": "{{[0-9]+\.[0-9]+\.[0-9]+}}",
// CHECK-NEXT: "version": "{{[0-9]+\.[0-9]+\.[0-9]+}}"
// CHECK: "version": "2.1.0"
