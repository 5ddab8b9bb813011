"""The fleet defects of issue 21, on one queue (a spool, or a real
redis-server this script starts on a free loopback port and stops):

  1. a second live `serve` with the same --worker-name is refused (exit 3);
  2. the first is SIGKILLed mid-build and restarted under its own name: it
     takes back its dead predecessor's job and runs it again (attempts: 2);
  3. the killed build's workspace is removed by that restarted worker.

usage: restart.py WORKER TMPDIR spool|redis
Prints stable lines for FileCheck; the workers' stderr is in TMPDIR/*.err.
"""
import os
import signal
import socket
import subprocess
import sys
import time

worker, tmp, kind = sys.argv[1:4]
os.makedirs(tmp, exist_ok=True)
out = os.path.join(tmp, "out")
ws = os.path.join(tmp, "ws")
os.makedirs(out, exist_ok=True)
redis = None
if kind == "redis":
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp,
                              "--save", "", "--appendonly", "no", "--logfile", tmp + "/redis.log"],
                             stdout=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    queue = "redis://127.0.0.1:%d/0" % port
    extra = ["--heartbeat-ttl", "1s"]
else:
    queue = "dir:" + os.path.join(tmp, "spool")
    extra = []

# The first run of the step records its workspace and waits; the rerun ends at once.
pipeline = os.path.join(tmp, "slow.yml")
with open(pipeline, "w") as f:
    f.write('version: "1"\nsteps:\n  - name: slow\n    image: alpine\n    commands:\n'
            '      - "if [ -e %s/first ]; then echo rerun; exit 0; fi"\n'
            '      - echo $$ > %s/pgid\n'
            '      - echo "$TETHER_WORKSPACE" > %s/workspace\n'
            '      - touch %s/first\n'
            '      - sleep 30\n' % (out, out, out, out))
job = subprocess.run([worker, "submit", "--queue", queue, pipeline], capture_output=True, text=True,
                     check=True).stdout.strip()


def serve(name):
    err = open(os.path.join(tmp, name + ".err"), "w")
    return subprocess.Popen([worker, "serve", "--queue", queue, "--worker-name", "w1", "--quiet",
                             "--results", os.path.join(tmp, "results"), "--workspace-root", ws,
                             "--kill-grace", "1s"] + extra,
                            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)


def wait_for(pred, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def status():
    r = subprocess.run([worker, "status", "--queue", queue, job], capture_output=True, text=True)
    return dict(l.split(": ", 1) for l in r.stdout.splitlines() if ": " in l)


try:
    first = serve("first")
    print("first running the build: %s" % wait_for(lambda: os.path.exists(out + "/workspace"), 30))
    workspace = open(out + "/workspace").read().strip()
    second = serve("second")
    try:
        rc = second.wait(timeout=30)
    except subprocess.TimeoutExpired:
        second.kill()
        rc = second.wait()
    print("same-name while alive: exit %d" % rc)
    print("first still running: %s" % (first.poll() is None))
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    # What the killed worker's step left running (it is not the restarted
    # worker's child); the workspace is there until recovery.
    try:
        os.killpg(int(open(out + "/pgid").read()), signal.SIGKILL)
    except (OSError, ValueError):
        pass  # already gone (its cgroup was killed)
    print("workspace left by the kill: %s" % os.path.isdir(workspace))
    restarted = serve("restarted")
    done = wait_for(lambda: status().get("state") == "done", 60)
    st = status()
    print("restarted: done %s, attempts %s, status %s" % (done, st.get("attempts"), st.get("status")))
    print("killed build's workspace removed: %s" % (not os.path.exists(workspace)))
    restarted.send_signal(signal.SIGTERM)
    print("restarted exit: %d" % restarted.wait(timeout=60))
finally:
    for p in ("first", "second", "restarted"):
        if p in dir() and globals()[p].poll() is None:
            globals()[p].kill()
    if redis is not None:
        redis.terminate()
        redis.wait()
