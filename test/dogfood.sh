#!/usr/bin/env bash
# Dogfood: tether check over Tether's own worker-reference/ and lib/ code.
# usage: test/dogfood.sh BUILD_DIR [SOURCE_DIR...]
# BUILD_DIR must be configured with -DTETHER_BUILD_CHECKER=ON (it holds
# compile_commands.json and tool/tether). Checks every translation unit in
# compile_commands.json under the SOURCE_DIRs (relative to the source tree;
# default: lib and worker-reference; tests excluded) that exists, whatever is
# there, and fails on any unjustified finding or on a TU that cannot be
# analysed. `./run test` checks the default; `./run demo` checks
# worker-reference and lib/context (the worker and libtether, a third of the
# time).
set -euo pipefail

build="${1:?usage: test/dogfood.sh BUILD_DIR [SOURCE_DIR...]}"
shift
dirs=("$@")
((${#dirs[@]})) || dirs=(lib worker-reference)
build="$(cd "$build" && pwd)"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tether="$build/tool/tether"
db="$build/compile_commands.json"
[[ -x "$tether" ]] || { echo "dogfood: $tether not built (configure with -DTETHER_BUILD_CHECKER=ON)" >&2; exit 2; }
[[ -f "$db" ]] || { echo "dogfood: $db missing" >&2; exit 2; }

# The project's own TUs under lib/ and worker-reference/, tests excluded,
# only files that exist now (other work may be in flight).
mapfile -t files < <(python3 - "$db" "$src" "${dirs[@]}" <<'PY'
import json, os, sys
db, src, dirs = sys.argv[1], sys.argv[2], [d.rstrip("/") + "/" for d in sys.argv[3:]]
seen = set()
def sources(entry):
    """The entry's file; for a CMake unity file (Unity/unity_N_cxx.cxx), the
    sources it includes, which tether check lists in its place."""
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    if os.path.basename(os.path.dirname(path)) != "Unity" or not os.path.exists(path):
        return [path]
    lines = [l.strip() for l in open(path)]
    return [os.path.normpath(os.path.join(os.path.dirname(path), l[len('#include "'):-1]))
            for l in lines if l.startswith('#include "') and l.endswith('"')]
for path in (p for entry in json.load(open(db)) for p in sources(entry)):
    rel = os.path.relpath(path, src)
    if not any(rel.startswith(d) for d in dirs):
        continue
    parts = rel.split("/")
    if any(p in ("test", "tests", "unit") for p in parts) or rel.endswith("_test.cpp"):
        continue
    if os.path.exists(path) and path not in seen:
        seen.add(path)
        print(path)
PY
)
if ((${#files[@]} == 0)); then
  echo "dogfood: no translation units under ${dirs[*]} in $db" >&2
  exit 2
fi
echo "dogfood: tether check over ${#files[@]} translation units" >&2
# With progress ([i/N] FILE on stderr, one line a unit as it starts): the step
# takes minutes on a fresh machine (./run demo), and a silent one looks hung.
set +e
"$tether" check -p "$build" -j "${TETHER_JOBS:-2}" "${files[@]}"
rc=$?
set -e
case $rc in
  0) echo "dogfood: clean" >&2 ;;
  1) echo "dogfood: FAILED: unjustified findings above" >&2 ;;
  *) echo "dogfood: FAILED: tether check could not analyse everything (exit $rc)" >&2 ;;
esac
exit $rc
