"""Cancels jobs by id through `tether-worker cancel`, as an operator does, on a
real queue with a real `serve`, and prints what happened, for FileCheck.

usage: cancel_flow.py WORKER QUEUE RESULTS PIPELINE

1. Submits PIPELINE as job A and cancels it while it is queued.
2. Submits PIPELINE as job B, starts serve, waits until B's step runs, and
   cancels B; waits until B is done.
3. Stops serve (SIGTERM) and prints, for each job, its status, whether it ran
   (a results directory), and for B whether its step's process is gone.
Then a cancel of a done job and of an unknown one.
"""
import os
import signal
import subprocess
import sys
import time

worker, queue, results, pipeline = sys.argv[1:5]


def run(*args):
    r = subprocess.run([worker] + list(args), capture_output=True, text=True)
    return r.returncode, r.stdout.strip(), r.stderr.strip()


def submit():
    rc, out, err = run("submit", "--queue", queue, pipeline)
    if rc != 0:
        sys.exit("submit failed: " + err)
    return out


def status(job):
    rc, out, _ = run("status", "--queue", queue, job)
    return dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)


def wait(pred, what, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if pred():
            return
        time.sleep(0.1)
    sys.exit("timed out waiting for " + what)


a = submit()
rc, out, err = run("cancel", "--queue", queue, a)
print("cancel queued: exit=%d %s" % (rc, out.replace(a, "A")))

b = submit()
serve = subprocess.Popen([worker, "serve", "--queue", queue, "--results", results, "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
log = os.path.join(results, b, "sleeper.log")


def step_pid():
    if not os.path.exists(log):
        return None
    for line in open(log).read().splitlines():
        if line.startswith("pid ") and line[4:].isdigit():
            return int(line[4:])
    return None


wait(lambda: step_pid() is not None, "B's step to start")
pid = step_pid()
rc, out, err = run("cancel", "--queue", queue, b)
print("cancel running: exit=%d %s" % (rc, out.replace(b, "B")))
wait(lambda: status(b).get("state") == "done", "B to end")
serve.send_signal(signal.SIGTERM)
serve.wait(timeout=30)
print("serve exit=%d" % serve.returncode)

for name, job in (("A", a), ("B", b)):
    st = status(job)
    print("%s: status=%s reason=%s ran=%s" % (name, st.get("status"), st.get("reason"),
                                               "yes" if os.path.isdir(os.path.join(results, job)) else "no"))
print("B's step process gone: %s" % ("yes" if not os.path.exists("/proc/%d" % pid) else "no"))

rc, out, err = run("cancel", "--queue", queue, b)
print("cancel done: exit=%d %s" % (rc, err.replace(b, "B")))
rc, out, err = run("cancel", "--queue", queue, "nosuch-000000000000")
print("cancel unknown: exit=%d %s" % (rc, err.split(" in ")[0]))
