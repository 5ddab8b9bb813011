"""serve_api.py SCENARIO WORKER OUT IDS_FILE -- SERVE_ARGS...

Starts `tether-worker serve --api 127.0.0.1:0 SERVE_ARGS` (its stderr goes to
OUT/serve.err), reads the API's URL from that stderr, runs SCENARIO against
the API over real HTTP, then SIGTERMs the worker (and SIGINTs it if builds
still run) and prints stable lines for FileCheck. IDS_FILE holds the job ids
`submit` printed, in order.

Scenarios:
  listing  /health and the executors while the first job runs
  cancel   DELETE the first job's build while its step runs; then 409 and 404
  metrics  /metrics once every job is done, parsed by prometheus_client
  token    requests without, with a wrong and with the right bearer token
           (the token is in OUT/token)
  builds   GET /api/v1/builds while the first job runs; follow its logs with
           curl (?follow=1) while DELETE /api/v1/builds/ID cancels it by its
           id; the list and the logs after it ended; 409 and 404
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

scenario, worker, out, ids_file = sys.argv[1:5]
serve_args = sys.argv[sys.argv.index("--") + 1:]
ids = [l.strip() for l in open(ids_file) if l.strip()]
queue = serve_args[serve_args.index("--queue") + 1]
token = None


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def wait_for(what, cond, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.02)
    fail("timed out waiting for " + what)


def request(method, path, auth=True, bearer=None):
    """Returns (status, body text, headers)."""
    req = urllib.request.Request(base + path, method=method)
    if bearer is not None:
        req.add_header("Authorization", "Bearer " + bearer)
    elif auth and token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), e.headers


def get_json(path):
    status, body, _ = request("GET", path)
    if status != 200:
        fail("GET %s: %d %s" % (path, status, body))
    return json.loads(body)


def job_state(job):
    r = subprocess.run([worker, "status", "--queue", queue, job], capture_output=True, text=True)
    return dict(l.split(": ", 1) for l in r.stdout.splitlines() if ": " in l)


def running(job):
    for slot in get_json("/api/v1/executors")["executors"]:
        if slot["state"] == "running" and slot["build"]["id"] == job:
            return slot
    return None


def listing():
    slot = wait_for("job 1 running", lambda: running(ids[0]))
    health = get_json("/health")
    print("health: status=%s executors=%d running=%d" % (health["status"], health["executors"], health["running"]))
    for s in get_json("/api/v1/executors")["executors"]:
        if s["state"] == "idle":
            print("slot %d: idle" % s["slot"])
        else:
            b = s["build"]
            print("slot %d: %s job%d pipeline=%s attempt=%d" % (
                s["slot"], s["state"], ids.index(b["id"]) + 1, os.path.basename(b["pipeline"]), b["attempt"]))
            assert b["running_seconds"] >= 0 and b["started"].endswith("Z"), b
    one = get_json("/api/v1/executors/%d" % slot["slot"])
    print("one slot: %s" % ("same" if one["build"]["id"] == ids[0] else "different"))
    status, body, _ = request("GET", "/api/v1/executors/7")
    print("slot 7: %d %s" % (status, json.loads(body)["error"]))
    open(os.path.join(out, "go"), "w").close()  # lets the step finish
    wait_for("job 1 done", lambda: job_state(ids[0]).get("state") == "done")


def cancel():
    slot = wait_for("job 1 running", lambda: running(ids[0]))
    wait_for("the step's children", lambda: os.path.exists(os.path.join(out, "started")))
    status, body, _ = request("DELETE", "/api/v1/executors/%d/build" % slot["slot"])
    reply = json.loads(body)
    print("cancel: %d state=%s same-build=%s" % (status, reply.get("state"), reply.get("build") == ids[0]))
    state = wait_for("job 1 done", lambda: (lambda s: s if s.get("state") == "done" else None)(job_state(ids[0])))
    print("job 1: status=%s reason=%s" % (state.get("status"), state.get("reason")))
    # The job finished: its slot runs no build (or the next one, never job 1).
    status, body, _ = request("DELETE", "/api/v1/executors/%d/build" % slot["slot"])
    print("cancel again: %d %s" % (status, json.loads(body).get("error")))
    status, body, _ = request("DELETE", "/api/v1/executors/9/build")
    print("cancel slot 9: %d %s" % (status, json.loads(body).get("error")))


def metrics():
    from prometheus_client.parser import text_string_to_metric_families
    for job in ids:
        wait_for("job done", lambda: job_state(job).get("state") == "done")
    status, body, headers = request("GET", "/metrics")
    print("metrics: %d %s" % (status, headers.get("Content-Type")))
    for family in text_string_to_metric_families(body):
        samples = family.samples
        print("family %s %s" % (family.name, family.type))
        if family.type == "histogram":
            buckets = [s for s in samples if s.name.endswith("_bucket")]
            count = [s.value for s in samples if s.name.endswith("_count")][0]
            values = [s.value for s in buckets]
            assert values == sorted(values), "buckets are cumulative"
            assert buckets[-1].labels["le"] == "+Inf" and buckets[-1].value == count, "+Inf counts all"
            print("  count=%d buckets=%d" % (count, len(buckets)))
        elif family.name == "tether_tasks_alive":
            print("  alive=%s" % ("yes" if samples[0].value >= 1 else "no"))
        else:
            for s in samples:
                labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
                print("  %s{%s} %g" % (s.name, labels, s.value))


def builds():
    wait_for("job 1 running", lambda: running(ids[0]))
    wait_for("the step's children", lambda: os.path.exists(os.path.join(out, "started")))
    listed = get_json("/api/v1/builds")["builds"]
    print("builds: %d, job 1 %s in slot %s, finished=%s" % (
        len(listed), listed[0]["status"], listed[0]["slot"], listed[0]["finished"]))
    follow = subprocess.Popen(["curl", "-sN", "--max-time", "30",
                               base + "/api/v1/builds/%s/logs?follow=1" % ids[0]],
                              stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    status, body, _ = request("DELETE", "/api/v1/builds/" + ids[0])
    reply = json.loads(body)
    print("cancel by id: %d state=%s where=%s" % (status, reply.get("state"), reply.get("where")))
    followed, _ = follow.communicate(timeout=40)
    print("follow: curl exit=%d, %d lines, first: %s" % (
        follow.returncode, len(followed.splitlines()), followed.splitlines()[0] if followed else "-"))
    print("follow: the step's last line: %s" % ("[busy] $ sleep 1000" in followed.splitlines()))
    state = wait_for("job 1 done", lambda: (lambda s: s if s.get("state") == "done" else None)(job_state(ids[0])))
    print("job 1: status=%s reason=%s" % (state.get("status"), state.get("reason")))
    b = wait_for("job 1 listed as ended",
                 lambda: [x for x in get_json("/api/v1/builds")["builds"] if x["id"] == ids[0] and x["status"] != "running"])[0]
    print("listed: %s reason=%s slot=%s finished=%s" % (b["status"], b["reason"], b["slot"], b["finished"] is not None))
    status, body, _ = request("GET", "/api/v1/builds/%s/logs" % ids[0])
    print("logs after: %d, same as followed: %s" % (status, body == followed))
    status, body, _ = request("DELETE", "/api/v1/builds/" + ids[0])
    print("cancel again: %d %s" % (status, json.loads(body).get("error", "").replace(ids[0], "JOB1")))
    status, body, _ = request("GET", "/api/v1/builds/nosuch-1/logs")
    print("logs of nosuch-1: %d %s" % (status, json.loads(body).get("error")))


def token_check():
    for name, kwargs in [("no token", {"auth": False}), ("wrong token", {"bearer": token + "x"}),
                         ("right token", {})]:
        for method, path in [("GET", "/health"), ("GET", "/metrics"), ("GET", "/api/v1/executors"),
                             ("DELETE", "/api/v1/executors/0/build")]:
            status, body, headers = request(method, path, **kwargs)
            extra = ""
            if status == 401:
                extra = " %s (%s)" % (json.loads(body)["error"], headers.get("WWW-Authenticate"))
            print("%s: %s %s -> %d%s" % (name, method, path, status, extra))


args = [worker, "serve", "--api", "127.0.0.1:0"] + serve_args
if scenario == "token":
    args += ["--api-token-file", os.path.join(out, "token")]
    token = open(os.path.join(out, "token")).read().strip()
err = open(os.path.join(out, "serve.err"), "w")
serve = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
base = None
try:
    def url():
        if serve.poll() is not None:
            fail("serve exited with %d" % serve.returncode)
        m = re.search(r"API on (http://\S+)", open(os.path.join(out, "serve.err")).read())
        return m.group(1) if m else None
    base = wait_for("the API's URL", url, 30)
    {"listing": listing, "cancel": cancel, "metrics": metrics, "token": token_check,
     "builds": builds}[scenario]()
finally:
    if serve.poll() is None:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=10)
        except subprocess.TimeoutExpired:
            serve.send_signal(signal.SIGINT)
    code = serve.wait(timeout=60)
    print("serve exit=%d" % code)
