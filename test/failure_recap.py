#!/usr/bin/env python3
"""What failed, in a few lines each, for the end of `./run test`.

    failure_recap.py lit LOG      the failed lit tests of LOG: each test's name
                                  and the lines FileCheck (or the failing
                                  command) printed about it
    failure_recap.py ctest LOG    the failed ctest tests of LOG: each name and
                                  its GoogleTest failure lines

CI shows the head and the tail of a long run, not its middle, where lit and
ctest print a failure; this puts the cause of each failure at the tail.
Prints nothing when nothing failed.
"""
import re
import sys

MAX_LINES = 40  # a test's recap; more is in the full log

LIT_BEGIN = re.compile(r"^\*{20} TEST '(.+)' FAILED \*{20}$")
LIT_END = re.compile(r"^\*{20}$")
# FileCheck's diagnostics, a command's error, lit's own verdicts.
LIT_CAUSE = re.compile(r"(error:|note:|Error|Traceback|Exit Code:|command not found)")


def lit_recap(lines):
    out, name, block = [], None, []
    for line in lines:
        begin = LIT_BEGIN.match(line)
        if begin:
            name, block = begin.group(1), []
            continue
        if name is not None and LIT_END.match(line):
            out.append(f"lit: FAILED {name}")
            out.extend("  " + l for l in lit_causes(block))
            name = None
            continue
        if name is not None:
            block.append(line)
    for line in lines:  # timeouts and unresolved tests have no block
        m = re.match(r"^(TIMEOUT|UNRESOLVED): (.+)$", line)
        if m:
            out.append(f"lit: {m.group(1)} {m.group(2)}")
    return out


def lit_causes(block):
    """What lit's internal shell printed for the command that failed: from
    its `RUN: at line N` to lit's "command failed" (FileCheck's error with
    the check and input lines it shows, a script's message), the last lines
    of that when long. Else each cause line (an external shell prints no RUN
    lines), else the block's last lines."""
    failed_at = next((i for i in range(len(block) - 1, -1, -1)
                      if block[i].startswith("error: command failed")), None)
    if failed_at is not None:
        run_at = next((i for i in range(failed_at, -1, -1)
                       if block[i].startswith('$ ":" "RUN: at line')), 0)
        picked = [l.rstrip() for l in block[run_at:failed_at + 1] if l.strip()]
        if len(picked) > MAX_LINES:
            picked = picked[:2] + [f"... ({len(picked) - MAX_LINES} lines)"] + \
                picked[-(MAX_LINES - 2):]
        return picked
    keep = set()
    for i, line in enumerate(block):
        if LIT_CAUSE.search(line):
            keep.update(range(i, min(i + 3, len(block))))
    picked = [block[i].rstrip() for i in sorted(keep) if block[i].strip()]
    if not picked:
        picked = [l.rstrip() for l in block[-10:] if l.strip()]
    if len(picked) > MAX_LINES:
        picked = picked[:MAX_LINES] + [f"... ({len(picked) - MAX_LINES} more lines in the log)"]
    return picked


def ctest_recap(lines):
    """The failed tests' names, then GoogleTest's "FILE:LINE: Failure" lines
    with the two after each (what was expected, what was seen)."""
    failed = []
    in_list = False
    for line in lines:
        if line.startswith("The following tests FAILED:"):
            in_list = True
            continue
        if in_list:
            m = re.match(r"^\s+\d+ - (.+)$", line)
            if not m:
                break
            failed.append(m.group(1).strip())
    if not failed:
        return []
    out = [f"ctest: FAILED {name}" for name in failed]
    causes = []
    for i, line in enumerate(lines):
        if re.search(r":\d+: Failure$", line.rstrip()) or "ThreadSanitizer:" in line or \
                "AddressSanitizer:" in line:
            causes.extend("  " + l.rstrip() for l in lines[i:i + 3])
    if len(causes) > MAX_LINES:
        causes = causes[:MAX_LINES] + [f"  ... ({len(causes) - MAX_LINES} more lines in the log)"]
    return out + causes


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("lit", "ctest"):
        sys.stderr.write(__doc__)
        return 2
    try:
        with open(sys.argv[2], errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        sys.stderr.write(f"failure_recap.py: cannot read {sys.argv[2]}: {e.strerror}\n")
        return 1
    recap = lit_recap(lines) if sys.argv[1] == "lit" else ctest_recap(lines)
    if recap:
        print("\n".join(recap))
    return 0


if __name__ == "__main__":
    sys.exit(main())
