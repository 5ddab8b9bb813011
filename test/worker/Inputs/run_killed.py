"""`run` SIGKILLed mid-build, then the next `run` with the same
--workspace-root: the killed build's workspace is removed and its build.json
says status error, reason "worker died".

usage: run_killed.py WORKER TMPDIR HELLO.yml
"""
import json
import os
import signal
import subprocess
import sys
import time

worker, tmp, hello = sys.argv[1:4]
out = os.path.join(tmp, "out")
os.makedirs(out, exist_ok=True)
pipeline = os.path.join(tmp, "slow.yml")
with open(pipeline, "w") as f:
    f.write('version: "1"\nsteps:\n  - name: slow\n    image: alpine\n    commands:\n'
            '      - echo $$ > %s/pgid\n      - echo "$TETHER_WORKSPACE" > %s/workspace\n      - sleep 30\n'
            % (out, out))
args = ["--quiet", "--results", os.path.join(tmp, "results"), "--workspace-root", os.path.join(tmp, "ws")]
run = subprocess.Popen([worker, "run"] + args + [pipeline], stderr=subprocess.DEVNULL)
deadline = time.time() + 30
while time.time() < deadline and not os.path.exists(out + "/workspace"):
    time.sleep(0.05)
time.sleep(0.1)
workspace = open(out + "/workspace").read().strip()
os.kill(run.pid, signal.SIGKILL)
run.wait()
try:
    os.killpg(int(open(out + "/pgid").read()), signal.SIGKILL)
except (OSError, ValueError):
    pass
print("workspace left by the kill: %s" % os.path.isdir(workspace))
nxt = subprocess.run([worker, "run"] + args + [hello], capture_output=True, text=True)
print("next run: exit %d" % nxt.returncode)
sys.stdout.write(nxt.stderr)
print("killed build's workspace removed: %s" % (not os.path.exists(workspace)))
with open(os.path.join(tmp, "results", "slow-1", "build.json")) as f:
    build = json.load(f)
print("slow-1: status %s, reason %s" % (build.get("status"), build.get("reason")))
