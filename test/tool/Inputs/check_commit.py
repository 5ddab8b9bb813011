"""The commit `tether --version` printed is the source tree's HEAD (or
"unknown" when the tree is not a git checkout).
Usage: check_commit.py SRCROOT VERSION_OUTPUT"""
import subprocess
import sys

src, out = sys.argv[1], open(sys.argv[2]).read()
line = next((l for l in out.splitlines() if l.startswith("commit: ")), None)
if line is None:
    sys.exit("no 'commit:' line in:\n" + out)
printed = line[len("commit: "):].removesuffix("-dirty")
try:
    head = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
except (OSError, subprocess.CalledProcessError):
    head = None
if head is None:
    sys.exit(0 if printed == "unknown" else f"not a git checkout, yet commit is {printed}")
if printed == "unknown" or not head.startswith(printed):
    sys.exit(f"tether --version says commit {printed}, the tree's HEAD is {head}")
