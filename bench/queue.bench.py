"""bench/queue.bench.py BUILD_DIR RESULTS_DIR: builds/s of `tether-worker
serve` through the spool directory and through Redis, with 1, 2 and 4 serve
workers (one slot each), against `tether-worker run --build-limit W` on the
same pipelines in the same run; and the queue overhead per build.

Each figure: N builds of a one-step pipeline (`true`), median of RUNS runs.
  run     `tether-worker run --quiet --build-limit W` of the N files: process start to exit
  queue   the N jobs submitted first (timed apart: submit per job), then W
          `serve --build-limit 1 --quiet` processes started; time from their
          start until the N-th build.json exists
Queue overhead per build = (queue time - run time) / N at W = 1.
Writes the "Queues" section of RESULTS_DIR/worker.md (between markers).
"""
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

N = int(os.environ.get("QUEUE_BENCH_BUILDS", "200"))
RUNS = int(os.environ.get("QUEUE_BENCH_RUNS", "3"))
build, results = sys.argv[1], sys.argv[2]
worker = os.path.join(build, "worker-reference", "tether-worker")
work = tempfile.mkdtemp(prefix="tether-queue-bench-")
pipeline = os.path.join(work, "one-true.yml")
with open(pipeline, "w") as f:
    f.write('version: "1"\nsteps:\n  - name: s\n    image: alpine\n    commands: [ "true" ]\n')
files = [pipeline] * N


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


port = free_port()
redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", work,
                          "--save", "", "--appendonly", "no", "--logfile", work + "/redis.log"],
                         stdout=subprocess.DEVNULL)
for _ in range(200):
    try:
        socket.create_connection(("127.0.0.1", port)).close()
        break
    except OSError:
        time.sleep(0.05)


def time_run(w, tag):
    res = "%s/run-%s" % (work, tag)
    t0 = time.monotonic()
    subprocess.run([worker, "run", "--quiet", "--build-limit", str(w), "--results", res] + files, check=True)
    return time.monotonic() - t0


def time_queue(kind, w, tag):
    res = "%s/q-%s" % (work, tag)
    queue = "dir:%s/spool-%s" % (work, tag) if kind == "spool" else "redis://127.0.0.1:%d/0" % port
    key = "bench-" + tag
    t0 = time.monotonic()
    out = subprocess.run([worker, "submit", "--queue", queue, "--queue-key", key] + files, check=True,
                         capture_output=True, text=True).stdout.split()
    submit = time.monotonic() - t0
    ids = set(out)
    assert len(ids) == N
    t0 = time.monotonic()
    procs = [subprocess.Popen([worker, "serve", "--queue", queue, "--queue-key", key, "--build-limit", "1",
                               "--quiet", "--results", res], stderr=subprocess.DEVNULL) for _ in range(w)]
    done = set()
    while len(done) < N:
        for i in ids - done:
            if os.path.exists("%s/%s/build.json" % (res, i)):
                done.add(i)
        if len(done) < N:
            time.sleep(0.005)
    t = time.monotonic() - t0
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        p.wait()
    return t, submit


rows = {}
submits = {"spool": [], "redis": []}
for w in (1, 2, 4):
    times = {"run": [], "spool": [], "redis": []}
    for r in range(RUNS):
        times["run"].append(time_run(w, "%d-%d" % (w, r)))
        for kind in ("spool", "redis"):
            t, s = time_queue(kind, w, "%s-%d-%d" % (kind, w, r))
            times[kind].append(t)
            submits[kind].append(s)
    rows[w] = times
    sys.stderr.write("queue bench: %d workers: %s\n" % (w, {k: ["%.2f" % x for x in v] for k, v in times.items()}))
redis.terminate()
redis.wait()

med = {w: {k: statistics.median(v) for k, v in t.items()} for w, t in rows.items()}
load = open("/proc/loadavg").read().split()[:3]
lines = ["<!-- queue-bench -->", "## Queues: `serve` through the spool and Redis (bench/queue.bench.py)", "",
         "Measured by `python3 bench/queue.bench.py BUILD bench/results` on %s, %d CPUs; %d builds of a "
         "one-step pipeline (`true`), median of %d runs; every ratio's baseline (`run --build-limit W` on the "
         "same files) measured in the same run. Redis: a local `redis-server` on loopback, no persistence."
         % (time.strftime("%Y-%m-%d"), os.cpu_count(), N, RUNS), "",
         "| workers (1 slot each) | `run --build-limit W` | spool | Redis | spool vs run | Redis vs run |",
         "|---|---|---|---|---|---|"]
for w in (1, 2, 4):
    m = med[w]
    lines.append("| %d | %.1f builds/s (%.2f s) | %.1f builds/s (%.2f s) | %.1f builds/s (%.2f s) | **%.2fx** | **%.2fx** |"
                 % (w, N / m["run"], m["run"], N / m["spool"], m["spool"], N / m["redis"], m["redis"],
                    m["run"] / m["spool"], m["run"] / m["redis"]))
ov_spool = (med[1]["spool"] - med[1]["run"]) / N * 1000
ov_redis = (med[1]["redis"] - med[1]["run"]) / N * 1000
sub_spool = statistics.median(submits["spool"]) / N * 1000
sub_redis = statistics.median(submits["redis"]) / N * 1000
lines += ["",
          "Queue overhead per build at 1 worker, (queue time - run time) / %d: spool **%.2f ms**, "
          "Redis **%.2f ms** (target <= 2 ms on loopback Redis: %s). `submit` of %d jobs in one process: "
          "spool %.2f ms per job, Redis %.2f ms per job (not included above)."
          % (N, ov_spool, ov_redis, "met" if ov_redis <= 2 else "NOT met", N, sub_spool, sub_redis),
          "",
          "Raw times (s): " + "; ".join("%d workers: %s" % (w, ", ".join("%s %s" % (k, " ".join("%.2f" % x for x in v))
                                                                         for k, v in rows[w].items()))
                                       for w in (1, 2, 4)),
          "Load average when the run ended: %s (the machine is shared)." % " ".join(load),
          "",
          "What differs from `run`: each serve worker is its own process (W processes for W slots), claims "
          "each job with a rename (spool) or a BLMOVE (Redis), parses the pipeline text it carries, and "
          "acknowledges it after build.json (a link(2) and an unlink, or one Lua script). The queue time "
          "includes the workers' start, as the run time includes run's.",
          "<!-- /queue-bench -->"]
section = "\n".join(lines) + "\n"

path = os.path.join(results, "worker.md")
text = open(path).read() if os.path.exists(path) else "# tether-worker benchmark\n"
if "<!-- queue-bench -->" in text:
    a = text.index("<!-- queue-bench -->")
    b = text.index("<!-- /queue-bench -->") + len("<!-- /queue-bench -->\n")
    text = text[:a] + section + text[b:]
else:
    text = text.rstrip("\n") + "\n\n" + section
open(path, "w").write(text)
subprocess.run(["rm", "-rf", work])
print(section)
