"""Runs `tether-worker status --json --queue QUEUE ID` for the one job id in
IDS_FILE and prints its fields, one `key=value` a line (nested result fields
as result.key), so FileCheck can match them; fails if the command fails or
its output is not one JSON object with every field.

usage: status_json.py WORKER QUEUE IDS_FILE
"""
import json
import subprocess
import sys

worker, queue, ids_file = sys.argv[1:4]
job = open(ids_file).read().split()[0]
run = subprocess.run([worker, "status", "--json", "--queue", queue, job], capture_output=True, text=True)
if run.returncode != 0:
    sys.exit("status exited %d: %s" % (run.returncode, run.stderr))
doc = json.loads(run.stdout)
for key in ("job", "state", "pipeline", "attempts", "worker", "result"):
    if key not in doc:
        sys.exit("missing field %r" % key)
for key in ("job", "state", "attempts", "worker"):
    print("%s=%s" % (key, doc[key]))
print("pipeline=%s" % doc["pipeline"].rsplit("/", 1)[-1])
result = doc["result"]
if result is None:
    print("result=null")
else:
    for key in ("status", "reason", "worker", "started", "finished", "results"):
        if key not in result:
            sys.exit("missing field result.%s" % key)
    print("result.status=%s" % result["status"])
    print("result.reason=%s" % result["reason"])
    print("result.times=%s" % ("set" if result["started"] and result["finished"] else "missing"))
    print("result.results=%s" % ("set" if result["results"] else "null"))
