#!/usr/bin/env python3
"""expect-exit.py CODE CMD...: runs CMD (stdout/stderr passed through) and
succeeds only if it exits with exactly CODE (lit's `not` accepts any failure)."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.run(sys.argv[2:]).returncode
if got != want:
    print(f"expect-exit: {sys.argv[2]} exited {got}, expected {want}", file=sys.stderr)
    sys.exit(1)
