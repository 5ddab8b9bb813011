#!/usr/bin/env python3
"""Checks that the HTML report's timeline draws only the lanes on screen.

Loads REPORT.html (with a probe script appended: inline scripts are what the
report's Content-Security-Policy allows) in a real headless Chromium, window
1400x1000, and prints:

- how many lanes the page holds (lines of its #tl-lanes data block) and how
  many are drawn at load, with the element counts of the timeline and of the
  whole document;
- after the probe scrolls the timeline's box to its bottom (a real scroll,
  then the scroll event the browser would send): whether the last lane is
  drawn, with the same bars and red overhangs as its markup in the data
  block, and the element counts again;
- with ?bar=<the last task bar of the last lane>: whether that bar (far off
  screen at load) is selected and its detail shown; only when its node id is
  on no other lane (a folded bar links to a grouped graph node that the
  folded bars of every lane share, and ?bar= clicks the first).

The timeline's element counts are compared with BOUND (what the window can
show, from the caller: it depends on the lanes' height), and the whole
document's with DOC_BOUND when given.

usage: timeline_virtual_check.py REPORT.html WORKDIR BOUND [DOC_BOUND]
"""
import html as htmllib
import json
import os
import re
import sys

from headless import dump_dom

PROBE = r"""<script>
(function () {
  function count(sel) { return document.querySelectorAll(sel).length; }
  function drawn() {
    return Array.prototype.map.call(document.querySelectorAll('#timeline g.tl-lane'),
                                    function (l) { return l.dataset.scope; });
  }
  var out = {};
  // The lanes the page holds: its data block, or (a page that draws every
  // lane, so that this check says so rather than failing to run) the DOM's.
  var data = document.getElementById('tl-lanes');
  out.block = data ? data.textContent.split('\n').filter(function (l) {
    return l.indexOf('<g class="tl-lane') === 0;
  }) : Array.prototype.map.call(document.querySelectorAll('#timeline g.tl-lane'),
                                function (l) { return l.outerHTML; });
  out.load = {all: count('*'), timeline: count('#timeline *'), lanes: drawn()};
  var wrap = document.getElementById('tl-wrap');
  // A walk down and back up in steps of 250 px (lanes drawn below and above
  // those kept): after each step the drawn lanes must be in order, contiguous
  // in the page's list, and cover the visible band of the box.
  var order = {};
  out.block.forEach(function (l, i) { order[/data-scope="([^"]*)"/.exec(l)[1]] = i; });
  var problems = [], steps = 0;
  var lastLane = /data-top="([0-9.]+)" data-height="([0-9.]+)"/.exec(out.block[out.block.length - 1]);
  var extent = [Number(/data-top="([0-9.]+)"/.exec(out.block[0])[1]), Number(lastLane[1]) + Number(lastLane[2])];
  function check() {
    var drawn = document.querySelectorAll('#timeline g.tl-lane');
    for (var i = 1; i < drawn.length; i++) {
      if (order[drawn[i].dataset.scope] !== order[drawn[i - 1].dataset.scope] + 1) {
        problems.push('step ' + steps + ': ' + drawn[i - 1].dataset.scope + ' then ' + drawn[i].dataset.scope);
      }
    }
    // The band, less the axis above the first lane and the end below the last.
    var top = Math.max(wrap.scrollTop, extent[0]), bottom = Math.min(wrap.scrollTop + wrap.clientHeight, extent[1]);
    if (!drawn.length || Number(drawn[0].dataset.top) > top ||
        Number(drawn[drawn.length - 1].dataset.top) + Number(drawn[drawn.length - 1].dataset.height) < bottom) {
      problems.push('step ' + steps + ': the band ' + top + '-' + bottom + ' is not covered');
    }
  }
  for (var k = 0; k < 40; k++) {
    wrap.scrollTop += k < 20 ? 250 : -250;
    wrap.dispatchEvent(new Event('scroll'));
    steps++;
    check();
  }
  out.walk = {steps: steps, problems: problems.slice(0, 5), count: problems.length};
  wrap.scrollTop = wrap.scrollHeight;
  wrap.dispatchEvent(new Event('scroll'));
  var last = document.querySelectorAll('#timeline g.tl-lane');
  last = last[last.length - 1];
  out.bottom = {all: count('*'), timeline: count('#timeline *'), lanes: drawn(),
                last_bars: last ? last.querySelectorAll('g.tl-bar').length : 0,
                last_overhangs: last ? last.querySelectorAll('rect.tl-overhang').length : 0};
  out.block = {lanes: out.block.length, last: out.block[out.block.length - 1]};
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""

def dump(page, work, query=""):
    return dump_dom(page, os.path.join(work, "profile"), "1400,1000", query)


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    report, work, bound = sys.argv[1], sys.argv[2], int(sys.argv[3])
    doc_bound = int(sys.argv[4]) if len(sys.argv) == 5 else None
    os.makedirs(work, exist_ok=True)
    page = os.path.join(work, "probe.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(open(report, encoding="utf-8").read().replace("</body>", PROBE + "\n</body>"))
    m = re.search(r'<pre id="probe">(.*?)</pre>', dump(page, work), re.S)
    if not m:
        sys.exit("no probe output in the dumped DOM (did the page load?)")
    p = json.loads(htmllib.unescape(m.group(1)))
    last = p["block"]["last"]
    last_scope = re.match(r'<g class="tl-lane[^"]*" id="[^"]*" data-scope="([^"]*)"', last).group(1)
    for when in ("load", "bottom"):
        r = p[when]
        print("%s: %d of %d lanes drawn, %d timeline elements (%s %d), %d in the document" % (
            when, len(r["lanes"]), p["block"]["lanes"], r["timeline"],
            "bounded: <=" if r["timeline"] <= bound else "NOT bounded: >", bound, r["all"]))
        if doc_bound is not None:
            print("%s: document %s %d" % (when, "bounded: <=" if r["all"] <= doc_bound else "NOT bounded: >",
                                          doc_bound))
    w = p["walk"]
    print("walk of %d scroll steps: %d problems %s" % (w["steps"], w["count"], "; ".join(w["problems"])))
    b = p["bottom"]
    print("last lane %s drawn at the bottom: %s" % (last_scope, "yes" if last_scope in b["lanes"] else "no"))
    print("its bars: %d drawn, %d in its markup; overhangs: %d drawn, %d in its markup" % (
        b["last_bars"], last.count('<g class="tl-bar'), b["last_overhangs"], last.count('class="tl-overhang"')))

    # ?bar= on the last task bar of the last lane: scrolled to and clicked.
    node = re.findall(r'<g class="tl-bar task[^"]*" data-node="([^"]*)"', last)[-1]
    needle = 'data-node="%s"' % node
    m = re.search(r'<script type="text/plain" id="tl-lanes">(.*?)</script>', open(report, encoding="utf-8").read(),
                  re.S)
    if m and m.group(1).count(needle) != last.count(needle):
        print("?bar=: %s is on other lanes too (folded), not checked" % node)
        return
    dom = dump(report, work, "?bar=" + node)
    sel = re.search(r'<g class="tl-bar task [^"]*tl-sel" data-node="%s"' % re.escape(node), dom)
    detail = re.search(r'<div id="tl-detail">([^\n<]*)', dom)
    print("?bar=<the last task bar of the last lane>: selected %s, detail: %s" % (
        "yes" if sel else "no", detail.group(1) if detail else "none"))

if __name__ == "__main__":
    main()
