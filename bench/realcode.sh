#!/usr/bin/env bash
# bench/realcode.sh: run `tether check` over public C++ projects nobody here wrote.
#
#   bench/realcode.sh TETHER [SRC_DIR] [OUT_DIR]
#
# TETHER   the tether binary (e.g. build/tool/tether)
# SRC_DIR  where the projects are (or will be) checked out; default /work/realcode-src.
#          Never inside this repository: their code is not ours to commit.
# OUT_DIR  the reports; default SRC_DIR/_out (one NAME.json, NAME.stderr per project)
#
# Each project is pinned to a commit (PROJECTS below). A project is taken from SRC_DIR/NAME when
# it is there; otherwise it is cloned from $REALCODE_MIRROR/OWNER+NAME/repo (a bare mirror, as
# the session's fetch tool leaves them) or, failing that, from github.com. The commit is checked
# out in a detached HEAD. A compile database is made for each (CMake configure only, never a
# build; or written by hand where the project's build downloads its dependencies), then
#   tether check -p DB --format json --model builtin:libtether --model builtin:std-stop-token -j J
# runs over it (J = $REALCODE_JOBS, default 2; REALCODE_ONLY="a b" runs only projects a and b). Dependencies come from Debian packages only:
#   apt-get install googletest libgtest-dev libbenchmark-dev catch2 doctest-dev libcxxopts-dev \
#     libboost-dev libssl-dev libc-ares-dev libzstd-dev libxxhash-dev libasio-dev
# Per project it prints: TUs, TUs that failed to parse (with the first error), findings by check.
# REALCODE_BEFORE=DIR compares the findings with an earlier OUT_DIR.
# Re-runnable: existing checkouts and build dirs are reused (configure is re-run, it is cheap).
set -uo pipefail
{  # the whole script is read before it runs: editing it during a run cannot break that run

TETHER=${1:?usage: bench/realcode.sh TETHER [SRC_DIR] [OUT_DIR]}
SRC=${2:-/work/realcode-src}
OUT=${3:-$SRC/_out}
MIRROR=${REALCODE_MIRROR:-/work/.mirror}
JOBS=${REALCODE_JOBS:-2}
TETHER=$(readlink -f "$TETHER")
[ -x "$TETHER" ] || { echo "realcode: $TETHER is not executable" >&2; exit 2; }
case "$(readlink -f "$SRC")/" in
  "$(git -C "$(dirname "$0")" rev-parse --show-toplevel 2>/dev/null)/"*)
    echo "realcode: SRC_DIR must be outside the repository" >&2; exit 2 ;;
esac
mkdir -p "$SRC" "$OUT" "$SRC/_build" "$SRC/_shims"
BUILD=$SRC/_build

# name          owner/repo                     commit                                    db
PROJECTS=(
  "leveldb       google/leveldb                 78a352f47ed6c1e9d750545e9b242289185b87e1 db_leveldb"
  "spdlog        gabime/spdlog                  62302019babd8fdf63c1c6dc4c9faa48d441a7f0 db_spdlog"
  "jthread       josuttis/jthread               0fa8d394254886c555d6faccd0a3de819b7d47f8 db_jthread"
  "dp-thread-pool DeveloperPaul123/thread-pool  a0aa5bc8362bdf483544c02bb63ad4cd52c1b7ba db_dp_thread_pool"
  "bs-thread-pool bshoshany/thread-pool         bd4533f1f70c2b975cbd5769a60d8eaaea1d2233 db_bs_thread_pool"
  "ThreadPool    progschj/ThreadPool            9a42ec1329f259a5f4881a291db1dcb8f2ad9040 db_progschj"
  "g3log         KjellKod/g3log                 8ff5c3e90ef23782fc7014949c3efe9a3dbf7395 db_g3log"
  "taskflow      taskflow/taskflow              83f90a279aaab33fd4ce1deed00ca07819cbc8f8 db_taskflow"
  # issue 30: server/worker code that stops its threads with flags and condition variables
  "CTPL          vit-vit/CTPL                   437e135dbd94eb65b45533d9ce8ee28b5bd37b6d db_ctpl"
  "quill         odygrd/quill                   c4f3fa4e366d17010e87c0e5afb2e586f6404266 db_quill"
  "trantor       an-tao/trantor                 63a4e5e164e219dc3bf30cdbfa1462ae5602fa97 db_trantor"
  "log4cplus     log4cplus/log4cplus            ef4022cee2eef75ef15ee252c0c15f43066d8c4a db_log4cplus"
  "ccache        ccache/ccache                  e5731387e9b2ea0b57c36dfef69fcf418190a0c5 db_ccache"
  "async_simple  alibaba/async_simple           d8abc4fe71a6481e2b354e01029687a5df68417c db_async_simple"
)

log() { echo "realcode: $*" >&2; }

# the Debian packages the databases rely on: a missing one makes TUs fail to parse, so say so
for dep in /usr/src/googletest/CMakeLists.txt:googletest /usr/include/gtest/gtest.h:libgtest-dev \
           /usr/include/benchmark/benchmark.h:libbenchmark-dev /usr/include/catch2/catch.hpp:catch2 \
           /usr/include/doctest/doctest.h:doctest-dev /usr/include/cxxopts.hpp:libcxxopts-dev \
           /usr/include/boost/lockfree/queue.hpp:libboost-dev /usr/include/openssl/ssl.h:libssl-dev \
           /usr/include/ares.h:libc-ares-dev /usr/include/zstd.h:libzstd-dev \
           /usr/include/xxhash.h:libxxhash-dev /usr/include/asio.hpp:libasio-dev; do
  [ -e "${dep%%:*}" ] || log "missing ${dep%%:*}: apt-get install ${dep##*:}"
done
for tool in cmake ninja git python3 c++; do
  command -v "$tool" >/dev/null || { log "needs $tool"; exit 2; }
done

# checkout NAME OWNER/REPO COMMIT -> SRC/NAME at COMMIT
checkout() {
  local name=$1 repo=$2 commit=$3 dir=$SRC/$1 bare=$MIRROR/${2/\//+}/repo
  if [ ! -d "$dir/.git" ]; then
    if [ -d "$bare" ]; then git clone -q --no-checkout "$bare" "$dir" || return 1
    else git clone -q --no-checkout "https://github.com/$repo" "$dir" || return 1; fi
  fi
  if git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    sparse_missing "$dir" "$commit"
    git -C "$dir" -c advice.detachedHead=false checkout -q "$commit" || return 1
  else
    log "$name: commit $commit not in the checkout; using $(git -C "$dir" rev-parse HEAD)"
  fi
}

# sparse_missing DIR COMMIT: a mirror may lack its largest blobs (quill's docs/traces JSON);
# those paths are left out of the work tree (sparse checkout) so that the checkout succeeds
sparse_missing() {
  local dir=$1 commit=$2 tree missing h p pats=("/*")
  tree=$(git -C "$dir" ls-tree -r "$commit")
  missing=$(awk '$2 == "blob" { print $3 }' <<<"$tree" | git -C "$dir" cat-file --batch-check |
    awk '$2 == "missing" { print $1 }')
  [ -n "$missing" ] || return 0
  for h in $missing; do
    p=$(awk -v h="$h" '$3 == h { sub(/^[^\t]*\t/, ""); print; exit }' <<<"$tree")
    log "$(basename "$dir"): $p is not in the mirror; left out of the checkout (git may still print \"invalid object\" for it: harmless)"
    pats+=("!/$p")
  done
  # written by hand: `git sparse-checkout set` would update the tree and trip over the blob
  git -C "$dir" config core.sparseCheckout true
  local info
  info=$(git -C "$dir" rev-parse --absolute-git-dir)/info && mkdir -p "$info" || return 1
  printf '%s\n' "${pats[@]}" >"$info/sparse-checkout"
}

# submodule PROJECT_DIR PATH OWNER/REPO: check the submodule PATH out at the commit its gitlink
# names, from the mirror (or github.com), unless it is there already
submodule() {
  local top=$1 path=$2 repo=$3 dir=$1/$2 bare=$MIRROR/${3/\//+}/repo commit
  commit=$(git -C "$top" ls-tree HEAD "$path" | awk '$2 == "commit" { print $3 }')
  [ -n "$commit" ] || { log "$top: $path is not a submodule"; return 1; }
  if [ ! -e "$dir/.git" ]; then
    rm -rf "$dir"
    if [ -d "$bare" ]; then git clone -q --no-checkout "$bare" "$dir" || return 1
    else git clone -q --no-checkout "https://github.com/$repo" "$dir" || return 1; fi
  fi
  git -C "$dir" -c advice.detachedHead=false checkout -q "$commit"
}

# rewritedb DB OLD NEW [OLD NEW]... : replace a compiler argument in every command ("" drops it).
# For g++ flags Clang 16 does not know: tether check, like clang-tidy, hands the database's
# command to the Clang driver, and an unknown argument fails the TU.
rewritedb() {
  python3 - "$@" <<'EOF'
import json, shlex, sys
p, a = sys.argv[1], sys.argv[2:]; pairs = dict(zip(a[0::2], a[1::2]))
db = json.load(open(p))
for e in db:
    args = e.pop("arguments", None) or shlex.split(e.pop("command"))
    e["arguments"] = [pairs.get(x, x) for x in args if pairs.get(x, x) != ""]
json.dump(db, open(p, "w"), indent=1)
EOF
}

# handdb OUT.json DIR FLAGS FILE... : a compile database with one `c++ FLAGS -c FILE` per file
handdb() {
  local out=$1 dir=$2 flags=$3; shift 3
  python3 - "$out" "$dir" "$flags" "$@" <<'EOF'
import json, shlex, sys
out, d, flags, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
json.dump([{"directory": d, "file": f,
            "arguments": ["/usr/bin/c++"] + shlex.split(flags) + ["-c", f, "-o", "/dev/null"]}
           for f in files], open(out, "w"), indent=1)
EOF
}

# keepdb DB : keep only the project's own C++ TUs (no vendored googletest, no C), one entry a file
keepdb() {
  python3 - "$1" <<'EOF'
import json, sys
p = sys.argv[1]; seen = set(); keep = []
for e in json.load(open(p)):
    f = e["file"]
    if "/third_party/" in f or not f.endswith((".cc", ".cpp", ".cxx")) or f in seen:
        continue
    seen.add(f); keep.append(e)
json.dump(keep, open(p, "w"), indent=1)
EOF
}

# Each db_X prints the directory holding compile_commands.json.
db_leveldb() {  # CMake; googletest from Debian's source package in place of the submodule
  local s=$SRC/leveldb b=$BUILD/leveldb
  if [ ! -e "$s/third_party/googletest/CMakeLists.txt" ]; then
    rm -rf "$s/third_party/googletest"; ln -s /usr/src/googletest "$s/third_party/googletest"
  fi
  # the pinned commit uses C++17 library names while its CMakeLists still defaults to C++11
  cmake -S "$s" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_STANDARD=17 -DLEVELDB_BUILD_BENCHMARKS=OFF -DLEVELDB_INSTALL=OFF \
    >"$b.configure.log" 2>&1 || { log "leveldb: configure failed, see $b.configure.log"; return 1; }
  keepdb "$b/compile_commands.json"; echo "$b"
}

db_spdlog() {  # CMake; tests want Catch2 v3 (not in Debian): a shim maps it onto Debian's v2
  local s=$SRC/spdlog b=$BUILD/spdlog shim=$SRC/_shims/catch2-v3
  mkdir -p "$shim/include/catch2"
  cat >"$shim/CMakeLists.txt" <<'EOF'
# realcode.sh shim: Catch2 v3's CMake targets over Debian's Catch2 v2 headers (analysis only)
add_library(Catch2WithMain INTERFACE)
target_include_directories(Catch2WithMain INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/include)
add_library(Catch2::Catch2WithMain ALIAS Catch2WithMain)
add_library(Catch2::Catch2 ALIAS Catch2WithMain)
EOF
  echo '#include <catch2/catch.hpp>' >"$shim/include/catch2/catch_all.hpp"
  cmake -S "$s" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Debug \
    -DSPDLOG_BUILD_TESTS=ON -DSPDLOG_BUILD_EXAMPLE=ON -DSPDLOG_BUILD_BENCH=ON \
    -DFETCHCONTENT_SOURCE_DIR_CATCH2="$shim" -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
    >"$b.configure.log" 2>&1 || { log "spdlog: configure failed, see $b.configure.log"; return 1; }
  keepdb "$b/compile_commands.json"; echo "$b"
}

db_jthread() {  # its Makefile includes a Makefile.h that is not in the repository: by hand, C++17
  local s=$SRC/jthread/source b=$BUILD/jthread
  mkdir -p "$b"
  handdb "$b/compile_commands.json" "$s" "-std=c++17 -pthread -I$s" "$s"/test_*.cpp && echo "$b"
}

db_dp_thread_pool() {  # CMake for the library (version.h); tests/examples fetch deps with CPM: by hand
  local s=$SRC/dp-thread-pool b=$BUILD/dp-thread-pool
  cmake -S "$s" -B "$b" -G Ninja -DTP_BUILD_TESTS=OFF -DTP_BUILD_EXAMPLES=OFF \
    -DTP_BUILD_BENCHMARKS=OFF >"$b.configure.log" 2>&1 \
    || { log "dp-thread-pool: configure failed, see $b.configure.log"; return 1; }
  # benchmark/ needs nanobench, riften, BS_thread_pool_light, task_thread_pool: none is in Debian
  handdb "$b/compile_commands.json" "$s" "-std=c++20 -pthread -I$s/include -I$b/include -I$s/examples/mandelbrot/include" \
    "$s"/test/source/*.cpp "$s"/examples/mandelbrot/source/*.cpp && echo "$b"
}

db_bs_thread_pool() {  # one test program, header-only library; by hand, C++20 (its own default)
  local s=$SRC/bs-thread-pool b=$BUILD/bs-thread-pool
  mkdir -p "$b"
  handdb "$b/compile_commands.json" "$s" "-std=c++20 -pthread -I$s/include" \
    "$s"/tests/BS_thread_pool_test.cpp && echo "$b"
}

db_progschj() {  # one example, header-only library; by hand, C++11
  local s=$SRC/ThreadPool b=$BUILD/ThreadPool
  mkdir -p "$b"
  handdb "$b/compile_commands.json" "$s" "-std=c++11 -pthread -I$s" "$s"/example.cpp && echo "$b"
}

db_g3log() {  # CMake; its unit tests download googletest at configure time: added by hand with
              # the library's own flags and Debian's googletest (the tests g3log's Test.cmake lists)
  local s=$SRC/g3log b=$BUILD/g3log
  cmake -S "$s" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DADD_G3LOG_UNIT_TEST=OFF \
    -DINSTALL_G3LOG=OFF -DADD_G3LOG_BENCH_PERFORMANCE=ON >"$b.configure.log" 2>&1 \
    || { log "g3log: configure failed, see $b.configure.log"; return 1; }
  python3 - "$b/compile_commands.json" "$s" <<'PY'
import json, shlex, sys
p, s = sys.argv[1:3]; db = json.load(open(p))
lib = next(e for e in db if e["file"].endswith("/src/g3log.cpp"))
args = shlex.split(lib["command"]) if "command" in lib else lib["arguments"]
cut = [a for i, a in enumerate(args) if a not in ("-c", "-o") and args[i - 1] not in ("-c", "-o")]
have = {e["file"] for e in db}
for t in ["test_message", "test_filechange", "test_io", "test_fatal", "test_signal",
          "test_cpp_future_concepts", "test_concept_sink", "test_sink", "testing_helpers"]:
    f = f"{s}/test_unit/{t}.cpp"
    if f not in have:
        db.append({"directory": lib["directory"], "file": f, "arguments": cut + [
            f"-I{s}/test_unit", "-DGTEST_HAS_RTTI=0", "-pthread", "-c", f, "-o", "/dev/null"]})
f = f"{s}/test_main/test_main.cpp"
if f not in have:
    db.append({"directory": lib["directory"], "file": f,
               "arguments": cut + ["-c", f, "-o", "/dev/null"]})
json.dump(db, open(p, "w"), indent=1)
PY
  keepdb "$b/compile_commands.json"; echo "$b"
}

db_taskflow() {  # CMake; examples and unit tests (doctest is vendored in 3rd-party/, not a dep)
  local s=$SRC/taskflow b=$BUILD/taskflow
  cmake -S "$s" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DTF_BUILD_TESTS=ON \
    -DTF_BUILD_EXAMPLES=ON -DTF_BUILD_BENCHMARKS=OFF -DTF_BUILD_CUDA=OFF \
    >"$b.configure.log" 2>&1 || { log "taskflow: configure failed, see $b.configure.log"; return 1; }
  keepdb "$b/compile_commands.json"; echo "$b"
}

db_ctpl() {  # two headers, one example; by hand, C++11. example.cpp includes <ctpl.h> (the Boost
             # lockfree queue version); a second TU, a one-line file in the shims, includes the same
             # example.cpp with a ctpl.h that forwards to ctpl_stl.h (the std-only version)
  local s=$SRC/CTPL b=$BUILD/CTPL shim=$SRC/_shims/ctpl-stl
  mkdir -p "$b" "$shim/include"
  echo "#include \"$s/ctpl_stl.h\"" >"$shim/include/ctpl.h"
  echo "#include \"$s/example.cpp\"  // realcode.sh shim: example.cpp over ctpl_stl.h" \
    >"$shim/example_stl.cpp"
  handdb "$b/compile_commands.json" "$s" "-std=c++11 -pthread -I$s" "$s/example.cpp" &&
    python3 - "$b/compile_commands.json" "$shim" <<'PY' && echo "$b"
import json, sys
p, shim = sys.argv[1:3]; db = json.load(open(p)); f = f"{shim}/example_stl.cpp"
db.append({"directory": shim, "file": f, "arguments": ["/usr/bin/c++", "-std=c++11", "-pthread",
           f"-I{shim}/include", "-c", f, "-o", "/dev/null"]})
json.dump(db, open(p, "w"), indent=1)
PY
}

db_quill() {  # CMake; the library is header-only: unit and integration tests (doctest is
              # bundled in test/bundled), examples, docs/snippets
  local s=$SRC/quill b=$BUILD/quill
  cmake -S "$s" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Debug \
    -DQUILL_BUILD_TESTS=ON -DQUILL_BUILD_EXAMPLES=ON >"$b.configure.log" 2>&1 \
    || { log "quill: configure failed, see $b.configure.log"; return 1; }
  keepdb "$b/compile_commands.json"; echo "$b"
}

db_trantor() {  # CMake; tests and gtest unit tests (Debian libgtest-dev), OpenSSL, c-ares
  local s=$SRC/trantor b=$BUILD/trantor
  cmake -S "$s" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Debug \
    -DBUILD_TESTING=ON >"$b.configure.log" 2>&1 \
    || { log "trantor: configure failed, see $b.configure.log"; return 1; }
  keepdb "$b/compile_commands.json"; echo "$b"
}

db_log4cplus() {  # CMake; the 2.1.x release branch (master needs <format>, which Debian's
                  # libstdc++ 12 lacks); the threadpool submodule (log4cplus/ThreadPool) from its
                  # mirror; the unit tests inside src/ on, with Debian's Catch2 v2 catch.hpp in
                  # place of the catch submodule (same major version)
  local s=$SRC/log4cplus b=$BUILD/log4cplus
  submodule "$s" threadpool log4cplus/ThreadPool || { log "log4cplus: no threadpool submodule"; return 1; }
  cmake -S "$s" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Debug \
    -DWITH_UNIT_TESTS=ON -DCMAKE_CXX_FLAGS=-I/usr/include/catch2 -DLOG4CPLUS_BUILD_TESTING=ON \
    >"$b.configure.log" 2>&1 || { log "log4cplus: configure failed, see $b.configure.log"; return 1; }
  keepdb "$b/compile_commands.json"; echo "$b"
}

db_ccache() {  # CMake with DEPS=LOCAL (Debian zstd, xxhash, doctest; fmt, blake3, tl-expected are
               # bundled in src/third_party and dropped from the database), Redis off; unit tests
  local s=$SRC/ccache b=$BUILD/ccache
  cmake -S "$s" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Debug \
    -DDEPS=LOCAL -DREDIS_STORAGE_BACKEND=OFF -DENABLE_DOCUMENTATION=OFF -DENABLE_TESTING=ON \
    >"$b.configure.log" 2>&1 || { log "ccache: configure failed, see $b.configure.log"; return 1; }
  keepdb "$b/compile_commands.json"; echo "$b"
}

db_async_simple() {  # CMake; Debian gtest/gmock named by the variables its FindGTest.cmake reads
                     # (else it clones googletest), Debian asio for demo_example, benchmarks; ASan
                     # off; g++'s -fcoroutines is unknown to Clang 16 (coroutines are on in C++20)
  local s=$SRC/async_simple b=$BUILD/async_simple
  cmake -S "$s" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Debug \
    -DASYNC_SIMPLE_ENABLE_ASAN=OFF -DGMOCK_INCLUDE_DIR=/usr/include -DGTEST_INCLUDE_DIR=/usr/include \
    -DGTEST_LIBRARIES=gtest_main -DGMOCK_LIBRARIES=gmock_main >"$b.configure.log" 2>&1 \
    || { log "async_simple: configure failed, see $b.configure.log"; return 1; }
  keepdb "$b/compile_commands.json"
  rewritedb "$b/compile_commands.json" -fcoroutines "" && echo "$b"
}

summary() {  # summary NAME DB REPORT.json STDERR
  python3 - "$@" <<'EOF'
import collections, json, sys
name, db, rep, err = sys.argv[1:5]
tus = len(json.load(open(db + "/compile_commands.json")))
try:
    r = json.load(open(rep))
except Exception as e:
    print(f"{name}: {tus} TUs; no report ({e}); see {err}"); sys.exit(0)
failed = r.get("failed_units", [])
by = collections.Counter(f.get("check", "?") for f in r.get("findings", []))
print(f"{name}: {tus} TUs, {r.get('units', '?')} analysed, {len(failed)} failed to parse, "
      f"{len(r.get('findings', []))} findings, {r.get('suppressed', 0)} justified")
for u in failed:
    why = (u.get("errors") or ["(no error text)"])[0]
    print(f"  failed: {u['file']}: {why}")
for c, n in sorted(by.items()):
    print(f"  {c}: {n}")
EOF
}

total=0
for row in "${PROJECTS[@]}"; do
  read -r name repo commit dbfn <<<"$row"
  if [ -n "${REALCODE_ONLY:-}" ] && [[ " $REALCODE_ONLY " != *" $name "* ]]; then continue; fi
  if ! checkout "$name" "$repo" "$commit"; then log "$name: no checkout, skipped"; continue; fi
  db=$($dbfn) || { log "$name: no compile database, skipped"; continue; }
  log "$name: $(git -C "$SRC/$name" rev-parse --short HEAD), checking $db"
  "$TETHER" check -p "$db" --format json --model builtin:libtether --model builtin:std-stop-token \
    -j "$JOBS" --quiet --output "$OUT/$name.json" 2>"$OUT/$name.stderr"
  rc=$?
  [ "$rc" -le 2 ] || log "$name: tether exited $rc (see $OUT/$name.stderr)"
  summary "$name" "$db" "$OUT/$name.json" "$OUT/$name.stderr"
  total=$((total + $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$db/compile_commands.json")))
done
echo "total: $total TUs; reports in $OUT"

# REALCODE_BEFORE=OLD_OUT_DIR: list the findings that appeared or went away since that run
if [ -n "${REALCODE_BEFORE:-}" ]; then
  python3 - "$REALCODE_BEFORE" "$OUT" "$SRC/" <<'EOF2'
import glob, json, os, sys
old, new, src = sys.argv[1:4]
def load(d):
    out = {}
    for p in glob.glob(os.path.join(d, "*.json")):
        try: r = json.load(open(p))
        except Exception: continue
        for f in r.get("findings", []):
            out[(f["check"], f["file"].replace(src, ""), f["line"], f["col"])] = f["message"]
    return out
a, b = load(old), load(new)
for k in sorted(a.keys() - b.keys()): print(f"gone: {k[0]} {k[1]}:{k[2]}:{k[3]}")
for k in sorted(b.keys() - a.keys()): print(f"new:  {k[0]} {k[1]}:{k[2]}:{k[3]}: {b[k]}")
print(f"before {len(a)} findings, after {len(b)}: {len(a.keys() - b.keys())} gone, {len(b.keys() - a.keys())} new")
EOF2
fi
exit
}
