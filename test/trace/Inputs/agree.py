#!/usr/bin/env python3
"""The live run, `tether trace --load F` and `tether report F` agree.

    agree.py TETHER PROGRAM [ARGS...]

Runs `TETHER trace --format json --out F -- PROGRAM ARGS`, then analyses the
kept trace again with `TETHER trace --load F --format json` and renders it
with `TETHER report F --format json`. Each gives its findings as a multiset of
(kind, file, line); the three must be equal, and the live run's and --load's
exit codes too. Prints "agree: N findings (KINDS)" or what differs, and exits
1 when they do not agree.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile


def last_json(text, marker):
    """The JSON document that starts at the last line equal to marker's
    opening (the program's own output may come before it)."""
    at = text.rfind(marker)
    if at < 0:
        raise ValueError("no JSON report in the output:\n" + text[-2000:])
    return json.JSONDecoder().raw_decode(text[at:])[0]


def Key(kind, path, line):
    """One spelling for both tools: kinds with '-', paths absolute (trace's
    JSON names a file under the working directory relative to it)."""
    return (kind.replace("_", "-"), os.path.abspath(path) if path else "", line)


def trace_findings(report):
    out = collections.Counter()
    for group in report["groups"]:
        for f in group["findings"]:
            site = f["task"]["site"] if "task" in f else group["site"]
            out[Key(f["kind"], site["file"], site["line"])] += 1
    return out


def report_findings(graph):
    return collections.Counter(Key(f["kind"], f["file"], f["line"]) for f in graph["findings"])


def main():
    tether, program = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "run.trace")
        live = subprocess.run([tether, "trace", "--format", "json", "--out", trace, "--"] + program,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        load = subprocess.run([tether, "trace", "--load", trace, "--format", "json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        graph = subprocess.run([tether, "report", trace, "--format", "json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        marker = '{\n  "tool": "tether trace"'
        found = {
            "live": trace_findings(last_json(live.stdout, marker)),
            "--load": trace_findings(last_json(load.stdout, marker)),
            "report": report_findings(json.loads(graph.stdout)),
        }
    ok = True
    for name in ("--load", "report"):
        if found[name] != found["live"]:
            ok = False
            print(f"disagree: live {sorted(found['live'].items())}\n"
                  f"      vs {name} {sorted(found[name].items())}")
    # --load has no program to fail: its code is the live one's unless the
    # program failed (3) or was killed.
    if live.returncode in (0, 1) and load.returncode != live.returncode:
        ok = False
        print(f"disagree: live exit {live.returncode}, --load exit {load.returncode}")
    if ok:
        kinds = collections.Counter()
        for (kind, _, _), n in found["live"].items():
            kinds[kind] += n
        print(f"agree: {sum(found['live'].values())} findings "
              f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items())) or 'none'})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
