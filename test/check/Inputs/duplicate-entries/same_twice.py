#!/usr/bin/env python3
"""Writes OUT_DIR/compile_commands.json: BUILD_DIR's first entry three times,
the same, the same again, and with another -o (duplicate-entries.test).

usage: same_twice.py BUILD_DIR OUT_DIR
"""
import json
import os
import sys

build, out = sys.argv[1], sys.argv[2]
with open(os.path.join(build, "compile_commands.json")) as f:
    first = json.load(f)[0]
other = dict(first)
other["command"] = first["command"].replace("x_static.dir", "x_other.dir")
assert other["command"] != first["command"]
other.pop("output", None)
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "compile_commands.json"), "w") as f:
    json.dump([first, dict(first), other], f, indent=2)
