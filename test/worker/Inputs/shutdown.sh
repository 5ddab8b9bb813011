#!/bin/bash
# shutdown.sh MODE WORKER OUT [worker options...]: runs two builds of
# Inputs/wait-for-go.yml (--build-limit 1) in the background and signals
# the worker once the first build's step started. Prints "exit=<status>".
#   drain  one SIGTERM, then lets the step finish (touches OUT/go)
#   grace  one SIGTERM; the step never finishes (--shutdown-grace must end it)
#   twice  SIGTERM, then SIGINT once the first was acknowledged
#   thrice SIGTERM, SIGINT, SIGTERM, each once the one before was acknowledged
# PIPELINE=NAME.yml (in Inputs, default wait-for-go.yml) runs another
# pipeline with the same @OUT@ protocol, still as OUT/wait-for-go.yml.
# TRACE=TETHER runs the worker under `TETHER trace --out OUT/trace.json`
# (the signals still go to the worker, the tracer's child).
# The worker is stopped after 60 s if it has not ended by then.
set -u
mode=$1 worker=$2 out=$3
shift 3
here=$(dirname "$0")
sed "s|@OUT@|$out|g" "$here/${PIPELINE:-wait-for-go.yml}" > "$out/wait-for-go.yml"

wait_for() {  # wait_for CONDITION...: up to 60 s
  for _ in $(seq 1200); do "$@" && return 0; sleep 0.05; done
  echo "timed out waiting for: $*" >&2
  return 1
}

tracer=()
[ -n "${TRACE:-}" ] && tracer=("$TRACE" trace --out "$out/trace.json" --)
"${tracer[@]}" "$worker" run --quiet --build-limit 1 --results "$out/results" "$@" \
  "$out/wait-for-go.yml" "$out/wait-for-go.yml" 2> "$out/stderr" > "$out/stdout" &
pid=$!
wait_for test -f "$out/started"
waited=$pid
if [ -n "${TRACE:-}" ]; then
  pid=$(cat "/proc/$waited/task/$waited/children")
  pid=${pid%% *}
fi
kill -TERM "$pid"
wait_for grep -q "taking no new builds" "$out/stderr"
case $mode in
  drain) touch "$out/go" ;;
  grace) ;;
  twice) kill -INT "$pid" ;;
  thrice)
    kill -INT "$pid"
    wait_for grep -q "canceling running builds" "$out/stderr"
    kill -TERM "$pid" ;;
esac
(
  for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.1; done
  echo "the worker did not end within 60 s" >&2
  kill -KILL "$pid"
) > /dev/null &
wait "$waited"
echo "exit=$?"
