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
            time.sleep(0.02)
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


def reply_end(buf, i=0):
    """The end of the RESP reply at buf[i:], or None while incomplete."""
    nl = buf.find(b"\r\n", i)
    if nl < 0:
        return None
    kind, n = buf[i:i + 1], int(buf[i + 1:nl]) if buf[i:i + 1] in b"$*" else 0
    if kind == b"$":
        end = nl + 2 + n + 2 if n >= 0 else nl + 2
        return end if len(buf) >= end else None
    if kind == b"*":
        j = nl + 2
        for _ in range(max(n, 0)):
            j = reply_end(buf, j)
            if j is None:
                return None
        return j
    return nl + 2


def resp(sock, *args):
    sock.sendall(b"".join([b"*%d\r\n" % len(args)] +
                          [b"$%d\r\n%s\r\n" % (len(a), a) for a in (x.encode() for x in args)]))
    buf = b""
    while reply_end(buf) is None:
        buf += sock.recv(65536)
    assert not buf.startswith(b"-"), buf
    return buf


# The Redis commands of one claim and its ack, as serve sends them (BLMOVE,
# the claim script, the ack script), timed from a client on loopback: the
# queue's own cost per build, without the build.
claim = "local r = redis.call('HGET', KEYS[1], 'result') if r then return {0, '', r} end " \
        "local a = redis.call('HINCRBY', KEYS[1], 'attempts', 1) redis.call('HSET', KEYS[1], 'worker', ARGV[1]) " \
        "return {a, redis.call('HGET', KEYS[1], 'spec') or ''}"
ack = "if redis.call('HEXISTS', KEYS[1], 'result') == 0 then redis.call('HSET', KEYS[1], 'result', ARGV[1]) end " \
      "redis.call('LREM', KEYS[2], 0, ARGV[2]) return 1"
sock = socket.create_connection(("127.0.0.1", port))
rtts = []
for i in range(2000):
    job = "rt-%d" % i
    resp(sock, "HSET", "rt:job:" + job, "spec", "x" * 300)
    resp(sock, "LPUSH", "rt", job)
    t0 = time.perf_counter()
    resp(sock, "BLMOVE", "rt", "rt:proc:w:0", "RIGHT", "LEFT", "0.5")
    resp(sock, "EVAL", claim, "1", "rt:job:" + job, "w")
    resp(sock, "EVAL", ack, "2", "rt:job:" + job, "rt:proc:w:0", "{}", job)
    rtts.append((time.perf_counter() - t0) * 1000)
sock.close()
rtts.sort()
rtt_med, rtt_p99 = rtts[len(rtts) // 2], rtts[int(len(rtts) * 0.99)]
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
          "The queue's own cost per build on loopback Redis, measured apart (the three commands serve sends "
          "for one build: BLMOVE, the claim script, the ack script; 2,000 builds from one client, no build "
          "run): median **%.2f ms**, p99 %.2f ms (target <= 2 ms: %s). The whole-process difference above "
          "also holds everything else serve does per build and the noise of the shared machine."
          % (rtt_med, rtt_p99, "met" if rtt_med <= 2 else "NOT met"),
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
