#!/usr/bin/env python3
"""Every check is registered, documented and lit-tested (docs/contributing.md,
"Add a check").

Compares three lists and prints one line per gap:
  - the checks `tether check --list-checks` prints (the registry),
  - the check classes' sources, lib/check/src/checks/<name>.cpp,
  - the doc pages, docs/checks/<name>.md, and the lit tests under test/check/
    whose RUN lines run the check by name (`%check_tether FILE <checks>` or
    `--checks=...<name>`).
Exits 1 when there is a gap, 0 when none; prints the counts.
"""
import glob
import os
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_registration.py SRCROOT TETHER")
    root, tether = sys.argv[1], sys.argv[2]
    listed = subprocess.run([tether, "check", "--list-checks"], check=True,
                            stdout=subprocess.PIPE, text=True).stdout
    registered = {line.split(":", 1)[0] for line in listed.splitlines() if line.startswith("tether-")}
    sources = {"tether-" + os.path.basename(p)[:-4].replace("_", "-")
               for p in glob.glob(os.path.join(root, "lib/check/src/checks/*.cpp"))}
    docs = {"tether-" + os.path.basename(p)[:-3]
            for p in glob.glob(os.path.join(root, "docs/checks/*.md")) if not p.endswith("README.md")}
    tested = set()
    for path in glob.glob(os.path.join(root, "test/check/*.cpp")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if "RUN:" not in line:
                    continue
                m = re.search(r"%check_tether\s+\S+\s+(\S+)", line)
                names = m.group(1).split(",") if m else []
                m = re.search(r"--checks=['\"]?([^'\"\s]+)", line)
                names += m.group(1).split(",") if m else []
                tested.update(n for n in names if n.startswith("tether-") and "*" not in n)

    gaps = []
    gaps += ["%s: a check class (lib/check/src/checks/) that is not registered" % n
             for n in sorted(sources - registered)]
    gaps += ["%s: registered, but has no class in lib/check/src/checks/" % n
             for n in sorted(registered - sources)]
    gaps += ["%s: no doc page docs/checks/%s.md" % (n, n[len("tether-"):])
             for n in sorted(registered - docs)]
    gaps += ["%s: a doc page for a check that is not registered" % n for n in sorted(docs - registered)]
    gaps += ["%s: no lit test under test/check/ runs it by name" % n for n in sorted(registered - tested)]
    for gap in gaps:
        print("check_registration: " + gap)
    print("checks: %d registered, %d classes, %d documented, %d tested, %d gaps"
          % (len(registered), len(sources), len(docs), len(registered & tested), len(gaps)))
    sys.exit(1 if gaps else 0)


if __name__ == "__main__":
    main()
