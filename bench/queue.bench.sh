#!/usr/bin/env bash
# bench/queue.bench.sh BUILD_DIR RESULTS_DIR: tether-worker serve's builds/s
# through the spool and Redis vs `run` (see queue.bench.py).
set -euo pipefail
exec python3 "$(dirname "$0")/queue.bench.py" "$@"
