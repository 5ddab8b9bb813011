"""kill_stage.py WORKER OUT N: N times, runs Inputs/chatty-service.yml (a
service printing every 5 ms, a step that ignores SIGTERM), SIGTERMs the
worker once the step runs (--shutdown-grace 300ms, --kill-grace 300ms: the
kill stage comes when the step is SIGKILLed and the service is being
stopped) and prints one line per run: build status, service status, why."""
import json
import os
import subprocess
import sys
import time

worker, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
here = os.path.dirname(os.path.abspath(__file__))
for i in range(n):
    run = os.path.join(out, "run%d" % i)
    os.makedirs(run)
    with open(os.path.join(here, "chatty-service.yml")) as f:
        text = f.read().replace("@OUT@", run)
    with open(os.path.join(run, "chatty.yml"), "w") as f:
        f.write(text)
    p = subprocess.Popen([worker, "run", "--quiet", "--results", os.path.join(run, "results"),
                          "--shutdown-grace", "300ms", "--kill-grace", "300ms", os.path.join(run, "chatty.yml")],
                         stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not os.path.exists(os.path.join(run, "started")) and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)
    p.terminate()
    p.wait(timeout=60)
    build = json.load(open(os.path.join(run, "results", "chatty-1", "build.json")))
    s = build["services"][0]
    print("build %s, service %s (exit %s)" % (build["status"], s["status"], s["exit_code"]))
