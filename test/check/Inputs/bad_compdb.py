#!/usr/bin/env python3
"""Writes build directories whose compile database is wrong, into DIR:
  DIR/missing    no compile_commands.json at all
  DIR/truncated  a one-line database of 3 MB cut off inside a string
  DIR/syntax     not JSON: a bare word on line 2
  DIR/notdb      JSON, but an object where a list of entries belongs
  DIR/stale      three entries; two name the directory DIR/gone, which does not exist
  DIR/auto       a truncated database found above DIR/auto/src/x.cpp (no -p)

usage: bad_compdb.py DIR SOURCE.cpp
SOURCE.cpp is a file to name in the entries that are well formed.
"""
import json
import os
import shutil
import sys


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main(out, source):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "missing"))
    entries = [{"directory": out, "file": f"/src/unit{i}.cpp",
                "command": "c++ -std=c++20 " + " ".join(f"-DFLAG_{j}=1" for j in range(20)) +
                           f" -c /src/unit{i}.cpp"} for i in range(8000)]
    big = json.dumps(entries)  # one line
    assert len(big) > 3_000_000
    cut = big.index('"command": "', len(big) // 2) + 40  # inside a command string
    write(os.path.join(out, "truncated", "compile_commands.json"), big[:cut])
    write(os.path.join(out, "syntax", "compile_commands.json"),
          '[\n  {"directory": oops, "file": "a.cpp", "command": "c++ -c a.cpp"}\n]\n')
    write(os.path.join(out, "notdb", "compile_commands.json"),
          json.dumps({"directory": out, "file": source, "command": "c++ -c " + source}) + "\n")
    stale = [{"directory": os.path.join(out, "gone"), "file": "a.cpp", "command": "c++ -c a.cpp"},
             {"directory": os.path.join(out, "gone"), "file": "b.cpp", "command": "c++ -c b.cpp"},
             {"directory": out, "file": source, "command": "c++ -std=c++20 -c " + source}]
    write(os.path.join(out, "stale", "compile_commands.json"), json.dumps(stale, indent=2))
    write(os.path.join(out, "auto", "compile_commands.json"), big[:cut])
    write(os.path.join(out, "auto", "src", "x.cpp"), "int x;\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
