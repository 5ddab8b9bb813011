#!/usr/bin/env bash
# utils/add_check.py end to end, in a scratch copy of the tree (the tree itself
# is never touched): its refusals (a bad name, an existing check, the same
# check twice) change nothing; `utils/add_check.py zz-example-check` writes a
# check that is formatted, builds (the `tether` target, libtether_llvm.so with
# it), is listed by `tether check --list-checks`, and passes
# test/check/registration.test and its own lit test.
# usage: test/add_check_test.sh
# The copy is what git tracks plus what it would track (untracked, not
# ignored), as the working tree has them. Objects come from ccache: with
# CCACHE_BASEDIR set to the copy, every unchanged TU hits the entries the main
# build left (`./run` sets the other CCACHE_* variables; the defaults are its).
# The scratch directory is removed on exit (its lock file stays).
set -euo pipefail

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name=zz-example-check
start=$SECONDS
fail() { echo "add_check_test: FAILED: $*" >&2; exit 1; }

git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "add_check_test: $src is not a git checkout (the copy is what git tracks)" >&2; exit 2; }
# One scratch path per source tree, the same at every run: compile lines that
# carry the source path (sarif.cpp's docs directory, the PCH's include) then
# hit the cache from the second run on. A lock keeps two runs of the same tree
# apart; a copy a killed run left is removed first.
scratch="${TMPDIR:-/tmp}/tether-add-check-$(printf '%s' "$src" | md5sum | cut -c1-12)"
exec 9>"$scratch.lock"
flock 9
rm -rf "$scratch"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [[ -e $f ]] && printf '%s\0' "$f"; done |
  tar --null -T - -cf -) | tar -C "$scratch" -xf -
cd "$scratch"

# What add_check.py edits or writes, to see that a refusal changes nothing.
snapshot() {
  ls lib/check/src/checks docs/checks test/check
  md5sum lib/check/src/registry.cpp lib/check/CMakeLists.txt docs/checker.md
}
# refuses WHY ARG...: exit 2, one line on stderr that says WHY, nothing changed.
refuses() {
  local why="$1" rc=0 err
  shift
  local before
  before="$(snapshot)"
  err="$(python3 utils/add_check.py "$@" 2>&1 >/dev/null)" || rc=$?
  [[ $rc -eq 2 ]] || fail "add_check.py $* exited $rc, not 2"
  [[ $(wc -l <<<"$err") -eq 1 && $err == "add_check.py: error: "*"$why"* ]] ||
    fail "add_check.py $*: not one line saying '$why': $err"
  [[ "$(snapshot)" == "$before" ]] || fail "add_check.py $* refused but changed the tree"
}
refuses "is not a check name" Foo_Bar
refuses "is not a check name" tether-
refuses "is not a check name" 2fast
refuses "tether-lost-cancel exists" lost-cancel
refuses "tether-thread-member-order exists" tether-thread-member-order

python3 utils/add_check.py "$name" >/dev/null || fail "add_check.py $name failed"
snake="${name//-/_}"
for f in "lib/check/src/checks/$snake.cpp" "docs/checks/$name.md" "test/check/$name.cpp"; do
  [[ -f $f ]] || fail "add_check.py $name did not write $f"
done
grep -q "src/checks/$snake.cpp" lib/check/CMakeLists.txt || fail "$snake.cpp not in CMakeLists.txt"
grep -q "^| \[tether-$name\](checks/$name.md) |" docs/checker.md || fail "no row in docs/checker.md"
clang-format-16 --dry-run -Werror "lib/check/src/checks/$snake.cpp" lib/check/src/registry.cpp ||
  fail "add_check.py left lib/ C++ that clang-format-16 would change"
# Once added, the same check again (with the prefix this time) is refused.
refuses "tether-$name exists" "tether-$name"

t_edit=$SECONDS
# The inode cache hashes the checker's precompiled header (some 700 MB) once
# for the build rather than once for each of the checker's TUs.
export CCACHE_BASEDIR="$scratch" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}" CCACHE_INODECACHE=true
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
cmake -S . -B build -G Ninja -DTETHER_BUILD_CHECKER=ON >build.configure.log 2>&1 ||
  { cat build.configure.log >&2; fail "configure"; }
t_configure=$SECONDS
cmake --build build --target tether -j "${TETHER_JOBS:-$(nproc)}" >build.log 2>&1 ||
  { tail -n 40 build.log >&2; fail "build of tether"; }
if grep -q "warning:" build.log; then
  grep "warning:" build.log | head -n 20 >&2
  fail "compiler warnings in the build of the new check"
fi

t_build=$SECONDS
listed="$(build/tool/tether check --list-checks)" || fail "tether check --list-checks failed"
grep -q "^tether-$name: " <<<"$listed" ||
  fail "tether check --list-checks does not list tether-$name"
lit="$(llvm-config-16 --prefix)/build/utils/lit/lit.py"
/usr/bin/python3 "$lit" -sv build/test/check/registration.test "build/test/check/$name.cpp" ||
  fail "lit tests of the new check"
echo "add_check_test: passed in $((SECONDS - start)) s (copy and add_check.py $((t_edit - start)) s," \
  "configure $((t_configure - t_edit)) s, build $((t_build - t_configure)) s, tests $((SECONDS - t_build)) s)" >&2
