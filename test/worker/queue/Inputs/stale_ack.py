"""A stale acknowledgement on Redis (a real redis-server started here on a
free loopback port): worker a claims a job and is stopped (SIGSTOP) past its
heartbeat TTL, worker b requeues and claims it again, then a continues and
acknowledges first. `status` right after must count both claims.

usage: stale_ack.py WORKER TMPDIR
"""
import os
import signal
import socket
import subprocess
import sys
import time

worker, tmp = sys.argv[1:3]
out = os.path.join(tmp, "out")
os.makedirs(out, exist_ok=True)
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp, "--save", "",
                          "--appendonly", "no", "--logfile", tmp + "/redis.log"], stdout=subprocess.DEVNULL)
queue = "redis://127.0.0.1:%d/0" % port
procs = []
try:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    pipeline = os.path.join(tmp, "job.yml")
    with open(pipeline, "w") as f:
        f.write('version: "1"\nsteps:\n  - name: s\n    image: alpine\n    commands:\n'
                '      - "if [ -e %s/first ]; then touch %s/second; sleep 20; exit 0; fi"\n'
                '      - touch %s/first\n      - sleep 2\n' % (out, out, out))
    job = subprocess.run([worker, "submit", "--queue", queue, pipeline], capture_output=True, text=True,
                         check=True).stdout.strip()

    def serve(name):
        p = subprocess.Popen([worker, "serve", "--queue", queue, "--worker-name", name, "--quiet", "--heartbeat-ttl",
                              "500ms", "--shutdown-grace", "100ms", "--kill-grace", "100ms", "--results", os.path.join(tmp, name)],
                             stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, name + ".err"), "w"))
        procs.append(p)
        return p

    def wait_for(path, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline and not os.path.exists(path):
            time.sleep(0.02)
        return os.path.exists(path)

    def status():
        r = subprocess.run([worker, "status", "--queue", queue, job], capture_output=True, text=True)
        return dict(l.split(": ", 1) for l in r.stdout.splitlines() if ": " in l)

    a = serve("a")
    print("a claimed: %s" % wait_for(out + "/first", 30))
    os.kill(a.pid, signal.SIGSTOP)
    b = serve("b")
    print("b claimed it again: %s" % wait_for(out + "/second", 30))
    os.kill(a.pid, signal.SIGCONT)
    deadline = time.time() + 30
    while time.time() < deadline and status().get("state") != "done":
        time.sleep(0.02)
    st = status()  # right after a's (stale) ack; b is still running its claim
    print("after the stale ack: state %s, worker %s, attempts %s" % (st.get("state"), st.get("worker"),
                                                                    st.get("attempts")))
finally:
    for p in procs:
        p.send_signal(signal.SIGCONT)
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
    redis.terminate()
    redis.wait()
