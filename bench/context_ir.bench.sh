#!/usr/bin/env bash
# Instructions per WithCancel + cancel round, libtether vs std::stop_source,
# counted by callgrind (the same count whatever else the machine runs; it
# weighs every instruction alike, so an atomic read-modify-write counts as
# one, where it costs ~20 cycles). Prints a table and writes
# RESULTS_DIR/context-ir.md.
# Usage: bench/context_ir.bench.sh BUILD_DIR RESULTS_DIR
set -euo pipefail
build="${1:?usage: context_ir.bench.sh BUILD_DIR RESULTS_DIR}"
results="${2:?usage: context_ir.bench.sh BUILD_DIR RESULTS_DIR}"
bin="$build/bench/context/cancel_loop"
[[ -x "$bin" ]] || { echo "context_ir.bench.sh: $bin not built" >&2; exit 3; }
command -v valgrind >/dev/null || { echo "context_ir.bench.sh: valgrind not installed" >&2; exit 3; }
n=100000
ir() {  # ir MODE N: total instructions of one run
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_round() { echo $(( ($(ir "$1" "$n") - $(ir "$1" 0)) / n )); }
t=$(per_round tether)
s=$(per_round stop_source)
ratio=$(python3 -c "print(f'{$t/$s:.2f}')")
mkdir -p "$results"
cat > "$results/context-ir.md" <<MD
# WithCancel + cancel, in instructions (callgrind)

| one round | instructions |
|---|---:|
| libtether: \`WithCancel(parent)\` + cancel | $t |
| \`std::stop_source\` + \`std::stop_callback\` + \`request_stop\` | $s |
| ratio | **${ratio}x** |

Command: \`bench/context_ir.bench.sh BUILD_DIR RESULTS_DIR\` (\`valgrind --tool=callgrind
$bin MODE N\` for N = 0 and N = $n; the difference over N). Instruction counts do not
depend on the machine's load; they are not times: see context.md for those.
MD
cat "$results/context-ir.md"
