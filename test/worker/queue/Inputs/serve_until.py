"""Runs `tether-worker serve ARGS` until every job in IDS is done, then
SIGTERMs it and prints its exit status and each job's `status` output.

usage: serve_until.py WORKER IDS_FILE QUEUE -- SERVE_ARGS...

With TRACE=TETHER and TRACE_OUT=FILE in the environment, serve runs under
`TETHER trace --out FILE` (the SIGTERM goes to serve, the tracer's child) and
the tracer's exit status is printed as "trace exit=N".
"""
import os
import signal
import subprocess
import sys
import time

worker, ids_file, queue = sys.argv[1:4]
serve_args = sys.argv[sys.argv.index("--") + 1:]
ids = [l.strip() for l in open(ids_file) if l.strip()]
cmd = [worker, "serve", "--queue", queue] + serve_args
tracer = os.environ.get("TRACE")
if tracer:
    cmd = [tracer, "trace", "--out", os.environ["TRACE_OUT"], "--"] + cmd
# The tracer's report (its stdout) goes to stderr with serve's messages.
serve = subprocess.Popen(cmd, stdout=sys.stderr if tracer else subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)


def status(job):
    return subprocess.run([worker, "status", "--queue", queue, job], capture_output=True, text=True)


deadline = time.time() + 60
pending = list(ids)
while pending and time.time() < deadline and serve.poll() is None:
    pending = [j for j in pending if "state: done" not in status(j).stdout]
    time.sleep(0.1)
target = serve.pid
if tracer:
    with open("/proc/%d/task/%d/children" % (serve.pid, serve.pid)) as f:
        target = int(f.read().split()[0])
os.kill(target, signal.SIGTERM)
_, err = serve.communicate(timeout=60)
print("%s exit=%d" % ("trace" if tracer else "serve", serve.returncode))
if pending:
    print("not done: " + " ".join(pending))
sys.stderr.write(err)
for job in ids:
    r = status(job)
    # Ids and times vary: print the stable lines.
    for line in r.stdout.splitlines():
        key = line.split(":", 1)[0]
        if key in ("state", "status", "reason", "attempts"):
            print(line)
    print("exit=%d" % r.returncode)
