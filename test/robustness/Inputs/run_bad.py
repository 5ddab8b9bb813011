"""Runs a tether command on bad input and prints what a test must check:
its standard error, "exit=N" (or "HUNG" after --timeout seconds, so a FIFO
that blocks fails the test instead of hanging lit), and "left: ..." the files
in --out-dir afterwards ("left: nothing" when the command wrote nothing).

usage: run_bad.py [--timeout S] [--out-dir D] -- COMMAND ARGS...
"""
import os
import subprocess
import sys


def main(argv):
    timeout, out_dir = 60.0, None
    while argv and argv[0] != "--":
        flag, value = argv[0], argv[1]
        argv = argv[2:]
        if flag == "--timeout":
            timeout = float(value)
        elif flag == "--out-dir":
            out_dir = value
        else:
            sys.exit("run_bad.py: unknown option " + flag)
    command = argv[1:]
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        sys.stdout.write((e.stderr or b"").decode("utf-8", "replace"))
        print("HUNG")
        return 0
    sys.stdout.write(done.stderr.decode("utf-8", "replace"))
    print("exit=%d" % done.returncode)
    if out_dir:
        left = sorted(os.listdir(out_dir))
        print("left: " + (" ".join(left) if left else "nothing"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
