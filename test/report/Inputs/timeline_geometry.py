#!/usr/bin/env python3
"""Measures the HTML report's timeline as headless Chromium lays it out.

Copies REPORT.html with a measuring script appended (inline scripts are what
the report's Content-Security-Policy allows), loads it in a real headless
Chromium, and reads back the rendered geometry (getBoundingClientRect) of:
the axis ticks (to turn pixels back into time), every lane, its scope bar and
every red overhang. Then checks, for each zombie finding of FINDINGS.json
(`tether report --format json`):

- there is exactly one red overhang for it;
- it is inside the lane of the scope the finding says the task outlived;
- it starts where that scope's bar ends (within 1.5 px);
- its drawn length, converted back through the axis, is the finding's
  outlived_ns within 5%.

Prints one line per zombie and a summary; exits 1 on any problem.
usage: timeline_geometry.py REPORT.html FINDINGS.json WORKDIR
"""
import json
import os
import re
import sys

from headless import dump_dom

MEASURE = r"""<script>
(function () {
  function box(e) { var r = e.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; }
  var out = {ticks: [], lanes: []};
  document.querySelectorAll('#timeline text.tl-ticklabel').forEach(function (t) {
    var b = box(t);
    out.ticks.push({t: Number(t.dataset.tNs), x: b.x + b.w / 2});
  });
  document.querySelectorAll('#timeline g.tl-lane').forEach(function (lane) {
    var bar = lane.querySelector('g.tl-bar.scope rect');
    var l = {scope: lane.dataset.scope, box: box(lane.querySelector('rect.tl-lane-bg')),
             scope_bar: bar ? box(bar) : null, overhangs: []};
    lane.querySelectorAll('rect.tl-overhang').forEach(function (r) {
      l.overhangs.push({task: r.dataset.task, box: box(r)});
    });
    out.lanes.push(l);
  });
  var pre = document.createElement('pre');
  pre.id = 'geometry';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""



def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    report, findings_path, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    html = open(report, encoding="utf-8").read()
    page = os.path.join(work, "measure.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(html.replace("</body>", MEASURE + "\n</body>"))
    dom = dump_dom(page, os.path.join(work, "profile"), "1600,1000")
    m = re.search(r'<pre id="geometry">(.*?)</pre>', dom, re.S)
    if not m:
        sys.exit("no geometry in the dumped DOM (did the page load?)")
    geo = json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                     .replace("&amp;", "&"))

    ticks = sorted(geo["ticks"], key=lambda t: t["t"])
    if len(ticks) < 2:
        sys.exit("fewer than two axis ticks")
    ns_per_px = (ticks[-1]["t"] - ticks[0]["t"]) / (ticks[-1]["x"] - ticks[0]["x"])

    findings = []
    for line in open(findings_path, encoding="utf-8"):
        line = line.strip().rstrip(",")
        if line.startswith('{"kind":"zombie"'):
            findings.append(json.loads(line))
    problems = []
    for f in findings:
        task, scope = f["node"], f["scope"]
        found = [(lane, o) for lane in geo["lanes"] for o in lane["overhangs"] if o["task"] == task]
        if len(found) != 1:
            problems.append("%s: %d red overhangs, expected 1" % (task, len(found)))
            continue
        lane, o = found[0]
        b, lb = o["box"], lane["box"]
        mid = b["y"] + b["h"] / 2
        in_lane = lane["scope"] == scope and lb["y"] <= mid <= lb["y"] + lb["h"]
        bar = lane["scope_bar"]
        starts_at_end = bar is not None and abs(bar["x"] + bar["w"] - b["x"]) <= 1.5
        drawn_ns = b["w"] * ns_per_px
        want = f["outlived_ns"]
        ratio = drawn_ns / want if want else float("inf")
        ok = in_lane and starts_at_end and 0.95 <= ratio <= 1.05
        print("zombie %s in lane %s (finding: %s): outlived %.1f ms, drawn %.1f ms (x%.3f)%s%s" % (
            task, lane["scope"], scope, want / 1e6, drawn_ns / 1e6, ratio,
            "" if starts_at_end else ", does not start at the scope's end", "" if ok else "  PROBLEM"))
        if not ok:
            problems.append("%s: lane %s (want %s), start ok %s, length ratio %.3f" % (
                task, lane["scope"], scope, starts_at_end, ratio))
    print("%d zombies checked, %d lanes, %d problems" % (len(findings), len(geo["lanes"]), len(problems)))
    for p in problems:
        print("problem: " + p)
    sys.exit(1 if problems or not findings else 0)


if __name__ == "__main__":
    main()
