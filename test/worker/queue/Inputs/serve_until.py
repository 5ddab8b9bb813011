"""Runs `tether-worker serve ARGS` until every job in IDS is done, then
SIGTERMs it and prints its exit status and each job's `status` output.

usage: serve_until.py WORKER IDS_FILE QUEUE -- SERVE_ARGS...
"""
import os
import signal
import subprocess
import sys
import time

worker, ids_file, queue = sys.argv[1:4]
serve_args = sys.argv[sys.argv.index("--") + 1:]
ids = [l.strip() for l in open(ids_file) if l.strip()]
serve = subprocess.Popen([worker, "serve", "--queue", queue] + serve_args,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def status(job):
    return subprocess.run([worker, "status", "--queue", queue, job], capture_output=True, text=True)


deadline = time.time() + 60
pending = list(ids)
while pending and time.time() < deadline and serve.poll() is None:
    pending = [j for j in pending if "state: done" not in status(j).stdout]
    time.sleep(0.1)
serve.send_signal(signal.SIGTERM)
_, err = serve.communicate(timeout=60)
print("serve exit=%d" % serve.returncode)
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
