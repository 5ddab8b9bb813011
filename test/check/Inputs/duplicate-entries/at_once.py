#!/usr/bin/env python3
"""Starts N copies of a command at the same moment and waits for all; prints
"exit=X" for each (sorted) and "same output" when their stdouts are equal
(duplicate-entries.test: two runs sharing one --cache-dir).

usage: at_once.py N COMMAND...
"""
import subprocess
import sys

n, cmd = int(sys.argv[1]), sys.argv[2:]
procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
         for _ in range(n)]
outs = [p.communicate()[0] for p in procs]
for rc in sorted(p.returncode for p in procs):
    print(f"exit={rc}")
print("same output" if all(o == outs[0] for o in outs) else "different output")
