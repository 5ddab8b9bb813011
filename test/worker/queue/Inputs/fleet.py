"""A fleet of `tether-worker serve` processes on one queue, with faults.

usage: fleet.py WORKER SRCDIR OUT (dir|redis) [--jobs N] [--workers N]
                [--slots N] [--kill-one] [--restart-redis]

Starts (for redis) its own redis-server on a free loopback port, with an
append-only file so that a restart keeps the queue; submits N jobs (one in
one in twenty slow); starts the workers; optionally SIGKILLs one worker while it runs
a build and restarts Redis mid-run; waits until every job has a result;
SIGTERMs the workers. Then it checks, and prints one line per property:

  jobs: N                 jobs submitted
  done: N                 jobs whose `status` is done
  lost: 0                 jobs not done
  ran-twice: 0            builds that finished (build.json written) more than
                          once, except the reruns of jobs the dead worker held
  recovered: ok           every job the killed worker held was finished by another
                          worker, its slow build as a rerun (attempts 2)
  queue-empty: ok         nothing left pending or claimed
  workers: exit 0 ...     the exit status of each surviving worker
Exit status 0 unless the harness itself failed.
"""
import argparse
import glob
import json
import os
import signal
import socket
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("worker")
ap.add_argument("src")
ap.add_argument("out")
ap.add_argument("kind", choices=["dir", "redis"])
ap.add_argument("--jobs", type=int, default=200)
ap.add_argument("--workers", type=int, default=3)
ap.add_argument("--slots", type=int, default=2)
ap.add_argument("--kill-one", action="store_true")
ap.add_argument("--restart-redis", action="store_true")
args = ap.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.abspath(args.out)
os.makedirs(out, exist_ok=True)
deadline = time.time() + 120
procs = []


def fail(msg):
    sys.stderr.write("fleet: " + msg + "\n")
    for p in procs:
        if p.poll() is None:
            p.kill()
    sys.exit(1)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


redis = None
redis_cmd = None
if args.kind == "redis":
    port = free_port()
    os.makedirs(out + "/redis", exist_ok=True)
    redis_cmd = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", out + "/redis",
                 "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--logfile", out + "/redis.log"]

    def start_redis():
        r = subprocess.Popen(redis_cmd, stdout=subprocess.DEVNULL)
        for _ in range(200):
            if subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).stdout.strip() == b"PONG":
                return r
            time.sleep(0.05)
        fail("redis-server did not start")

    redis = start_redis()
    queue = "redis://127.0.0.1:%d/0" % port
else:
    queue = "dir:" + out + "/spool"


def rcli(*a):
    return subprocess.run(["redis-cli", "-p", str(port)] + list(a), capture_output=True, text=True).stdout


try:
    files = [here + ("/slow.yml" if i % 20 == 5 else "/quick.yml") for i in range(args.jobs)]
    sub = subprocess.run([args.worker, "submit", "--queue", queue] + files, capture_output=True, text=True)
    if sub.returncode != 0:
        fail("submit exited %d: %s" % (sub.returncode, sub.stderr))
    ids = sub.stdout.split()
    print("jobs: %d" % len(ids))

    names = ["w%d" % i for i in range(args.workers)]
    logs = {}
    for n in names:
        logs[n] = open("%s/%s.out" % (out, n), "w")
        procs.append(subprocess.Popen(
            [args.worker, "serve", "--queue", queue, "--worker-name", n, "--build-limit", str(args.slots),
             "--results", out + "/results", "--heartbeat-ttl", "3s", "--shutdown-grace", "30s"],
            stdout=logs[n], stderr=open("%s/%s.err" % (out, n), "w")))

    def claims_of(name):
        if args.kind == "dir":
            return [os.path.basename(f).split("-", 1)[1][:-4]
                    for f in glob.glob("%s/spool/workers/%s/claimed/*.job" % (out, name))]
        held = []
        for i in range(args.slots):
            held += rcli("lrange", "tether:proc:%s:%d" % (name, i), "0", "-1").split()
        return held

    victim_held = []
    if args.kill_one:
        # Kill the worker while it holds a slow build, mid-build.
        slow = {i for i, f in zip(ids, files) if f.endswith("slow.yml")}
        while time.time() < deadline:
            held = claims_of(names[0])
            if any(h in slow for h in held):
                time.sleep(0.3)
                # Frozen first, so that what it holds is read exactly: the
                # jobs it claimed and has not acknowledged.
                procs[0].send_signal(signal.SIGSTOP)
                victim_held = claims_of(names[0])
                procs[0].send_signal(signal.SIGKILL)
                procs[0].wait()
                break
            time.sleep(0.02)
        if not victim_held:
            fail("the victim never held a slow build")

    def status(job):
        r = subprocess.run([args.worker, "status", "--queue", queue, job], capture_output=True, text=True)
        st = {}
        for line in r.stdout.splitlines():
            k, _, v = line.partition(": ")
            st[k] = v
        return r.returncode, st

    if args.restart_redis:
        # Once a third of the jobs are done, restart Redis under the running fleet.
        while time.time() < deadline and len(glob.glob(out + "/results/*/build.json")) < len(ids) // 3:
            time.sleep(0.05)
        redis.send_signal(signal.SIGTERM)  # redis flushes its append-only file and exits
        redis.wait()
        time.sleep(0.5)
        redis = start_redis()
        print("redis restarted: yes")

    final = {}  # job -> its status once done (a terminal result does not change)
    pending = list(ids)
    while pending and time.time() < deadline:
        still = []
        for j in pending:
            if not os.path.isfile("%s/results/%s/build.json" % (out, j)):
                still.append(j)
                continue
            rc, st = status(j)
            if rc == 3:  # redis restarting
                still.append(j)
            elif st.get("state") != "done":
                still.append(j)
            else:
                final[j] = st
        pending = still
        if pending:
            time.sleep(0.2)

    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    codes = []
    for n, p in zip(names, procs):
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        if n != names[0] or not args.kill_one:
            codes.append(p.returncode)

    done = len(ids) - len(pending)
    print("done: %d" % done)
    print("lost: %d" % len(pending))
    if pending:
        sys.stderr.write("not done: %s\n" % " ".join(pending[:10]))

    # Every "[id] build STATUS" summary line is one finished build.
    finished = {}
    for n in names:
        for line in open("%s/%s.out" % (out, n)):
            if line.startswith("[") and "] build " in line and "/" not in line.split("]")[0]:
                job = line[1:line.index("]")]
                finished[job] = finished.get(job, 0) + 1
    twice = [j for j, c in finished.items() if c > 1 and j not in victim_held]
    print("ran-twice: %d" % len(twice))
    if twice:
        sys.stderr.write("ran twice: %s\n" % " ".join(twice[:10]))

    if args.kill_one:
        # Every job the dead worker held is finished by another; the slow
        # build it was running is a rerun (attempts 2). (A job it had only
        # moved into its processing list, frozen before it started it, may
        # show attempts 1 on Redis: its claim never began.)
        bad = []
        for j in victim_held:
            rc, st = status(j)
            rerun_needed = j in slow
            if (st.get("state") != "done" or st.get("worker") == names[0]
                    or (rerun_needed and int(st.get("attempts", "0")) < 2)):
                bad.append("%s (%s)" % (j, st))
            elif not os.path.isfile("%s/results/%s/build.json" % (out, j)):
                bad.append(j + " (no build.json)")
        print("recovered: %s" % ("ok" if not bad else "NOT " + "; ".join(bad)))
        err = open("%s/%s.err" % (out, names[1])).read() + open("%s/%s.err" % (out, names[2])).read()
        if "of dead worker w0" in err:
            print("recovery logged: yes")

    if args.kind == "dir":
        left = glob.glob(out + "/spool/pending/*") + glob.glob(out + "/spool/workers/*/claimed/*")
    else:
        left = rcli("keys", "tether:proc:*").split() + (rcli("lrange", "tether", "0", "-1").split())
    print("queue-empty: %s" % ("ok" if not left else "NOT %s" % left[:5]))
    # Exactly one terminal result per job, consistent with its build.json.
    mismatch = 0
    for j in ids:
        st = final.get(j, {})
        try:
            b = json.load(open("%s/results/%s/build.json" % (out, j)))
        except (OSError, ValueError):
            mismatch += 1
            continue
        if b.get("status") != st.get("status"):
            mismatch += 1
    print("result-mismatch: %d" % mismatch)
    print("workers: " + " ".join("exit %d" % c for c in codes))
finally:
    for p in procs:
        if p.poll() is None:
            p.kill()
    if redis is not None and redis.poll() is None:
        redis.terminate()
        redis.wait()
