#!/usr/bin/env bash
# bench/realbugs/run.sh: measure `tether check` on real thread-lifetime bug fixes (README.md).
#
#   bench/realbugs/run.sh TETHER [WORK_DIR]
#
# TETHER    the tether binary (e.g. build/tool/tether)
# WORK_DIR  where the projects are checked out and configured; default /work/realbugs-src.
#           Never inside this repository: their code is not ours to commit.
#
# For every bench/realbugs/cases/ID.case (REALBUGS_ONLY="id1 id2" restricts) the parent (FIX^)
# and the fix are checked out as git worktrees in WORK_DIR/ID/{parent,fix}, a compile database
# holding only the case's TUS is made for each (DB=cmake: configure only, never a build; DB=hand:
# `c++ HAND_FLAGS -c TU` per TU), and
#   nice tether check -p DB --format json --quiet -j 1 TUS
# writes WORK_DIR/_out/ID.{parent,fix}.json (+ .stderr, .rc, .log). Then score.py prints the table
# and writes bench/results/realbugs.md (REALBUGS_NO_RESULTS=1: print only).
# Repositories come from the fetch tool's bare mirrors ($REALBUGS_MIRROR, default /work/.mirror,
# as OWNER+NAME/repo), else from github.com. Re-runnable: checkouts and build dirs are reused.
set -uo pipefail
{  # the whole script is read before it runs: editing it during a run cannot break that run

TETHER=${1:?usage: bench/realbugs/run.sh TETHER [WORK_DIR]}
WORK=${2:-/work/realbugs-src}
MIRROR=${REALBUGS_MIRROR:-/work/.mirror}
HERE=$(cd "$(dirname "$0")" && pwd)
TETHER=$(readlink -f "$TETHER")
[ -x "$TETHER" ] || { echo "realbugs: $TETHER is not executable" >&2; exit 2; }
mkdir -p "$WORK" || exit 2
WORK=$(readlink -f "$WORK")
case "$WORK/" in
  "$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null)/"*)
    echo "realbugs: WORK_DIR must be outside the repository" >&2; exit 2 ;;
esac
OUT=$WORK/_out
mkdir -p "$OUT" "$WORK/_git" "$WORK/_bin"

# run a copy of tether and the libraries beside it (libtether_llvm.so is loaded from there): a
# rebuild of the tree during the run then cannot hand it a half-written file
snapshot_tether() {
  local d=$WORK/_bin f try
  for try in 1 2 3 4 5 6; do
    rm -rf "$d.new" && mkdir -p "$d.new" || return 1
    cp -p "$TETHER" "$d.new/tether" || return 1
    for f in "$(dirname "$TETHER")"/lib*.so*; do [ -e "$f" ] && cp -p "$f" "$d.new/"; done
    if "$d.new/tether" check --list-checks >/dev/null 2>&1; then
      rm -rf "$d" && mv "$d.new" "$d" && return 0
    fi
    echo "realbugs: $TETHER does not run (being rebuilt?); retrying in 20 s" >&2
    sleep 20
  done
  return 1
}
snapshot_tether || { echo "realbugs: no working copy of $TETHER" >&2; exit 2; }
TETHER_RUN=$WORK/_bin/tether
for tool in cmake ninja git python3 c++; do
  command -v "$tool" >/dev/null || { echo "realbugs: needs $tool" >&2; exit 2; }
done

log() { echo "realbugs: $*" >&2; }

# gitdir OWNER/NAME -> prints a local bare clone WORK/_git/OWNER+NAME.git (from the mirror if any)
gitdir() {
  local repo=$1 g=$WORK/_git/${1/\//+}.git bare=$MIRROR/${1/\//+}/repo
  if [ ! -d "$g" ]; then
    if [ -d "$bare" ]; then git clone -q --bare "$bare" "$g" >&2 || return 1
    else git clone -q --bare "https://github.com/$repo" "$g" >&2 || return 1; fi
  elif [ -d "$bare" ]; then  # a newer mirror may have more commits
    git -C "$g" fetch -q "$bare" '+refs/*:refs/*' >/dev/null 2>&1 || true
  fi
  # an earlier run.sh set it; with it the bare repository's core.bare applies to every worktree
  git -C "$g" config --unset extensions.worktreeConfig 2>/dev/null
  echo "$g"
}

# worktree GITDIR DIR COMMIT: DIR is a clean checkout of COMMIT (blobs the mirror lacks, files of
# 4 MiB and more, are left out of the work tree with a sparse checkout so that checkout succeeds)
worktree() {
  local g=$1 dir=$2 commit=$3 tree missing h p pats=("/*") sparse sc
  if [ ! -e "$dir/.git" ]; then
    rm -rf "$dir"
    git -C "$g" worktree prune
    git -C "$g" worktree add -q --no-checkout --detach "$dir" "$commit" >&2 || return 1
  fi
  tree=$(git -C "$g" ls-tree -r "$commit")
  missing=$(awk '$2 == "blob" { print $3 }' <<<"$tree" | git -C "$g" cat-file --batch-check |
    awk '$2 == "missing" { print $1 }')
  # the sparse-checkout file is per worktree; core.sparseCheckout is given on the command line
  # (extensions.worktreeConfig would make the bare repository's core.bare apply to every worktree)
  sparse=$(git -C "$dir" rev-parse --path-format=absolute --git-path info/sparse-checkout) || return 1
  mkdir -p "$(dirname "$sparse")" && rm -f "$sparse" || return 1
  if [ -n "$missing" ]; then
    for h in $missing; do
      p=$(awk -v h="$h" '$3 == h { sub(/^[^\t]*\t/, ""); print; exit }' <<<"$tree")
      pats+=("!/$p")
      echo "realbugs: $p is not in the mirror; left out of the checkout" >&2
    done
    printf '%s\n' "${pats[@]}" >"$sparse"
    sc=(-c core.sparseCheckout=true)
  else
    sc=()
  fi
  git -C "$dir" "${sc[@]}" -c advice.detachedHead=false checkout -q -f --detach "$commit" >&2 || return 1
  git -C "$dir" "${sc[@]}" clean -q -ffdx >&2
}

# realbugs_submodule PATH OWNER/NAME (for SETUP, run in the checkout): check the submodule PATH out
# at the commit the checkout's gitlink names, from the mirror of OWNER/NAME (else github.com)
realbugs_submodule() {
  local path=$1 repo=$2 bare=$MIRROR/${2/\//+}/repo commit
  commit=$(git ls-tree HEAD "$path" | awk '$2 == "commit" { print $3 }')
  [ -n "$commit" ] || { echo "realbugs: $path is not a submodule" >&2; return 1; }
  rm -rf "$path"
  if [ -d "$bare" ]; then git clone -q --no-checkout "$bare" "$path" || return 1
  else git clone -q --no-checkout "https://github.com/$repo" "$path" || return 1; fi
  git -C "$path" -c advice.detachedHead=false checkout -q "$commit"
}
export -f realbugs_submodule

# keep_tus DB.json SRC TU... : only the TUs' entries, one each; a TU the configure did not list
# gets the command of the first C++ entry (its file swapped), and the log says so
keep_tus() {
  python3 - "$@" <<'EOF'
import json, os, shlex, sys
p, src, tus = sys.argv[1], sys.argv[2], sys.argv[3:]
db = json.load(open(p))
def absf(e):
    return os.path.normpath(os.path.join(e["directory"], e["file"]))
want = {os.path.normpath(os.path.join(src, t)): t for t in tus}
keep, seen = [], set()
for e in db:
    f = absf(e)
    if f in want and f not in seen:
        seen.add(f); keep.append(e)
cxx = [e for e in db if absf(e).endswith((".cc", ".cpp", ".cxx", ".C"))]
for f, t in want.items():
    if f in seen:
        continue
    if not cxx:
        print(f"realbugs: {t} is not in the database and no C++ entry to borrow from", file=sys.stderr)
        continue
    e = dict(cxx[0]); old = absf(e)
    args = e.pop("arguments", None) or shlex.split(e.pop("command"))
    e["arguments"] = [f if os.path.normpath(os.path.join(e["directory"], a)) == old else a for a in args]
    e["file"] = f
    print(f"realbugs: {t} is not in the database: using the command of {os.path.relpath(old, src)}", file=sys.stderr)
    keep.append(e)
json.dump(keep, open(p, "w"), indent=1)
EOF
}

# hand_db OUT.json SRC FLAGS TU... : one `c++ FLAGS -c TU` per TU, run in SRC
hand_db() {
  python3 - "$@" <<'EOF'
import json, os, shlex, sys
out, src, flags, tus = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
json.dump([{"directory": src, "file": os.path.join(src, t),
            "arguments": ["/usr/bin/c++"] + shlex.split(flags) + ["-c", t, "-o", "/dev/null"]}
           for t in tus], open(out, "w"), indent=1)
EOF
}

# side ID SIDE COMMIT: check out, make the database, run tether; all output in OUT/ID.SIDE.*
side() {
  local id=$1 sd=$2 commit=$3 src=$WORK/$1/$2 b=$WORK/$1/build-$2 pre=$OUT/$1.$2 t tus=()
  rm -f "$pre.json" "$pre.rc" "$pre.stderr"
  worktree "$G" "$src" "$commit" >>"$pre.log" 2>&1 || { log "$id: no checkout of $sd ($commit), see $pre.log"; return 1; }
  if [ -n "${SETUP:-}" ]; then
    (cd "$src" && SIDE=$sd CASE_ID=$id WORK=$WORK MIRROR=$MIRROR bash -c "$SETUP") >>"$pre.log" 2>&1 ||
      { log "$id: SETUP failed on $sd, see $pre.log"; return 1; }
  fi
  for t in $TUS; do tus+=("$src/$t"); done
  mkdir -p "$b"
  case "$DB" in
    cmake)
      rm -f "$b/CMakeCache.txt"
      # shellcheck disable=SC2086  # CMAKE_ARGS is a list of words
      (cd "$b" && cmake -S "$src" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON $CMAKE_ARGS) \
        >>"$pre.log" 2>&1 || { log "$id: configure failed on $sd, see $pre.log"; return 1; }
      [ -f "$b/compile_commands.json" ] || { log "$id: no compile_commands.json on $sd"; return 1; }
      # shellcheck disable=SC2086
      keep_tus "$b/compile_commands.json" "$src" $TUS 2>>"$pre.log" ;;
    hand)
      # shellcheck disable=SC2086
      hand_db "$b/compile_commands.json" "$src" "$HAND_FLAGS" $TUS ;;
    *) log "$id: unknown DB=$DB"; return 1 ;;
  esac
  (cd "$src" && nice -n 10 "$TETHER_RUN" check -p "$b" --format json --quiet -j 1 --output "$pre.json" \
    "${tus[@]}") 2>"$pre.stderr"
  echo $? >"$pre.rc"
}

cases=()
for f in "$HERE"/cases/*.case; do
  [ -e "$f" ] || continue
  id=$(basename "$f" .case)
  if [ -n "${REALBUGS_ONLY:-}" ] && [[ " $REALBUGS_ONLY " != *" $id "* ]]; then continue; fi
  cases+=("$id")
done
[ ${#cases[@]} -gt 0 ] || { log "no cases"; exit 2; }

for id in "${cases[@]}"; do
  (
    REPO= FIX= KIND= WHAT= TUS= BUG_SITES= FIXED_SITES= DB= CMAKE_ARGS= HAND_FLAGS= SETUP=
    # shellcheck disable=SC1090
    . "$HERE/cases/$id.case" || { log "$id: cannot read the case"; exit 1; }
    rm -f "$OUT/$id".*
    [ -n "$REPO" ] && [ -n "$FIX" ] && [ -n "$TUS" ] && [ -n "$DB" ] ||
      { log "$id: REPO, FIX, TUS and DB are required"; exit 1; }
    G=$(gitdir "$REPO") || { log "$id: cannot get $REPO"; exit 1; }
    git -C "$G" cat-file -e "$FIX^{commit}" 2>/dev/null || { log "$id: $FIX is not in $REPO"; exit 1; }
    parent=$(git -C "$G" rev-parse "$FIX^") || exit 1
    start=$SECONDS
    side "$id" parent "$parent"
    side "$id" fix "$FIX"
    log "$id: parent rc=$(cat "$OUT/$id.parent.rc" 2>/dev/null || echo -), fix rc=$(cat "$OUT/$id.fix.rc" 2>/dev/null || echo -), $((SECONDS - start)) s"
  )
done

args=("$WORK")
[ -n "${REALBUGS_NO_RESULTS:-}" ] || args+=(--results "$HERE/../results/realbugs.md")
python3 "$HERE/score.py" "${args[@]}" --cases "$HERE/cases" ${REALBUGS_ONLY:+--only "$REALBUGS_ONLY"}
exit
}
