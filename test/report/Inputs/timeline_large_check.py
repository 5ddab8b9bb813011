"""Measures the 10k-task HTML report (timeline-large.test)."""
import os
import re
import sys

path = sys.argv[1]
html = open(path, encoding="utf-8").read()
size = os.path.getsize(path)
print(("size ok: %d bytes < 3000000" if size < 3000000 else "size too big: %d bytes") % size)
# The timeline: its SVG (axis, data-folded) and the lanes the page draws from,
# one per line of the #tl-lanes data block right after it (the markup the SVG
# held before the page drew only the lanes on screen), up to that block's end.
start = html.index('<svg xmlns="http://www.w3.org/2000/svg" class="tl"')
svg = html[start:html.index("</script>", html.index('id="tl-lanes"', start))]
print("folded", re.search(r'data-folded="(\w+)"', svg).group(1))
print("lanes", len(re.findall(r'<g class="tl-lane[ "]', svg)))
bars = re.findall(r'class="tl-bar task[^"]*" data-node="[^"]*" data-members="(\d+)"', svg)
print("folded bars %d %s 2500, members %d" % (len(bars), "<" if len(bars) < 2500 else ">=",
                                               sum(int(b) for b in bars)))
print("overhangs", sum(int(m) for m in re.findall(
    r'class="tl-bar task zombie" data-node="[^"]*" data-members="(\d+)"', svg)))
