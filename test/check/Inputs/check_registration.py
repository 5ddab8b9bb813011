#!/usr/bin/env python3
"""Every check is registered, documented and lit-tested (docs/contributing.md,
"Add a check").

Compares these lists and prints one line per gap:
  - the checks `tether check --list-checks` prints (the registry),
  - the check classes' sources, lib/check/src/checks/<name>.cpp,
  - the doc pages, docs/checks/<name>.md,
  - the rows of the table of checks in docs/checker.md ("## Checks"), each
    `| [tether-<name>](checks/<name>.md) | what it finds |`,
  - and the lit tests under test/check/ whose RUN lines run the check by name
    (`%check_tether FILE <checks>` or `--checks=...<name>`).
Exits 1 when there is a gap, 0 when none; prints the counts.
"""
import glob
import os
import re
import subprocess
import sys


def checker_doc_table(path):
    """The checks the rows of docs/checker.md's table under "## Checks" name, and
    the gaps in the rows themselves (a link to another check's page, a row
    given twice, no table)."""
    names, gaps = set(), []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"^## Checks\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    rows = [line for line in section.group(1).splitlines() if line.startswith("|")] if section else []
    for row in rows[2:]:  # after the header and its |---| line
        m = re.match(r"\| \[(tether-[a-z0-9-]+)\]\(checks/([a-z0-9-]+)\.md\) \|", row)
        if not m:
            gaps.append("docs/checker.md: a row of the table of checks that names no check: " + row)
            continue
        name, page = m.group(1), m.group(2)
        if page != name[len("tether-"):]:
            gaps.append("%s: its row in docs/checker.md links checks/%s.md" % (name, page))
        if name in names:
            gaps.append("%s: two rows in docs/checker.md's table of checks" % name)
        names.add(name)
    if not names:
        gaps.append("docs/checker.md: no table of checks under '## Checks'")
    return names, gaps


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
    table, table_gaps = checker_doc_table(os.path.join(root, "docs/checker.md"))
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
    gaps += table_gaps
    gaps += ["%s: registered, but has no row in docs/checker.md's table of checks" % n
             for n in sorted(registered - table)]
    gaps += ["%s: a row in docs/checker.md's table of checks for a check that is not registered" % n
             for n in sorted(table - registered)]
    gaps += ["%s: no lit test under test/check/ runs it by name" % n for n in sorted(registered - tested)]
    for gap in gaps:
        print("check_registration: " + gap)
    print("checks: %d registered, %d classes, %d documented, %d in docs/checker.md, %d tested, %d gaps"
          % (len(registered), len(sources), len(docs), len(table), len(registered & tested),
             len(gaps)))
    sys.exit(1 if gaps else 0)


if __name__ == "__main__":
    main()
