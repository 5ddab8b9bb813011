"""The soak's builds: random faults as pipelines, what each build must end
as, and the checks of its results (see soak.py)."""
import datetime
import json
import os
import re
import signal

# Steps. Each prints numbered lines "<tag> <i>" (i = 1..lines) on stdout.
STEP_FAULTS = {
    # name: (weight, how it ends)
    "ok": (6, "exits"),
    "fail": (2, "fails"),
    "flood": (2, "exits"),
    "fork": (2, "exits"),
    "escape": (1, "exits"),
    "escape-exits": (2, "exits"),
    "hang": (1, "timeout"),
    "ignore-term": (1, "timeout"),
}
# Services and detached steps beside the steps.
SIDE_FAULTS = {
    "service-runs": 2,    # prints until SIGTERM, then a goodbye line
    "service-exits": 2,   # exits 0 by itself
    "service-fails": 1,   # exits 3 by itself: fails the build
    "detached-exits": 2,  # exits 0 by itself
    "detached-runs": 1,   # prints until stopped
}
FLOOD_LINES = 30000


def numbered(tag, n):
    return 'i=1; while [ $i -le %d ]; do echo "%s $i"; i=$((i+1)); done' % (n, tag)


def until_term(tag):
    # sh runs the trap once the foreground sleep (also sent SIGTERM) ended.
    return ('i=0; trap \'echo "%s bye $i"; exit 0\' TERM; '
            'while :; do i=$((i+1)); echo "%s $i"; sleep 0.02; done') % (tag, tag)


class Container:
    def __init__(self, name, fault, lines):
        self.name, self.fault, self.lines = name, fault, lines
        self.tag = "L%s" % name.replace("-", "")


class Build:
    def __init__(self, index, out):
        self.index = index
        self.name = "soak%04d" % index
        self.kind = "normal"  # or "long": only a cancel ends it
        self.steps, self.sides = [], []
        self.timeout = None
        self.file = None
        self.job = None
        self.started_marker = os.path.join(out, "markers", self.name + ".started")
        self.api_canceled = False
        self.shutdown_canceled = False
        self.maybe_canceled = False  # ran into a shutdown: canceled, or its own result
        self.cancel_sent = None
        self.cancel_latency = None

    # The pipeline file.
    def write(self, directory, marker):
        os.makedirs(os.path.dirname(self.started_marker), exist_ok=True)
        lines = ['version: "1"']
        if self.timeout:
            lines.append("timeout: %s" % self.timeout)
        lines += ["environment:", '  TETHER_SOAK_MARKER: "%s"' % marker]
        if any(c.fault.startswith("service") for c in self.sides):
            lines.append("services:")
            for c in self.sides:
                if c.fault.startswith("service"):
                    lines += ["  - name: %s" % c.name, "    image: alpine:latest",
                              "    entrypoint: [\"/bin/sh\", \"-c\", %s]" % json.dumps(self.side_script(c))]
        lines.append("steps:")
        for c in self.sides:
            if c.fault.startswith("detached"):
                lines += ["  - name: %s" % c.name, "    image: alpine:latest", "    detach: true",
                          "    commands:", "      - %s" % json.dumps(self.side_script(c))]
        for c in self.steps:
            lines += ["  - name: %s" % c.name, "    image: alpine:latest", "    commands:"]
            lines += ["      - %s" % json.dumps(cmd) for cmd in self.step_commands(c)]
        self.file = os.path.join(directory, self.name + ".yml")
        with open(self.file, "w") as f:
            f.write("\n".join(lines) + "\n")

    def side_script(self, c):
        if c.fault in ("service-runs", "detached-runs"):
            return until_term(c.tag)
        code = 3 if c.fault == "service-fails" else 0
        return numbered(c.tag, c.lines) + "; exit %d" % code

    def step_commands(self, c):
        f = c.fault
        if self.kind == "long":
            return [numbered(c.tag, c.lines), "sleep 1000 &", "touch %s" % self.started_marker,
                    "trap '' TERM" if f == "ignore-term" else "true", "sleep 1000"]
        cmds = [numbered(c.tag, c.lines) if f != "flood" else "seq -f '%s %%g' 1 %d" % (c.tag, c.lines)]
        if f == "fail":
            cmds.append("exit 3")
        elif f == "fork":
            cmds += ["sleep 1000 &", "(sleep 1000 &)", "sh -c 'sleep 1000 &'"]
        elif f == "escape":
            cmds.append("setsid sleep 1000 > /dev/null 2>&1 &")
        elif f == "escape-exits":
            cmds.append("setsid sh -c 'sleep 0.3' > /dev/null 2>&1 &")
        elif f == "hang":
            cmds.append("sleep 1000")
        elif f == "ignore-term":
            cmds += ["trap '' TERM", "sleep 1000"]
        return cmds

    # What it must end as: (status, reason or None when any reason will do).
    # side_failed: a service that fails by itself did so before the build
    # ended (one still running then is stopped, and fails nothing).
    def expected(self, side_failed):
        if self.kind == "long" or self.api_canceled or self.shutdown_canceled:
            return "canceled", "build canceled"
        for c in self.steps:
            end = STEP_FAULTS[c.fault][1]
            if end == "timeout":
                return "failure", None if side_failed else "build timed out"
            if end == "fails":
                return "failure", None
        if side_failed:
            return "failure", None
        return "success", None


def pick(rng, table, allowed):
    names = [n for n in table if n in allowed]
    weights = [table[n][0] if isinstance(table[n], tuple) else table[n] for n in names]
    return rng.choices(names, weights)[0]


ALL_FAULTS = list(STEP_FAULTS) + list(SIDE_FAULTS) + ["long"]


def make_build(rng, index, out, timeout, allowed=ALL_FAULTS):
    b = Build(index, out)
    if "long" in allowed and rng.random() < 0.08:
        b.kind = "long"
        c = Container("long", rng.choice(["ok", "ignore-term"]), rng.randint(1, 20))
        b.steps.append(c)
        return b
    for i in range(rng.randint(1, 3)):
        fault = pick(rng, STEP_FAULTS, allowed)
        lines = FLOOD_LINES if fault == "flood" else rng.randint(1, 40)
        b.steps.append(Container("s%d-%s" % (i, fault), fault, lines))
    if any(STEP_FAULTS[c.fault][1] == "timeout" for c in b.steps):
        b.timeout = timeout
    if any(f in allowed for f in SIDE_FAULTS) and rng.random() < 0.35:
        fault = pick(rng, SIDE_FAULTS, allowed)
        b.sides.append(Container("x-%s" % fault, fault, rng.randint(1, 30)))
    return b


# --- checks --------------------------------------------------------------------
def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def check_lines(b, c, rec, result_dir, violation):
    """Every numbered line of container c: 1..n in order, no gap, no repeat."""
    who = "%s %s (%s, %s)" % (b.job, c.name, c.fault, rec["status"])
    if rec["status"] in ("canceled", "skipped"):
        return 0
    path = os.path.join(result_dir, rec["log"])
    try:
        text = open(path, errors="replace").read()
    except OSError as e:
        violation("%s: no log: %s" % (who, e))
        return 0
    pat = re.compile(r"^%s (\d+)$" % re.escape(c.tag))
    got = [int(m.group(1)) for m in map(pat.match, text.splitlines()) if m]
    if got != list(range(1, len(got) + 1)):
        first_bad = next(i for i, v in enumerate(got) if v != i + 1)
        violation("%s: numbered lines out of order or missing at #%d: %s" % (who, first_bad + 1,
                                                                           got[max(0, first_bad - 2):first_bad + 3]))
        return len(got)
    ended_by_itself = rec["status"] in ("success", "failure") and rec.get("reason") != "stopped when the build ended"
    runs_until_stopped = c.fault in ("service-runs", "detached-runs") or b.kind == "long"
    if ended_by_itself and not runs_until_stopped and len(got) != c.lines:
        violation("%s: %d of %d numbered lines in its log" % (who, len(got), c.lines))
    if c.fault in ("service-runs", "detached-runs"):
        bye = re.search(r"^%s bye (\d+)$" % re.escape(c.tag), text, re.M)
        # No goodbye after SIGKILL, nor from one stopped before it set its
        # trap (before its first line).
        if rec["status"] != "killed" and rec.get("exit_code") != 137 and got:
            if not bye:
                violation("%s: no goodbye line after SIGTERM" % who)
            # Its shell may run the trap between `i=$((i+1))` and the echo:
            # then the goodbye counts one line more than it printed.
            elif int(bye.group(1)) not in (len(got), len(got) + 1):
                violation("%s: said goodbye after %s lines, %d in its log" % (who, bye.group(1), len(got)))
    if b.kind == "long" and len(got) != c.lines:
        violation("%s: %d of %d numbered lines before the cancel" % (who, len(got), c.lines))
    return len(got)


def check_all(builds, results, job_record, violation):
    stats = {"statuses": {}, "faults": {}, "lines": 0}
    for b in builds:
        for c in b.steps + b.sides:
            stats["faults"][c.fault] = stats["faults"].get(c.fault, 0) + 1
        stats["faults"]["long"] = stats["faults"].get("long", 0) + (b.kind == "long")
        if not b.job:
            violation("%s: never submitted" % b.name)
            continue
        rec = job_record(b.job)
        if rec.get("state") != "done":
            violation("%s: queue state %s, not done" % (b.job, rec.get("state")))
            continue
        if rec.get("attempts") != "1":
            violation("%s: %s attempts" % (b.job, rec.get("attempts")))
        result_dir = os.path.join(results, b.job)
        try:
            build = json.load(open(os.path.join(result_dir, "build.json")))
        except (OSError, ValueError) as e:
            violation("%s: no build.json: %s" % (b.job, e))
            continue
        status = build["status"]
        stats["statuses"][status] = stats["statuses"].get(status, 0) + 1
        if rec.get("status") != status:
            violation("%s: the queue says %s, build.json %s" % (b.job, rec.get("status"), status))
        records = {r["name"]: r for r in build["steps"] + build["services"]}
        side_failed = False
        for c in b.sides:
            r = records.get(c.name, {})
            if c.fault == "service-fails" and r.get("status") == "failure":
                side_failed = True
                if r.get("exit_code") != 3:
                    violation("%s: %s failed with %s, not by itself (3)" % (b.job, c.name, r.get("exit_code")))
            elif r.get("status") == "failure":
                violation("%s: %s (%s) failed with %s: it never fails by itself" % (
                    b.job, c.name, c.fault, r.get("exit_code")))
        want, reason = b.expected(side_failed)
        if b.maybe_canceled and status == "canceled":
            want, reason = "canceled", "build canceled"
        if status != want or (reason and build.get("reason") != reason):
            violation("%s: %s (%s), expected %s%s; faults %s" % (
                b.job, status, build.get("reason"), want, " (%s)" % reason if reason else "",
                [c.fault for c in b.steps + b.sides]))
        if b.cancel_sent and build.get("finished"):
            b.cancel_latency = parse_time(build["finished"]) - b.cancel_sent
        for c in b.steps + b.sides:
            r = records.get(c.name)
            if r is None:
                violation("%s: %s missing from build.json" % (b.job, c.name))
                continue
            if r["status"] in ("running", "pending"):
                violation("%s: %s still %s in a finished build" % (b.job, c.name, r["status"]))
            stats["lines"] += check_lines(b, c, r, result_dir, violation)
    return stats


def processes_with(marker):
    """Live (not zombie) processes whose environment or command line has marker."""
    found = []
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            data = open("/proc/%s/cmdline" % name, "rb").read()
            try:
                data += open("/proc/%s/environ" % name, "rb").read()
            except OSError:
                pass
            state = open("/proc/%s/stat" % name, "rb").read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in data and state != b"Z":
            found.append((int(name), data.split(b"\0")[0].decode(errors="replace")))
    return found


def kill_all(processes):
    for pid, _ in processes:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
