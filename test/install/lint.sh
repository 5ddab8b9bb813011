#!/usr/bin/env bash
# Lints a project outside the tree the way its CI would, with what
# `cmake --install` installed: the `tether check` lint step (text and SARIF,
# the SARIF valid against the 2.1.0 schema and every link resolving), the
# clang-tidy plugin loaded by the real clang-tidy-16, a typo in --checks that
# must fail the step, and the pull-request mode (`git diff -U0 | tether check
# --diff -`). Prints "lint:" lines for FileCheck; paths under WORK_DIR read WORK.
# Usage: lint.sh BUILD_DIR WORK_DIR
set -euo pipefail
build="$(cd "${1:?usage: lint.sh BUILD_DIR WORK_DIR}" && pwd)"
work="${2:?usage: lint.sh BUILD_DIR WORK_DIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
project="$work/project"
log="$work/log"
fail() { echo "lint: FAILED: $*"; tail -n 40 "$log"; exit 1; }
# run NAME COMMAND...: the command's output with WORK for $work, then its exit code.
run() {
  local name="$1" rc=0
  shift
  timeout 300 "$@" >"$work/$name.out" 2>&1 || rc=$?
  sed "s|$work|WORK|g" "$work/$name.out"
  echo "lint: $name exit $rc"
}

timeout 300 cmake --install "$build" --prefix "$prefix" >"$log" 2>&1 || fail "cmake --install"
plugin="$prefix/lib/tether/libTetherTidy.so"
[[ -f "$plugin" ]] || fail "not installed: lib/tether/libTetherTidy.so"
echo "lint: installed the plugin"

# The project under git, as a CI checkout is, configured (never built): the
# compile database is all a lint step needs.
cp -r "$here/Inputs/lint-project" "$project"
git -C "$project" init -q
git -C "$project" add -A
git -C "$project" -c user.email=ci@example.com -c user.name=ci commit -qm base
timeout 300 cmake -S "$project" -B "$project/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  >"$log" 2>&1 || fail "configure the project"

run check "$prefix/bin/tether" check --quiet -p "$project/build"
# From the checkout, as CI runs it: SARIF URIs relative to the git toplevel.
run sarif env -C "$project" "$prefix/bin/tether" check --quiet --format sarif \
  --output "$work/lint.sarif" -p build
python3 "$here/../check/Inputs/validate_sarif.py" "$work/lint.sarif" | sed 's/^/lint: /'
python3 - "$work/lint.sarif" <<'PY'
import json, os, sys, urllib.parse
run = json.load(open(sys.argv[1]))["runs"][0]
driver = run["tool"]["driver"]
uris = [driver["informationUri"]] + [r["helpUri"] for r in driver["rules"]]
dead = [u for u in uris if not (u.startswith("file://")
        and os.path.isfile(urllib.parse.unquote(u[len("file://"):])))]
files = sorted({l["physicalLocation"]["artifactLocation"]["uri"]
                for r in run["results"] for l in r["locations"]})
print("lint: sarif %d results in %s, %d links, dead: %s" % (len(run["results"]), files, len(uris), dead))
PY

# The installed plugin in clang-tidy-16, on the same compile database; its
# findings fail the step as errors.
run tidy clang-tidy-16 --quiet --load="$plugin" --checks='-*,tether-*' \
  --warnings-as-errors='tether-*' -p "$project/build" \
  "$project/service.cpp"

# A typo in --checks enables nothing: the step fails instead of passing green.
run typo "$prefix/bin/tether" check --quiet --checks='-*,tether-lost-cancl' -p "$project/build"

# A pull request adds a function with a new finding: --diff reports it alone.
cat "$here/Inputs/lint-project/new-function.cpp.in" >>"$project/service.cpp"
git -C "$project" diff -U0 >"$work/pr.diff"
run diff "$prefix/bin/tether" check --quiet --diff "$work/pr.diff" -p "$project/build"
