"""A worker stalled past its heartbeat TTL (SIGSTOP) while another worker
takes its name, then resumed (SIGCONT): it must notice the name is no longer
its own, stop taking builds and exit, leaving the new holder's heartbeat in
place. Prints stable lines for FileCheck.

usage: stalled_name.py WORKER URL PORT OUT"""
import os
import signal
import subprocess
import sys
import time

worker, url, port, out = sys.argv[1:5]
common = ["--queue", url, "--worker-name", "shared-name", "--heartbeat-ttl", "400ms", "--quiet",
          "--results", os.path.join(out, "results")]


def start(tag):
    err = open(os.path.join(out, tag + ".err"), "w")
    return subprocess.Popen([worker, "serve"] + common, stdout=subprocess.DEVNULL, stderr=err)


def said(tag, text):
    return text in open(os.path.join(out, tag + ".err")).read()


def wait(cond, what, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    print("timed out waiting for " + what)
    return False


a = start("a")
wait(lambda: said("a", "worker shared-name on"), "A to register")
a.send_signal(signal.SIGSTOP)
time.sleep(1.0)  # past A's TTL: its heartbeat expires
b = start("b")
wait(lambda: said("b", "worker shared-name on"), "B to take the name")
a.send_signal(signal.SIGCONT)
a_ended = wait(lambda: a.poll() is not None, "A to stop", 10)
print("A stopped by itself: %s" % a_ended)
print("A said: %s" % said("a", "another worker took the name shared-name"))
hb = subprocess.run(["redis-cli", "-p", port, "EXISTS", "tether:hb:shared-name"],
                    capture_output=True, text=True).stdout.strip()
print("the name's heartbeat is still there: %s" % (hb == "1"))
print("B still runs: %s" % (b.poll() is None))
for p in (a, b):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
print("B exit=%d" % b.wait(timeout=30))
a.kill() if a.poll() is None else None
