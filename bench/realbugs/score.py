#!/usr/bin/env python3
"""Score `tether check` on the real-bug cases (bench/realbugs/README.md).

    score.py WORK_DIR [--cases DIR] [--only "id1 id2"] [--results FILE.md]

Reads WORK_DIR/_out/ID.{parent,fix}.{json,rc} written by run.sh and the cases' BUG_SITES and
FIXED_SITES. A case is
  found     some finding in the parent whose primary file:line lies in a BUG_SITES range;
  fixed-FP  some finding in the fix whose primary file:line lies in a FIXED_SITES range;
  parsed    both sides ran (exit 0 or 1) with no failed_units (no compile errors);
  crash     a side whose exit code is not 0, 1 or 2, or that wrote no report.
Prints a table and the totals; with --results writes them as Markdown.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

FIELDS = ["REPO", "FIX", "KIND", "WHAT", "TUS", "BUG_SITES", "FIXED_SITES", "DB"]


def read_case(path):
    """Source the case in bash and print its fields NUL-separated (the format is bash)."""
    script = 'set -e; . "$1"; printf "%s\\0" ' + " ".join(f'"${{{f}:-}}"' for f in FIELDS)
    out = subprocess.run(["bash", "-c", script, "case", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise ValueError(f"{path}: {out.stderr.strip()}")
    return dict(zip(FIELDS, out.stdout.split("\0")))


def parse_sites(spec):
    """'a.cpp:10-20 b.h:7' -> [('a.cpp', 10, 20), ('b.h', 7, 7)]"""
    sites = []
    for s in spec.split():
        f, _, r = s.rpartition(":")
        lo, _, hi = r.partition("-")
        sites.append((os.path.normpath(f), int(lo), int(hi or lo)))
    return sites


def in_sites(rel, line, sites):
    return any(rel == f and lo <= line <= hi for f, lo, hi in sites)


def load_side(out, cid, side):
    """-> dict(rc, report or None, error text)"""
    pre = os.path.join(out, f"{cid}.{side}")
    rc = None
    try:
        rc = int(open(pre + ".rc").read().strip())
    except (OSError, ValueError):
        pass
    rep = None
    try:
        rep = json.load(open(pre + ".json"))
    except (OSError, ValueError):
        pass
    err = ""
    try:
        err = open(pre + ".stderr", errors="replace").read()
    except OSError:
        pass
    return {"rc": rc, "report": rep, "stderr": err}


def rel_to(path, root):
    path = os.path.normpath(path)
    return os.path.relpath(path, root) if path.startswith(root + os.sep) else path


def score(work, cases_dir, only):
    out = os.path.join(work, "_out")
    ids = sorted(f[:-5] for f in os.listdir(cases_dir) if f.endswith(".case"))
    if only:
        ids = [i for i in ids if i in only.split()]
    rows = []
    for cid in ids:
        try:
            c = read_case(os.path.join(cases_dir, cid + ".case"))
        except ValueError as e:
            rows.append({"id": cid, "kind": "?", "error": str(e)})
            continue
        row = {"id": cid, "kind": c["KIND"], "repo": c["REPO"], "fix": c["FIX"], "what": c["WHAT"],
               "error": ""}
        bug, fixed = parse_sites(c["BUG_SITES"]), parse_sites(c["FIXED_SITES"])
        sides = {s: load_side(out, cid, s) for s in ("parent", "fix")}
        ran = all(s["rc"] is not None for s in sides.values())
        row["ran"] = ran
        row["crash"] = any(s["rc"] is not None and (s["rc"] not in (0, 1, 2) or s["report"] is None)
                           for s in sides.values())
        failed = []
        for name, s in sides.items():
            r = s["report"]
            for u in (r or {}).get("failed_units", []):
                first = (u.get("errors") or ["?"])[0]
                failed.append(f"{name}: {rel_to(u.get('file', '?'), os.path.join(work, cid, name))}: {first}")
        row["failed"] = failed
        row["parsed"] = ran and not row["crash"] and not failed and \
            all(s["rc"] in (0, 1) for s in sides.values())
        hits = {}
        for name, sites in (("parent", bug), ("fix", fixed)):
            root = os.path.join(work, cid, name)
            r = sides[name]["report"] or {}
            fs = r.get("findings", [])
            hits[name] = [f for f in fs if in_sites(rel_to(f["file"], root), f["line"], sites)]
            row[name + "_all"] = [(f["check"], rel_to(f["file"], root), f["line"]) for f in fs]
        row["found"] = ran and bool(hits["parent"])
        row["fixed_fp"] = ran and bool(hits["fix"])
        row["hits"] = {k: [(f["check"], rel_to(f["file"], os.path.join(work, cid, k)), f["line"],
                            f["message"]) for f in v] for k, v in hits.items()}
        rows.append(row)
    return rows


def checks_of(items):
    names = sorted({i[0].replace("tether-", "") for i in items})
    return ",".join(names) if names else "-"


def yn(b):
    return "yes" if b else "no"


def table(rows):
    lines = ["| case | kind | parsed | found | fixed-FP | at the bug site (parent) | in the fix site | all findings parent/fix |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.get("error"):
            lines.append(f"| {r['id']} | ? | error: {r['error']} | | | | | |")
            continue
        if not r["ran"]:
            lines.append(f"| {r['id']} | {r['kind']} | not run | | | | | |")
            continue
        lines.append(f"| {r['id']} | {r['kind']} | {yn(r['parsed'])}{' (crash)' if r['crash'] else ''} | "
                     f"{yn(r['found'])} | {yn(r['fixed_fp'])} | {checks_of(r['hits']['parent'])} | "
                     f"{checks_of(r['hits']['fix'])} | {len(r['parent_all'])}/{len(r['fix_all'])} |")
    return lines


def totals(rows):
    ok = [r for r in rows if not r.get("error") and r["ran"]]
    n = len(rows)
    return {"cases": n, "ran": len(ok), "found": sum(r["found"] for r in ok),
            "fixed_fp": sum(r["fixed_fp"] for r in ok),
            "parse_failures": sum(not r["parsed"] and not r["crash"] for r in ok),
            "crashes": sum(r["crash"] for r in ok),
            "not_run": n - len(ok)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--cases", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases"))
    ap.add_argument("--only", default="")
    ap.add_argument("--results")
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    rows = score(work, a.cases, a.only)
    t = totals(rows)
    tl = table(rows)
    summary = (f"found {t['found']}/{t['cases']}, fixed-FP {t['fixed_fp']}/{t['cases']}, "
               f"parse failures {t['parse_failures']}, crashes {t['crashes']}, not run {t['not_run']}")
    print("\n".join(tl))
    print(summary)
    for r in rows:
        for f in r.get("failed", []):
            print(f"  {r['id']}: compile error: {f}")
    if not a.results:
        return 0
    head = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "rev-parse", "--short",
                           "HEAD"], capture_output=True, text=True).stdout.strip()
    up = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    md = ["# Real thread-lifetime bug fixes: `tether check` before and after the fix", "",
          "Made by `bench/realbugs/run.sh` (how the cases were chosen, the case format and the Debian "
          "packages: [bench/realbugs/README.md](../realbugs/README.md)). For each case the parent of the "
          "fix commit and the fix are checked; **found** = a finding in the parent whose primary line lies in "
          "the case's BUG_SITES (decided from the fix diff, not from what tether reports), **fixed-FP** = "
          "a finding in the fix that still points into FIXED_SITES, **parsed** = both sides parsed "
          "without compile errors.", "",
          f"- date: {datetime.date.today().isoformat()}",
          f"- tether: `{head}` (git rev-parse --short HEAD of this repository)",
          f"- uptime: `{up}`", "",
          f"**Totals: {summary}.**", ""] + tl + ["", "## Cases", ""]
    for r in rows:
        if r.get("error") or not r["ran"]:
            md.append(f"- **{r['id']}**: {r.get('error') or 'not run'}")
            continue
        md.append(f"- **{r['id']}** ({r['kind']}, {r['repo']}@{r['fix'][:10]}): {r['what']}")
        for side in ("parent", "fix"):
            for chk, f, line, msg in r["hits"][side]:
                md.append(f"  - {side} {f}:{line} `{chk}`: {msg}")
        for f in r["failed"]:
            md.append(f"  - compile error: {f}")
    md.append("")
    os.makedirs(os.path.dirname(os.path.abspath(a.results)), exist_ok=True)
    open(a.results, "w").write("\n".join(md))
    print(f"wrote {a.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
