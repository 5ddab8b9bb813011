"""Runs `tether trace ... -- PROG` with TMPDIR set to a fresh directory, waits
for PROG to print "ready", sends SIGTERM to the tether process only (not to
PROG), then prints what tether printed, its exit code, whether PROG is still
alive, and what is left in TMPDIR (the temporary trace must be gone).

usage: sigterm_tool.py TMPDIR TETHER ARGS..."""
import os
import shutil
import signal
import subprocess
import sys

tmpdir = sys.argv[1]
shutil.rmtree(tmpdir, ignore_errors=True)
os.makedirs(tmpdir)
env = dict(os.environ, TMPDIR=tmpdir)
tool = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, env=env, text=True)
first = tool.stdout.readline()
print(first, end="")
if first.strip() != "ready":
    print("never ready")
    sys.exit(0)
# The traced program: the tool's only child.
children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(tool.pid)],
                          capture_output=True, text=True).stdout.split()
os.kill(tool.pid, signal.SIGTERM)
# Wait for the tool, not for end-of-file: a program the tool failed to stop
# keeps the pipe open.
try:
    code = tool.wait(timeout=60)
except subprocess.TimeoutExpired:
    tool.kill()
    code = "timeout"
os.set_blocking(tool.stdout.fileno(), False)
rest = tool.stdout.read() or ""
print(rest, end="")
print(f"exit-code: {code}")
for pid in children:
    try:
        os.kill(int(pid), 0)
        alive = True
    except ProcessLookupError:
        alive = False
    # A zombie (exited, not reaped) counts as gone.
    if alive:
        with open(f"/proc/{pid}/stat") as f:
            alive = f.read().split(") ")[-1].split()[0] != "Z"
    print(f"program alive: {alive}")
    if alive:
        os.kill(int(pid), signal.SIGKILL)  # never leave it behind
print("left in TMPDIR:", sorted(os.listdir(tmpdir)))
