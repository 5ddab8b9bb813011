// REQUIRES: checker
// RUN: not %tether check --quiet --format=sarif --sarif-root=%S --output=%t.sarif %s -- %libtether_flags
// RUN: %python %S/Inputs/validate_sarif.py %t.sarif | FileCheck --check-prefix=VALID %s
// VALID: OK: valid SARIF 2.1.0
// RUN: FileCheck %s --input-file=%t.sarif
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
// CHECK:      "informationUri": "{{https?://[^"]+}}",
// CHECK-NEXT: "name": "tether",
// CHECK:      "rules": [
// CHECK:          "fullDescription": {
// CHECK:          "help": {
// CHECK-NEXT:       "markdown": "{{.*}}docs/checks/detached-context.md{{.*}}",
// CHECK:          "helpUri": "{{https?://[^"]+}}/docs/checks/detached-context.md",
// CHECK:          "id": "tether-detached-context",
// CHECK:          "shortDescription": {
// CHECK:          "id": "tether-lost-cancel",
// CHECK:      "semanticVersion": "{{[0-9]+\.[0-9]+\.[0-9]+}}",
// CHECK-NEXT: "version": "{{[0-9]+\.[0-9]+\.[0-9]+}}"
// CHECK: "version": "2.1.0"
