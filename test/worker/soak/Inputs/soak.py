"""soak.py: a fault soak of `tether-worker serve` on a spool queue.

usage: soak.py --worker W --tether T --out DIR [--builds N] [--seed S]
               [--build-limit L] [--timeout D] [--exclude F,...] [--only F,...]
               [--report FILE]

Generates N builds from random faults (failing, hanging and SIGTERM-ignoring
steps, forking, setsid-escaping and log-flooding steps, escaped children and
services or detached steps that exit by themselves, services that run until
the build ends) and runs them in three phases:

  1. serve --api: most builds; every `long` build is cancelled through the
     API (DELETE /api/v1/executors/N/build) once its step runs.
  2. serve under `tether trace`, SIGTERMed while `long` builds run (they are
     cancelled after --shutdown-grace) and while jobs are still queued.
  3. serve --api again: the jobs phase 2 left queued; `long` ones are
     cancelled through the API.

Then, for every build: exactly one terminal result (the queue's record and
build.json agree, one attempt, the expected status and reason), every
numbered line in its logs (all of them for steps that ended by themselves,
no gap for steps that were stopped), no process left (/proc, by a marker in
each build's environment); zero zombie children of the worker when it is
idle, and zero zombie tasks in the trace. Prints a summary; exits 1 and
names every violation otherwise.
"""
import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import faults  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--worker", required=True)
p.add_argument("--tether", required=True)
p.add_argument("--out", required=True)
p.add_argument("--builds", type=int, default=120)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--build-limit", type=int, default=4)
p.add_argument("--timeout", default="2s", help="the build timeout of builds with a hanging step")
p.add_argument("--exclude", default="", help="fault names (comma-separated) not to use")
p.add_argument("--only", default="", help="use only these faults (comma-separated)")
p.add_argument("--report")
args = p.parse_args()

out = os.path.abspath(args.out)
spool = "dir:" + os.path.join(out, "spool")
results = os.path.join(out, "results")
marker = "tether-soak-%d-%d" % (os.getpid(), args.seed)  # in every step's environment
violations = []
started_at = time.time()


def violation(message):
    violations.append(message)


def log(message):
    sys.stderr.write("soak %.1fs: %s\n" % (time.time() - started_at, message))
    sys.stderr.flush()


def wait_for(what, cond, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit("soak: timed out waiting for " + what)


# --- the builds ---------------------------------------------------------------
rng = random.Random(args.seed)
os.makedirs(os.path.join(out, "pipelines"), exist_ok=True)
allowed = [f for f in (args.only.split(",") if args.only else faults.ALL_FAULTS)
           if f and f not in args.exclude.split(",")]
unknown = set(allowed) - set(faults.ALL_FAULTS)
if unknown or not any(f in faults.STEP_FAULTS for f in allowed):
    raise SystemExit("soak: faults must include a step fault, from: " + " ".join(faults.ALL_FAULTS))
builds = [faults.make_build(rng, i, out, args.timeout, allowed) for i in range(args.builds)]
for b in builds:
    b.write(os.path.join(out, "pipelines"), marker)


def submit(batch):
    files = [b.file for b in batch]
    r = subprocess.run([args.worker, "submit", "--queue", spool] + files, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("soak: submit failed: " + r.stderr)
    for b, job in zip(batch, r.stdout.split()):
        b.job = job


def job_record(job):
    r = subprocess.run([args.worker, "status", "--queue", spool, job], capture_output=True, text=True)
    return dict(l.split(": ", 1) for l in r.stdout.splitlines() if ": " in l)


def done_jobs():
    """Jobs with a result in the spool (one status call per job would be slow)."""
    d = os.path.join(out, "spool", "done")
    return {re.sub(r"\.json$", "", n) for n in os.listdir(d)} if os.path.isdir(d) else set()


# --- the worker -----------------------------------------------------------------
class Serve:
    def __init__(self, name, traced=False, api=True, extra=()):
        self.name = name
        self.err_path = os.path.join(out, name + ".err")
        cmd = [args.worker, "serve", "--queue", spool, "--results", results, "--quiet",
               "--build-limit", str(args.build_limit), "--kill-grace", "500ms",
               "--log-streaming-timeout", "5s", "--max-log-size", "0",
               "--workspace-root", os.path.join(out, "ws")] + list(extra)
        if api:
            cmd += ["--api", "127.0.0.1:0"]
        if traced:
            self.trace_report = os.path.join(out, name + ".trace-report.json")
            cmd = [args.tether, "trace", "--fail-on", "zombie", "--format", "json",
                   "--out", os.path.join(out, name + ".trace.json"), "--"] + cmd
        self.proc = subprocess.Popen(cmd, stdout=open(getattr(self, "trace_report", os.devnull), "w"),
                                     stderr=open(self.err_path, "w"))
        self.traced = traced
        self.base = wait_for(name + " API", self._url, 60) if api else None
        self.worker_pid = wait_for(name + " worker pid", self._worker_pid, 60)

    def _url(self):
        if self.proc.poll() is not None:
            raise SystemExit("soak: %s exited with %d" % (self.name, self.proc.returncode))
        m = re.search(r"API on (http://\S+)", open(self.err_path).read())
        return m.group(1) if m else None

    def _worker_pid(self):
        if not self.traced:
            return self.proc.pid
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    stat = open("/proc/%s/stat" % name).read()
                    cmdline = open("/proc/%s/cmdline" % name, "rb").read().split(b"\0")
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                if ppid == self.proc.pid and cmdline[:2] == [args.worker.encode(), b"serve"]:
                    return int(name)
        return None

    def request(self, method, path):
        req = urllib.request.Request(self.base + path, method=method)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def slots(self):
        return self.request("GET", "/api/v1/executors")[1]["executors"]

    def zombie_children(self):
        n = 0
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    fields = open("/proc/%s/stat" % name).read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if fields[0] == "Z" and int(fields[1]) == self.worker_pid:
                    n += 1
        return n

    def stop(self, signals=(signal.SIGTERM,), timeout=120):
        for s in signals:  # to the worker (under `tether trace`, its child)
            os.kill(self.worker_pid, s)
            time.sleep(0.2)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            violation("%s did not exit within %ds of its signals" % (self.name, timeout))
            self.proc.kill()
            return self.proc.wait()


def cancel_long_builds(serve, pending, canceled):
    """DELETEs the build of every slot that runs a `long` build whose step started."""
    by_job = {b.job: b for b in pending}
    for slot in serve.slots():
        build = slot.get("build")
        if not build or build["id"] not in by_job or build["id"] in canceled:
            continue
        b = by_job[build["id"]]
        if b.kind == "long" and os.path.exists(b.started_marker):
            t0 = time.time()
            status, body = serve.request("DELETE", "/api/v1/executors/%d/build" % slot["slot"])
            if status == 202 and body["build"] == b.job:
                canceled.add(b.job)
                b.api_canceled = True
                b.cancel_sent = t0
            else:
                violation("%s: cancel of a running long build answered %d %s" % (b.job, status, body))


def run_until_done(serve, batch):
    """Until every job of batch is done (API-cancelling the long ones), or a
    deadline generous for the batch: 300 s plus 1 s a build."""
    canceled = set()
    seconds = 300 + len(batch)
    deadline = time.time() + seconds
    while time.time() < deadline:
        cancel_long_builds(serve, batch, canceled)
        done = done_jobs()
        if all(b.job in done for b in batch):
            return
        time.sleep(0.1)
    done = done_jobs()
    violation("%s: %d jobs not done after %ds" % (serve.name, sum(b.job not in done for b in batch), seconds))


# Phase 1: most builds, API cancels of the long ones.
rng.shuffle(builds)
n1 = int(len(builds) * 0.6)
phase1, rest = builds[:n1], builds[n1:]
submit(phase1)
log("phase 1: %d builds" % len(phase1))
s1 = Serve("serve1")
run_until_done(s1, phase1)
time.sleep(0.5)  # escaped children that exit by themselves: reaped within a moment
z = s1.zombie_children()
if z:
    violation("serve1: %d zombie children while idle" % z)
code = s1.stop()
if code != 0:
    violation("serve1 exited with %d" % code)

# Phase 2: traced; SIGTERM while long builds run and jobs are still queued.
longs = [b for b in rest if b.kind == "long"][:args.build_limit // 2 or 1]
others = [b for b in rest if b not in longs]
phase2 = longs + others
submit(phase2)  # in this order: the long builds are claimed first
log("phase 2: %d builds, traced, SIGTERM mid-run" % len(phase2))
s2 = Serve("serve2", traced=True, extra=["--shutdown-grace", "1s"])
wait_for("phase 2's long builds to run", lambda: all(os.path.exists(b.started_marker) for b in longs), 120)
wait_for("a few phase 2 builds done",
         lambda: (lambda done: sum(b.job in done for b in others))(done_jobs()) >= min(3, len(others)), 120)
for b in longs:
    b.shutdown_canceled = True
done_before = done_jobs()
code = s2.stop()
# Whatever serve2 finished after the signal ran into the shutdown: it drained
# within --shutdown-grace (its own result) or was cancelled.
done_after = done_jobs()
for b in others:
    if b.job in done_after and b.job not in done_before:
        b.maybe_canceled = True
report = json.load(open(s2.trace_report))
summary = report["summary"]
log("phase 2: tether trace exit %d, %s" % (code, summary))
if summary["zombies"] != 0 or summary["lost_events"] != 0 or summary["truncated"]:
    violation("serve2 trace: %s" % summary)
if code not in (0, 3):  # 3: the worker's own status was not 0, without findings
    violation("tether trace exited with %d" % code)
if report["program"]["status"] != 0:
    violation("serve2 (traced) exited with %s" % report["program"]["status"])

# Phase 3: what phase 2 left queued.
done_after = done_jobs()
left = [b for b in phase2 if b.job not in done_after]
log("phase 3: %d builds left queued by the shutdown" % len(left))
s3 = Serve("serve3")
run_until_done(s3, left)
code = s3.stop()
if code != 0:
    violation("serve3 exited with %d" % code)

# --- the checks -------------------------------------------------------------------
stats = faults.check_all(builds, results, job_record, violation)
escaped = faults.processes_with(marker)
for pid, cmd in escaped:
    violation("process left behind: %d %s" % (pid, cmd))
faults.kill_all(escaped)  # so a failed soak does not leave them to the machine

elapsed = time.time() - started_at
latencies = sorted(b.cancel_latency for b in builds if b.cancel_latency is not None)
summary = {
    "builds": len(builds),
    "seconds": round(elapsed, 1),
    "builds_per_second": round(len(builds) / elapsed, 2),
    "statuses": stats["statuses"],
    "faults": stats["faults"],
    "numbered_lines_checked": stats["lines"],
    "api_cancels": len(latencies),
    "processes_left": len(escaped),
    "trace_zombies": report["summary"]["zombies"],
    "violations": len(violations),
}
print(json.dumps(summary, sort_keys=True))
if args.report:
    with open(args.report, "w") as f:
        json.dump(summary, f, sort_keys=True, indent=1)
for v in violations[:50]:
    print("VIOLATION: " + v)
if len(violations) > 50:
    print("... and %d more" % (len(violations) - 50))
print("soak: %s" % ("ok" if not violations else "%d violations" % len(violations)))
sys.exit(1 if violations else 0)
