#!/usr/bin/env bash
# Installs the build BUILD_DIR into a temporary prefix and uses it from a
# project outside the tree, both ways a user would: CMake's find_package and
# pkg-config. Each program then runs under the installed `tether trace`.
# Prints one "install:" line per step for FileCheck; exits non-zero at the
# first step that fails. Bounded: every step has a timeout, and the only
# compiles are the three small consumer programs.
# Usage: install.sh BUILD_DIR WORK_DIR
set -euo pipefail
build="$(cd "${1:?usage: install.sh BUILD_DIR WORK_DIR}" && pwd)"
work="${2:?usage: install.sh BUILD_DIR WORK_DIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
log="$work/log"
step() { echo "install: $*"; }
fail() { echo "install: FAILED: $*"; tail -n 40 "$log"; exit 1; }

timeout 300 cmake --install "$build" --prefix "$prefix" >"$log" 2>&1 || fail "cmake --install"
for f in bin/tether bin/tether-worker lib/libtether.a lib/libtether_trace.a \
         lib/libtether_threads.so lib/libtether_llvm.so lib/libtether_gtest_main.a \
         include/tether/trace/scope.h \
         include/tether/context.hpp include/tether/trace/gtest.hpp \
         lib/cmake/Tether/TetherConfig.cmake lib/pkgconfig/tether.pc \
         share/tether/models/libtether.json share/doc/tether/README.md; do
  [[ -e "$prefix/$f" ]] || fail "not installed: $f"
done
step "installed into the prefix"
"$prefix/bin/tether" --version | head -n 1
# The installed checker (lib/libtether_llvm.so, loaded by bin/tether) on the
# consumer's source, against the installed headers.
rc=0
timeout 300 "$prefix/bin/tether" check "$here/Inputs/consumer/main.cpp" -- -std=c++20 \
  -I"$prefix/include" >"$log" 2>&1 || rc=$?
grep -E "^tether check:" "$log" || true
echo "install: check exit $rc"
# Its SARIF links each check to its page in the installed docs, and the pages exist.
timeout 300 "$prefix/bin/tether" check --quiet --format sarif --output "$work/check.sarif" \
  "$here/Inputs/consumer/main.cpp" -- -std=c++20 -I"$prefix/include" >"$log" 2>&1 || true
python3 - "$work/check.sarif" "$prefix" <<'PY'
import json, os, sys, urllib.parse
driver = json.load(open(sys.argv[1]))["runs"][0]["tool"]["driver"]
uris = [driver["informationUri"]] + [r["helpUri"] for r in driver["rules"]]
base = "file://" + sys.argv[2] + "/share/doc/tether/"
bad = [u for u in uris if not u.startswith(base) or not os.path.isfile(urllib.parse.unquote(u[7:]))]
print("install: sarif links %d pages in PREFIX/share/doc/tether, missing: %s" % (len(uris), bad))
PY

# find_package(Tether CONFIG): configure and build the consumer project.
timeout 300 cmake -S "$here/Inputs/consumer" -B "$work/cmake-build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >"$log" 2>&1 || fail "configure consumer"
grep -o "Tether 0\.[0-9.]* from $prefix/lib/cmake/Tether" "$log" | sed "s|$prefix|PREFIX|" || fail "found the wrong Tether"
timeout 600 cmake --build "$work/cmake-build" >"$log" 2>&1 || fail "build consumer"
step "built with find_package"

# pkg-config: the same program compiled by hand with the flags tether.pc gives,
# and no -std of its own: tether.pc's Cflags carry -std=c++20.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pkg-config --modversion tether
read -r -a flags <<<"$(pkg-config --cflags --libs tether)"
timeout 600 c++ -O1 "$here/Inputs/consumer/main.cpp" -o "$work/consumer-pc" "${flags[@]}" \
  >"$log" 2>&1 || fail "build with pkg-config"
step "built with pkg-config"

# Every program runs under the installed tracer: a clean run is clean, a
# zombie is found (exit 1) whichever way the program was built.
trace() { # trace NAME [OPTIONS --] PROGRAM ARGS...: prints the summary and the exit code
  local name="$1"; shift
  local options=()
  if [[ " $* " == *" -- "* ]]; then
    while [[ "$1" != "--" ]]; do options+=("$1"); shift; done
    shift
  fi
  local rc=0
  timeout 120 "$prefix/bin/tether" trace --out "$work/$name.jsonl" "${options[@]}" -- "$@" >"$work/$name.txt" 2>&1 || rc=$?
  grep -E "^consumer:|SUMMARY|ZOMBIE|linked with" "$work/$name.txt" | sed "s|$work|WORK|g" || true
  echo "install: $name exit $rc"
}
trace cmake-clean "$work/cmake-build/consumer" clean
trace cmake-zombie "$work/cmake-build/consumer" zombie
trace pc-clean "$work/consumer-pc" clean
trace pc-zombie "$work/consumer-pc" zombie
# Tether::context alone: runs, but there is no tracer in it to start
# (--threads off: nothing is traced, exit 2 with a hint). With its threads
# traced (the shim preloaded, the default) it is clean: libtether's idle
# cached thread is the cache's, not a leak.
trace context-only --threads off -- "$work/cmake-build/consumer_context_only" clean
trace context-only-threads "$work/cmake-build/consumer_context_only" clean

# Tether::gtest: the clean test passes, the leaking one fails, named.
rc=0
timeout 120 "$work/cmake-build/consumer_test" >"$work/gtest.txt" 2>&1 || rc=$?
grep -E "^\[  (PASSED|FAILED)  \]|task \"left over\"" "$work/gtest.txt" || true
echo "install: gtest exit $rc"

# Tether::gtest_main under the installed tracer (and its installed thread
# shim): the test whose thread outlives it fails, the other passes.
rc=0
timeout 120 "$prefix/bin/tether" trace --out "$work/gtest-threads.jsonl" -- \
  "$work/cmake-build/consumer_threads_test" >"$work/gtest-threads.txt" 2>&1 || rc=$?
grep -E "^\[  (PASSED|FAILED)  \]|^tether: a thread|ZOMBIE" "$work/gtest-threads.txt" || true
echo "install: gtest-threads exit $rc"
