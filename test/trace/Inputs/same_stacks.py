"""Checks a thread trace's `stack` records: every thread (every id with a
stack) must have the same return addresses as the first one, which the
shim's unwinder walked; the later ones came from its cached walk. Prints the
count of threads, of distinct stacks and the frames in the first."""
import json
import sys

stacks = {}
for line in open(sys.argv[1]):
    rec = json.loads(line)
    if rec["ev"] == "stack":
        stacks.setdefault(rec["id"], []).extend(rec["pcs"])
distinct = {tuple(pcs) for pcs in stacks.values()}
first = next(iter(stacks.values()), [])
print(f"{len(stacks)} threads, {len(distinct)} distinct stacks, {len(first)} frames")
