"""Writes one bad input of each class into DIR, for the document KIND:
trace (JSON Lines), graph (a static graph) or model (an API model).

  DIR/dir/        a directory          DIR/fifo       a FIFO (no writer)
  DIR/empty       zero bytes           DIR/garbage    not JSON at all
  DIR/nul         a NUL byte           DIR/utf8       invalid UTF-8
  DIR/deep        nested 100,000 deep  DIR/huge       a number past a double (1e400)
  DIR/wrongtype   a field of the wrong type (a string where a number goes)
  (DIR/missing is never written.)

usage: make_bad.py KIND DIR
"""
import os
import shutil
import sys

HEADER = b'{"ev":"header","version":1,"pid":1,"program":"p","t":0}\n'


def documents(kind):
    deep = b"[" * 100000 + b"]" * 100000
    if kind == "trace":
        return {
            "nul": HEADER + b'{"ev":"scope_begin","id":1,"ctx":0,"name":"a\x00b","file":"f","line":1,"t":1}\n',
            "utf8": HEADER + b'{"ev":"scope_begin","id":1,"ctx":0,"name":"a\xff\xfeb","file":"f","line":1,"t":1}\n',
            "deep": HEADER + b'{"ev":"lost","count":' + deep + b"}\n",
            "huge": HEADER + b'{"ev":"scope_begin","id":1,"ctx":0,"file":"f","line":1,"t":1e400}\n',
            "wrongtype": HEADER + b'{"ev":"scope_begin","id":"one","ctx":0,"file":"f","line":1,"t":1}\n',
        }
    if kind == "graph":
        head = b'{"tether_static_graph":1,\n "functions":[{"id":"f","name":"f","line":'
        return {
            "nul": head + b'1,"file":"a\x00b"}]}\n',
            "utf8": head + b'1,"file":"a\xff\xfeb"}]}\n',
            "deep": b'{"tether_static_graph":' + deep + b',"functions":[]}\n',
            "huge": head + b"1e400}]}\n",
            "wrongtype": head + b'"seven"}]}\n',
        }
    if kind == "model":
        head = b'{"context_types":["c"],\n "name":'
        return {
            "nul": head + b'"a\x00b"}\n',
            "utf8": head + b'"a\xff\xfeb"}\n',
            "deep": head + deep + b"}\n",
            "huge": head + b"1e400}\n",
            "wrongtype": head + b"5}\n",
        }
    sys.exit("make_bad.py: unknown kind " + kind)


def main(kind, out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "dir"))
    os.mkfifo(os.path.join(out, "fifo"))
    files = {"empty": b"", "garbage": b"this is not JSON, it is prose.\n"}
    files.update(documents(kind))
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(*sys.argv[1:])
