"""numbered.py LOG LAST: the log's output lines are "line 1".."line N"
(N >= 300, none missing, in order), then exactly LAST. Lines starting with
"$ " (echoed commands) and the shell's "Terminated" (its sleep got the
group's SIGTERM too) are skipped."""
import sys

lines = [l.rstrip("\n") for l in open(sys.argv[1])
         if not l.startswith("$ ") and l.rstrip("\n") != "Terminated"]
if not lines or lines[-1] != sys.argv[2]:
    sys.exit("last line is %r, not %r" % (lines[-1] if lines else None, sys.argv[2]))
numbers = lines[:-1]
for i, line in enumerate(numbers, 1):
    if line != "line %d" % i:
        sys.exit("line %d is %r" % (i, line))
if len(numbers) < 300:
    sys.exit("only %d numbered lines" % len(numbers))
print("complete: %d numbered lines, then %s" % (len(numbers), sys.argv[2]))
