"""Runs `tether trace ... -- PROG` in a process group of its own, with TMPDIR
set to a fresh directory; once PROG prints "ready", sends SIGTERM to the whole
group every millisecond until the tool exits (as `timeout` and CI runners
signal a group, here at every moment of the tool's report too). Prints what
the tool printed, its exit code (negative: killed by that signal) and what is
left in TMPDIR.

usage: sigterm_group.py TMPDIR TETHER ARGS..."""
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

tmpdir = sys.argv[1]
shutil.rmtree(tmpdir, ignore_errors=True)
os.makedirs(tmpdir)
env = dict(os.environ, TMPDIR=tmpdir)
tool = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, env=env, text=True,
                        start_new_session=True)
first = tool.stdout.readline()
print(first, end="")
if first.strip() != "ready":
    print("never ready")
    sys.exit(0)
# The report is read on a thread of its own, so the signals go on while the
# tool writes it.
out = []
reader = threading.Thread(target=lambda: out.append(tool.stdout.read()))
reader.start()
deadline = time.time() + 30
while tool.poll() is None and time.time() < deadline:
    try:
        os.killpg(tool.pid, signal.SIGTERM)
    except ProcessLookupError:
        break
    time.sleep(0.001)
if tool.poll() is None:
    tool.kill()
code = tool.wait()
reader.join()
print("".join(out), end="")
print(f"exit-code: {code}")
print(f"left in TMPDIR: {sorted(os.listdir(tmpdir))}")
