#!/usr/bin/env bash
# bench/trace_realcode.sh: run `tether trace` over the test suites of public C++
# projects that use threads, and time them traced against untraced.
#
#   bench/trace_realcode.sh BUILD_DIR NAME=TREE... 
#
# BUILD_DIR  a tether build (BUILD_DIR/tool/tether and libtether_threads.so beside it)
# NAME=TREE  a project tree already on disk (this script never downloads anything):
#              thread-pool=DIR      bshoshany/thread-pool   (tests/BS_thread_pool_test.cpp)
#              ThreadPool=DIR       progschj/ThreadPool     (example.cpp: its only program)
#              CTPL=DIR             vit-vit/CTPL            (example.cpp, ctpl_stl.h)
#              concurrentqueue=DIR  cameron314/concurrentqueue (tests/unittests)
#              spdlog=DIR           gabime/spdlog (tests/, Catch2 v3 from catch2=DIR below)
#              catch2=DIR           catchorg/Catch2 (extras/catch_amalgamated.*; for spdlog)
#              leveldb=DIR          google/leveldb (util/env_test.cc, db/db_test.cc; GoogleTest
#                                   from Debian's libgtest-dev, libgmock-dev)
#            The GoogleTest and Catch2 suites get a main / listener of ours
#            (bench/trace_realcode/*_scopes.cpp) that makes each test a scope.
#            Trees come from `git archive` of a mirror: never inside this repository.
# Env: OUT (default /tmp/trace-realcode): binaries, traces and reports per project;
#      RUNS (default 3) timed runs each way; REBUILD=1 rebuilds binaries that exist;
#      BUILD_ONLY=1 builds the binaries and stops.
# Per project: OUT/NAME.report (the tracer's report, --fail-on none, trace kept in
# OUT/NAME.trace) and one line of timings (median of RUNS whole-process wall times,
# untraced and traced alternating). Not part of ./run test.
set -uo pipefail
{  # read whole before running: editing it during a run cannot break that run

HERE=$(dirname "$(readlink -f "$0")")
SCOPE_INC=$HERE/../lib/scope_abi/include  # tether/trace/scope.h
BUILD=$(readlink -f "${1:?usage: bench/trace_realcode.sh BUILD_DIR NAME=TREE...}")
shift
OUT=${OUT:-/tmp/trace-realcode}
RUNS=${RUNS:-3}
TETHER=$BUILD/tool/tether
[[ ${BUILD_ONLY:-0} == 1 || ( -x $TETHER && -e $BUILD/tool/libtether_threads.so ) ]] || {
  echo "trace_realcode.sh: $TETHER or libtether_threads.so not built" >&2; exit 2; }
mkdir -p "$OUT/bin"
declare -A TREE
for arg in "$@"; do
  [[ $arg == *=* ]] || { echo "trace_realcode.sh: expected NAME=TREE, got '$arg'" >&2; exit 2; }
  TREE[${arg%%=*}]=$(readlink -f "${arg#*=}")
done

CXX=${CXX:-g++}
FLAGS=(-O1 -g -pthread)
compile() {  # compile OUTPUT ARGS...: unless it exists (REBUILD=1: always)
  local out=$1; shift
  [[ -x $out && ${REBUILD:-0} != 1 ]] && return 0
  echo "+ $CXX ${FLAGS[*]} $*" >&2
  nice -n 10 "$CXX" "${FLAGS[@]}" "$@" -o "$out"
}

build_thread-pool() {
  compile "$OUT/bin/thread-pool" -std=c++20 -I"${TREE[thread-pool]}/include" \
    "${TREE[thread-pool]}/tests/BS_thread_pool_test.cpp"
}
build_ThreadPool() { compile "$OUT/bin/ThreadPool" -std=c++11 "${TREE[ThreadPool]}/example.cpp"; }
build_CTPL() {
  # example.cpp includes <ctpl.h> (boost::lockfree); ctpl_stl.h is the same pool on the STL.
  mkdir -p "$OUT/ctpl-inc"
  echo '#include "ctpl_stl.h"' > "$OUT/ctpl-inc/ctpl.h"
  compile "$OUT/bin/CTPL" -std=c++11 -I"$OUT/ctpl-inc" -I"${TREE[CTPL]}" "${TREE[CTPL]}/example.cpp"
}
build_concurrentqueue() {
  local t=${TREE[concurrentqueue]}
  # As its build/makefile does (unittests), at -O1 -g.
  compile "$OUT/bin/concurrentqueue" -std=c++11 -DMOODYCAMEL_STATIC -fno-elide-constructors \
    "$t/tests/common/simplethread.cpp" "$t/tests/common/systemtime.cpp" \
    "$t/tests/unittests/unittests.cpp" "$t/c_api/blockingconcurrentqueue.cpp" \
    "$t/c_api/concurrentqueue.cpp" -lrt
}
build_spdlog() {
  local t=${TREE[spdlog]} c=${TREE[catch2]:?spdlog needs catch2=DIR}
  [[ -x $OUT/bin/spdlog && ${REBUILD:-0} != 1 ]] && return 0
  # spdlog's tests include <catch2/catch_all.hpp>; the amalgamated Catch2 is one TU.
  mkdir -p "$OUT/spdlog-obj" "$OUT/catch-inc/catch2"
  echo '#include "catch_amalgamated.hpp"' > "$OUT/catch-inc/catch2/catch_all.hpp"
  local objs=() src obj
  for src in "$t"/src/*.cpp "$t"/tests/*.cpp "$c/extras/catch_amalgamated.cpp" \
             "$HERE/trace_realcode/catch2_scopes.cpp"; do
    case ${src##*/} in test_eventlog.cpp|test_systemd.cpp) continue ;; esac  # Windows / libsystemd
    obj=$OUT/spdlog-obj/$(basename "$(dirname "$src")")-$(basename "$src" .cpp).o
    if [[ ! -e $obj || ${REBUILD:-0} == 1 ]]; then
      echo "+ $CXX -c $src" >&2
      nice -n 10 "$CXX" "${FLAGS[@]}" -std=c++17 -DSPDLOG_COMPILED_LIB -I"$t/include" \
        -I"$OUT/catch-inc" -I"$c/extras" -I"$SCOPE_INC" -c "$src" -o "$obj" || return 1
    fi
    objs+=("$obj")
  done
  "$CXX" -pthread "${objs[@]}" -o "$OUT/bin/spdlog"
}

build_leveldb() {
  local t=${TREE[leveldb]} b=$OUT/leveldb-build test
  # The library with its own CMake (no tests: they want the googletest submodule),
  # then two of its test binaries against the system's GoogleTest (-fno-rtti as the library).
  if [[ ! -e $b/libleveldb.a || ${REBUILD:-0} == 1 ]]; then
    cmake -S "$t" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="-O1 -g" -DCMAKE_CXX_STANDARD=17 \
      -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF -DLEVELDB_INSTALL=OFF >/dev/null &&
      nice -n 10 ninja -C "$b" -j2 leveldb >/dev/null || return 1
  fi
  for test in util/env_test db/db_test; do
    compile "$OUT/bin/leveldb-${test#*/}" -std=c++17 -fno-rtti -DLEVELDB_PLATFORM_POSIX=1 -I"$t" \
      -I"$t/include" -I"$b/include" -I"$SCOPE_INC" "$t/$test.cc" "$t/util/testutil.cc" \
      "$HERE/trace_realcode/gtest_scopes.cpp" "$b/libleveldb.a" -lgmock -lgtest || return 1
  done
}

# The test command of each project (run in OUT/run-NAME: spdlog writes logs/ there).
declare -A COMMAND=(
  [thread-pool]="stdout tests"
  [ThreadPool]=""
  [CTPL]=""
  [concurrentqueue]="--disable-prompt --iterations 1"
  [spdlog]=""
  [leveldb-env_test]=""
  [leveldb-db_test]=""
)

wall() {  # wall seconds of "$@" (output dropped)
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "uptime before: $(uptime)"
for name in thread-pool ThreadPool CTPL concurrentqueue spdlog leveldb-env_test leveldb-db_test; do
  project=${name%%-*_test}
  [[ -n ${TREE[$project]:-} ]] || continue
  "build_$project" || { echo "$name: build failed" >&2; continue; }
  [[ ${BUILD_ONLY:-0} == 1 ]] && continue
  bin=$OUT/bin/$name
  read -r -a args <<< "${COMMAND[$name]}"
  run=$OUT/run-$name
  rm -rf "$run"; mkdir -p "$run"
  (cd "$run" && "$TETHER" trace --fail-on none --out "$OUT/$name.trace" -- "$bin" "${args[@]}" \
     > "$OUT/$name.stdout" 2> "$OUT/$name.stderr")
  echo "$name: tether trace exit $?"
  # The report is what follows the program's own output: from the first '=====' or 'program:'
  # (which follows the program's last output on its line when that had no newline: thread-pool
  # ends with an ANSI reset).
  awk '/^==================$/ || /^(\033\[[0-9;]*m)*program: / {on=1} on' "$OUT/$name.stdout" \
    > "$OUT/$name.report"
  grep -E 'SUMMARY:|program: ' "$OUT/$name.report"
  untraced=() traced=()
  for ((i = 0; i < RUNS; i++)); do
    untraced+=("$(cd "$run" && wall "$bin" "${args[@]}")")
    traced+=("$(cd "$run" && wall "$TETHER" trace --fail-on none -- "$bin" "${args[@]}")")
  done
  u=$(printf '%s\n' "${untraced[@]}" | median)
  t=$(printf '%s\n' "${traced[@]}" | median)
  printf '%s: untraced %.3fs [%s] traced %.3fs [%s] ratio %.2f\n' "$name" "$u" \
    "$(printf '%.3f ' "${untraced[@]}")" "$t" "$(printf '%.3f ' "${traced[@]}")" \
    "$(echo "$t / $u" | bc -l)"
done
echo "uptime after: $(uptime)"
exit 0
}
