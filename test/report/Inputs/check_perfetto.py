#!/usr/bin/env python3
"""Checks a Chrome trace-event file the way Perfetto's JSON importer binds it.

- every X slice nests on its track (pid, tid): no partial overlaps, which
  Perfetto would spill to an overflow track;
- every flow event (ph s/t/f) has a slice on its own track enclosing its
  timestamp (s, t and f with bp "e" bind to the enclosing slice; unbound
  flows are dropped by Perfetto);
- every flow id runs s, then optionally t, then f, in time order.

Prints a summary and each problem; exits 1 if there is any.
usage: check_perfetto.py FILE
"""
import collections
import json
import sys


def main():
    events = json.load(open(sys.argv[1]))["traceEvents"]
    slices = collections.defaultdict(list)
    for ev in events:
        if ev["ph"] == "X":
            # Perfetto converts ts/dur (microseconds) to integer nanoseconds;
            # compare there too, so ts+dur rounding in floating point does
            # not count as an overlap.
            begin = round(ev["ts"] * 1000)
            slices[(ev["pid"], ev["tid"])].append((begin, begin + round(ev["dur"] * 1000), ev["name"]))
    problems = []
    for track, spans in slices.items():
        spans.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for begin, end, name in spans:
            while stack and stack[-1][1] <= begin:
                stack.pop()
            if stack and end > stack[-1][1]:
                problems.append("track %s: slice %r overlaps %r without nesting" % (track, name, stack[-1][2]))
            stack.append((begin, end, name))
    flows = collections.defaultdict(list)
    for ev in events:
        if ev["ph"] not in "stf":
            continue
        track = (ev["pid"], ev["tid"])
        ts = round(ev["ts"] * 1000)
        if not any(b <= ts <= e for b, e, _ in slices.get(track, [])):
            problems.append("flow %s ph %s at %s on track %s: no enclosing slice" % (ev["id"], ev["ph"], ev["ts"], track))
        flows[ev["id"]].append(ev)
    for fid, steps in flows.items():
        phases = "".join(e["ph"] for e in steps)
        times = [e["ts"] for e in steps]
        if phases not in ("sf", "stf") or times != sorted(times):
            problems.append("flow %s: phases %s at %s" % (fid, phases, times))
    task_tracks = {ev["tid"] for ev in events if ev["ph"] == "X" and ev.get("cat") == "task"}
    print("%d slices on %d tracks, %d task tracks, %d flows (%d joined), %d ZOMBIE slices" % (
        sum(len(s) for s in slices.values()), len(slices), len(task_tracks), len(flows),
        sum(1 for s in flows.values() if len(s) == 3),
        sum(1 for ev in events if ev["ph"] == "X" and ev["name"].startswith("ZOMBIE "))))
    for p in problems:
        print("problem:", p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
