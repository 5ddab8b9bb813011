"""worker_api_cancel.py WORKER OUT [N]: cancel latency through the HTTP API.

Runs `tether-worker serve --api` on a spool with N builds whose step sleeps
until it is stopped. For each build, once its step runs, it sends
DELETE /api/v1/executors/N/build and measures
  - the HTTP round trip of the DELETE (202 expected), and
  - the latency from sending the DELETE to the build's `finished` time in
    its build.json (set once the step was stopped and reaped, its log stream
    joined and DestroyBuild removed the workspace),
one cancel at a time. Prints one JSON object with the percentiles (ms).
"""
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

worker, out = sys.argv[1], os.path.abspath(sys.argv[2])
n = int(sys.argv[3]) if len(sys.argv) > 3 else 100
spool = "dir:" + os.path.join(out, "spool")
os.makedirs(os.path.join(out, "markers"), exist_ok=True)
pipeline = os.path.join(out, "sleeper.yml")
with open(pipeline, "w") as f:
    f.write('version: "1"\nsteps:\n  - name: sleeper\n    image: alpine:latest\n    commands:\n'
            '      - touch "%s/markers/$TETHER_BUILD_ID"\n      - sleep 1000\n' % out)
ids = subprocess.run([worker, "submit", "--queue", spool] + [pipeline] * n, check=True,
                     capture_output=True, text=True).stdout.split()
err_path = os.path.join(out, "serve.err")
serve = subprocess.Popen([worker, "serve", "--queue", spool, "--results", os.path.join(out, "results"),
                          "--quiet", "--build-limit", "1", "--kill-grace", "5s", "--api", "127.0.0.1:0"],
                         stderr=open(err_path, "w"))


def wait_for(cond, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.001)
    raise SystemExit("timed out")


base = wait_for(lambda: (re.search(r"API on (http://\S+)", open(err_path).read()) or [None, None])[1])


def finished(build_json):
    try:
        with open(build_json) as f:
            b = json.load(f)
    except (OSError, ValueError):
        return None
    t = datetime.datetime.strptime(b["finished"], "%Y-%m-%dT%H:%M:%S.%fZ")
    return b["status"], t.replace(tzinfo=datetime.timezone.utc).timestamp()


def running_build():
    """The build slot 0 runs, once its step runs."""
    with urllib.request.urlopen(base + "/api/v1/executors/0", timeout=10) as r:
        build = json.loads(r.read())["build"]
    if build and os.path.exists(os.path.join(out, "markers", build["id"])):
        return build["id"]
    return None


round_trips, latencies = [], []
try:
    for _ in ids:  # the spool's order is its own: take whichever build runs
        job = wait_for(running_build)
        t0 = time.time()
        req = urllib.request.Request(base + "/api/v1/executors/0/build", method="DELETE")
        with urllib.request.urlopen(req, timeout=10) as r:
            body = json.loads(r.read())
            assert r.status == 202 and body["build"] == job, (r.status, body)
        round_trips.append(time.time() - t0)
        status, t1 = wait_for(lambda: finished(os.path.join(out, "results", job, "build.json")))
        assert status == "canceled", status
        latencies.append(t1 - t0)
finally:
    serve.send_signal(signal.SIGTERM)
    serve.wait(timeout=60)


def pct(xs, p):
    xs = sorted(xs)
    return round(1000 * xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))], 1)


print(json.dumps({
    "n": len(latencies),
    "delete_round_trip_ms": {"p50": pct(round_trips, 50), "p99": pct(round_trips, 99), "max": pct(round_trips, 100)},
    "cancel_to_finished_ms": {"p50": pct(latencies, 50), "p99": pct(latencies, 99), "max": pct(latencies, 100)},
}))
