// REQUIRES: checker
// --warnings-as-errors=GLOBS, clang-tidy's option: the findings of the checks
// GLOBS enables are errors (text `error: ... [check,-warnings-as-errors]`,
// level "error" in JSON, SARIF and the fixes YAML), and only they make the run
// exit 1: the other findings are reported as warnings and the run exits 0.
// Without the option every finding exits 1; a failed analysis is 2 either way.
// RUN: rm -rf %t && mkdir -p %t
// Without the option: two warnings, exit 1.
// RUN: not %tether check --quiet %s -- %libtether_flags > %t/plain.txt
// RUN: FileCheck --check-prefix=PLAIN %s --input-file=%t/plain.txt --implicit-check-not=error:
// PLAIN: warnings-as-errors.cpp:[[#CTX:]]:7: warning: root context {{.*}} [tether-detached-context]
// PLAIN: warnings-as-errors.cpp:[[#CTX+1]]:3: warning: detached task{{.*}} [tether-detached-task]

// One check's findings are errors: exit 1, and the summary counts them.
// RUN: not %tether check --quiet --warnings-as-errors=tether-detached-task %s -- %libtether_flags > %t/task.txt 2> %t/task.err
// RUN: FileCheck --check-prefix=TASK %s --input-file=%t/task.txt
// TASK: warnings-as-errors.cpp:[[#]]:7: warning: root context {{.*}} [tether-detached-context]{{$}}
// TASK: warnings-as-errors.cpp:[[#]]:3: error: detached task{{.*}} [tether-detached-task,-warnings-as-errors]{{$}}
// RUN: FileCheck --check-prefix=TASK-SUMMARY %s --input-file=%t/task.err
// TASK-SUMMARY: tether check: 2 findings in 1 translation unit; 1 is an error (--warnings-as-errors)
// RUN: %python %S/Inputs/exit_code.py %tether check --quiet --warnings-as-errors=tether-detached-task %s -- %libtether_flags | FileCheck --check-prefix=EXIT1 %s
// EXIT1: exit=1

// An enabled check that found nothing: the findings are warnings, exit 0.
// RUN: %tether check --quiet --warnings-as-errors=tether-lost-cancel %s -- %libtether_flags > %t/none.txt 2> %t/none.err
// RUN: FileCheck --check-prefix=PLAIN %s --input-file=%t/none.txt --implicit-check-not=error:
// RUN: FileCheck --check-prefix=NONE-ERR %s --input-file=%t/none.err --implicit-check-not=note:
// NONE-ERR: tether check: 2 findings in 1 translation unit{{$}}
// RUN: %python %S/Inputs/exit_code.py %tether check --quiet --warnings-as-errors=tether-lost-cancel %s -- %libtether_flags | FileCheck --check-prefix=EXIT0 %s
// EXIT0: exit=0

// A list that matches no enabled check (empty, or a check --checks leaves
// out) is allowed, a report that never fails; a note says so (a typo looks
// the same). `--warnings-as-errors=` is the empty list, not the next word.
// RUN: %tether check --quiet --warnings-as-errors= %s -- %libtether_flags 2>&1 | FileCheck --check-prefix=EMPTY %s
// EMPTY: tether check: note: --warnings-as-errors '' matches none of the enabled checks: no finding fails the run
// RUN: %python %S/Inputs/exit_code.py %tether check --quiet --warnings-as-errors= %s -- %libtether_flags | FileCheck --check-prefix=EXIT0 %s
// RUN: %tether check --quiet --checks='-*,tether-detached-context' --warnings-as-errors=tether-detached-task %s -- %libtether_flags 2>&1 | FileCheck --check-prefix=OTHER %s
// OTHER: tether check: note: --warnings-as-errors 'tether-detached-task' matches none of the enabled checks: no finding fails the run
// OTHER: warning: root context
// OTHER: tether check: 1 finding in 1 translation unit{{$}}

// JSON and SARIF say which findings are errors; the SARIF stays valid.
// RUN: not %tether check --quiet --format json --warnings-as-errors=tether-detached-task %s -- %libtether_flags > %t/r.json
// RUN: %python -c "import json,sys; print(*sorted((f['check'], f['level']) for f in json.load(open(sys.argv[1]))['findings']))" %t/r.json | FileCheck --check-prefix=JSON %s
// JSON: ('tether-detached-context', 'warning') ('tether-detached-task', 'error')
// RUN: not %tether check --quiet --format sarif --sarif-root %S --warnings-as-errors=tether-detached-task %s -- %libtether_flags > %t/r.sarif
// RUN: %python -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(*sorted((x['ruleId'], x['level']) for x in r['results'])); print(*[(x['id'], x['defaultConfiguration']['level']) for x in r['tool']['driver']['rules'] if x['id'] in ('tether-detached-task', 'tether-lost-cancel')])" %t/r.sarif | FileCheck --check-prefix=SARIF %s
// SARIF: ('tether-detached-context', 'warning') ('tether-detached-task', 'error')
// SARIF-NEXT: ('tether-lost-cancel', 'warning') ('tether-detached-task', 'error')
// RUN: %python %S/Inputs/validate_sarif.py %t/r.sarif | FileCheck --check-prefix=VALID %s
// VALID: OK: valid SARIF 2.1.0

// The fixes for clang-apply-replacements: an error's level is Error.
// RUN: not %tether check --quiet --export-fixes %t/fixes.yaml --warnings-as-errors='tether-detached-*' %s -- %libtether_flags
// RUN: FileCheck --check-prefix=YAML %s --input-file=%t/fixes.yaml
// YAML: DiagnosticName:  tether-detached-context
// YAML: Level:           Error

// Findings known from a baseline fail nothing; a failed analysis is still 2.
// RUN: not %tether check --quiet --format json --output %t/baseline.json %s -- %libtether_flags
// RUN: %python %S/Inputs/exit_code.py %tether check --quiet --baseline %t/baseline.json --warnings-as-errors='*' %s -- %libtether_flags | FileCheck --check-prefix=EXIT0 %s
// RUN: %python %S/Inputs/exit_code.py %tether check --quiet --warnings-as-errors= %S/Inputs/broken.cpp %s -- %libtether_flags | FileCheck --check-prefix=EXIT2 %s
// EXIT2: exit=2
#include <tether/context.hpp>
#include <tether/task.hpp>

void Use(const tether::Context& ctx);

void Handler(const tether::Context& ctx) {
  Use(tether::Background());
  tether::Go(ctx, [] {});
}
