#!/usr/bin/env python3
"""Writes a compile_commands.json for every .cpp under SRC_DIR.

usage: make_compdb.py SRC_DIR OUT_DIR [COMPILER ARGS...]
The lit tests use it so that `tether check -p OUT_DIR` sees a real
compilation database, as it would in a CMake build tree.
"""
import json
import os
import sys

src, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
entries = []
for root, _, files in os.walk(src):
    for name in sorted(files):
        if name.endswith(".cpp") and "/Inputs" not in root:
            path = os.path.join(root, name)
            entries.append({"directory": out, "file": path,
                            "arguments": ["clang++-16"] + args + ["-c", path, "-o", path + ".o"]})
entries.sort(key=lambda e: e["file"])
with open(os.path.join(out, "compile_commands.json"), "w") as f:
    json.dump(entries, f, indent=2)
