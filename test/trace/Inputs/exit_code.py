"""Runs a command, passes its stdout through, then prints "exit-code: N"
(or "exit-signal: N"), and exits 0 so lit goes on to FileCheck the output.
lit's internal shell has no $?, and `not` cannot tell 1 from 2."""
import subprocess
import sys

result = subprocess.run(sys.argv[1:])
sys.stdout.flush()
if result.returncode < 0:
    print(f"exit-signal: {-result.returncode}")
else:
    print(f"exit-code: {result.returncode}")
