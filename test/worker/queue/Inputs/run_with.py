"""run_with.py FILE CMD...: runs CMD with each "@" argument replaced by the
first line of FILE; prints its output and "exit=<status>"."""
import subprocess
import sys

value = open(sys.argv[1]).read().strip()
cmd = [value if a == "@" else a for a in sys.argv[2:]]
r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
sys.stdout.write(r.stdout)
print("exit=%d" % r.returncode)
