"""test/worker/dead-worker-sweep.test: the processes a dead worker left in
its cgroup tree are killed by a `serve` that starts after the death (before
any build) and by one already serving when it happens (within a few sweeps).

A dead worker is made by hand: a cgroup tether-worker-<pid> next to the
worker's own, <pid> a process that has exited, holding a `sleep` in a child
cgroup, as a SIGKILLed worker leaves its step. The worker runs in a cgroup
made for this test, so that the workers of other tests running at the same
time (which sweep their own parent cgroup) cannot be the ones that sweep.
usage: dead_worker_sweep.py TETHER_WORKER SCRATCH_DIR
"""
import os
import signal
import subprocess
import sys
import time


def cgroup_parent():
    mount = own = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            head, _, tail = line.partition(" - ")
            fields = head.split()
            if tail.startswith("cgroup2 ") and len(fields) > 4 and fields[3] == "/":
                mount = fields[4]
    with open("/proc/self/cgroup") as f:
        for line in f:
            if line.startswith("0::"):
                own = line[3:].strip()
    return mount + ("" if own == "/" else own)


def dead_worker(parent):
    """A tree tether-worker-<dead pid>/step holding a running sleep."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    tree = os.path.join(parent, "tether-worker-%d" % gone.pid)
    os.makedirs(os.path.join(tree, "step"))
    step = subprocess.Popen(["sleep", "600"])
    with open(os.path.join(tree, "step", "cgroup.procs"), "w") as f:
        f.write(str(step.pid))
    return tree, step


def killed_within(step, seconds):
    try:
        step.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


def removed_within(tree, seconds):
    """The sweep removes a tree just after its processes died: wait for it."""
    deadline = time.monotonic() + seconds
    while os.path.isdir(tree) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not os.path.isdir(tree)


def cleanup(tree, step):
    if step.poll() is None:
        step.kill()
        step.wait()
    for d in (os.path.join(tree, "step"), tree):
        if os.path.isdir(d):
            os.rmdir(d)


def main():
    worker_bin, scratch = sys.argv[1], sys.argv[2]
    parent = os.path.join(cgroup_parent(), "tether-lit-sweep-%d" % os.getpid())
    os.mkdir(parent)
    made = []
    worker = None
    try:
        made.append(dead_worker(parent))
        err = open(os.path.join(scratch, "serve.err"), "w")
        procs = os.path.join(parent, "cgroup.procs")
        worker = subprocess.Popen(
            ["sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, worker_bin, "serve", "--quiet",
             "--queue", "dir:" + os.path.join(scratch, "spool"),
             "--results", os.path.join(scratch, "results")],
            stdout=subprocess.DEVNULL, stderr=err)
        tree, step = made[0]
        print("at start: killed", killed_within(step, 10))
        print("at start: tree removed", removed_within(tree, 10))
        # The worker is serving now (its own tree exists); a neighbour dies.
        time.sleep(1)
        made.append(dead_worker(parent))
        tree, step = made[1]
        print("while serving: killed", killed_within(step, 20))
        print("while serving: tree removed", removed_within(tree, 10))
        worker.send_signal(signal.SIGTERM)
        print("serve exit", worker.wait(timeout=60))
        worker = None
        err.close()
        for line in open(os.path.join(scratch, "serve.err")):
            if "dead worker" in line:
                sys.stdout.write(line)
    finally:
        if worker is not None:
            worker.kill()
            worker.wait()
        for tree, step in made:
            cleanup(tree, step)
        # The worker's own tree is gone with it; then the test's cgroup.
        for attempt in range(100):
            try:
                os.rmdir(parent)
                break
            except OSError:
                time.sleep(0.1)


main()
