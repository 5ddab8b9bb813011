#!/usr/bin/env python3
"""residue.py SECRET LOG: counts the *** in a step log's output lines and any
piece of SECRET (4 bytes or more) left unmasked, e.g. half a secret each side
of a line split. The worker's own lines ("$ cmd", "[tether-worker] ...") are
skipped. Last, what is left once *** and the filler x are removed."""
import sys

secret = sys.argv[1]
pieces = {secret[i:j] for i in range(len(secret)) for j in range(i + 4, len(secret) + 1)}
masked = 0
fragments = 0
residue = []
for line in open(sys.argv[2], encoding="utf-8", errors="replace"):
    if line.startswith("$ ") or line.startswith("[tether-worker]"):
        continue
    masked += line.count("***")
    rest = line.replace("***", "\n")
    fragments += sum(1 for part in rest.split("\n") for p in pieces if p in part and len(p) == 4)
    residue.append(line.replace("***", "").strip("x\n"))
print("unmasked fragments:", fragments)
print("masked copies:", masked)
print("residue:", " ".join(r for r in residue if r))
