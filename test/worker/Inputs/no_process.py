"""no_process.py MARKER [PIDFILE...]: fails if a live process has MARKER in
its command line or environment, or if a pid listed in a PIDFILE still
names a live process with MARKER. Zombies are dead: not counted."""
import os
import sys

marker = sys.argv[1].encode()
pids = set()
for path in sys.argv[2:]:
    with open(path) as f:
        pids.update(int(p) for p in f.read().split())
if sys.argv[2:] and not pids:
    sys.exit("no pids recorded: the step did not run as expected")


def state(pid):
    with open("/proc/%d/stat" % pid, "rb") as f:
        return f.read().rsplit(b")", 1)[1].split()[0]


found = []
for name in os.listdir("/proc"):
    if not name.isdigit():
        continue
    pid = int(name)
    try:
        data = open("/proc/%d/cmdline" % pid, "rb").read()
        try:
            data += open("/proc/%d/environ" % pid, "rb").read()
        except OSError:
            pass
        if b"no_process.py" in data:
            continue  # this checker, or the same check of a test running in parallel
        if (marker in data or pid in pids) and state(pid) != b"Z" and pid != os.getpid():
            if marker in data:
                found.append("%d: %s" % (pid, data.split(b"\0")[0].decode(errors="replace")))
    except OSError:
        continue
if found:
    sys.exit("processes left behind: " + ", ".join(found))
print("no process left")
