#!/usr/bin/env python3
"""The findings of a `tether check` text report, counted per check, for the
corpus tests (vela-*/*.test) to pin check by check.

    count_by_check.py TETHER OUT [--summary ERR]

Prints one line for every check `TETHER check --list-checks` registers, in its
order, found or not (`tether-lost-cancel: 2`, `tether-justification: 0`);
then `untagged: N`, the warnings in OUT that name no registered check; then
`total: N`, every warning in OUT. With --summary, one more line on ERR's
summary (`tether check: N findings in ...`): `summary: agrees with the report`
when N is the number of warnings in OUT, else what each says.

A test pins the count of each check it is about and untagged: 0, so that a new
check's findings leave those lines alone; it pins the total only when any
other finding is a failure there (a corpus whose code is fixed).
"""
import argparse
import re
import subprocess


def main():
    parser = argparse.ArgumentParser(prog="count_by_check.py")
    parser.add_argument("tether", help="the tether executable (its --list-checks)")
    parser.add_argument("out", help="the text report")
    parser.add_argument("--summary", metavar="ERR", help="the run's stderr, with its summary line")
    args = parser.parse_args()

    listed = subprocess.run([args.tether, "check", "--list-checks"], check=True,
                            stdout=subprocess.PIPE, text=True).stdout
    checks = [line.split(":", 1)[0] for line in listed.splitlines() if line.startswith("tether-")]
    counts = dict.fromkeys(checks, 0)
    untagged = total = 0
    with open(args.out, encoding="utf-8", errors="replace") as f:
        for line in f:
            if ": warning: " not in line:
                continue
            total += 1
            m = re.search(r"\[(tether-[a-z0-9-]+)[\],]", line)
            if m and m.group(1) in counts:
                counts[m.group(1)] += 1
            else:
                untagged += 1
    for check in checks:
        print("%s: %d" % (check, counts[check]))
    print("untagged: %d" % untagged)
    print("total: %d" % total)
    if args.summary:
        with open(args.summary, encoding="utf-8", errors="replace") as f:
            said = re.findall(r"^tether check: (\d+) findings? in ", f.read(), re.M)
        if not said:
            print("summary: none in " + args.summary)
        elif int(said[-1]) == total:
            print("summary: agrees with the report")
        else:
            print("summary: %s findings, but the report has %d warnings" % (said[-1], total))


if __name__ == "__main__":
    main()
