"""Writes build directories with bad compile DBs into DIR:
  DIR/empty    compile_commands.json is []          DIR/dir      it is a directory
  DIR/fifo     it is a FIFO (no writer)             DIR/garbage  it is not JSON
  DIR/stale    its one command's directory (DIR/gone) does not exist

usage: make_bad_db.py DIR
"""
import json
import os
import shutil
import sys


def main(out):
    shutil.rmtree(out, ignore_errors=True)
    for d in ["empty", "dir/compile_commands.json", "fifo", "stale", "garbage"]:
        os.makedirs(os.path.join(out, d))
    db = lambda d: os.path.join(out, d, "compile_commands.json")
    with open(db("empty"), "w") as f:
        f.write("[]\n")
    os.mkfifo(db("fifo"))
    with open(db("garbage"), "w") as f:
        f.write("garbage\n")
    with open(db("stale"), "w") as f:
        json.dump([{"directory": os.path.join(out, "gone"), "file": "a.cpp", "command": "c++ -c a.cpp"}], f)


if __name__ == "__main__":
    main(sys.argv[1])
