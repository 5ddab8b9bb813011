#!/usr/bin/env python3
"""Recall and precision of `tether check` on a Vela rendering.

usage: vela_recall.py SITES_TSV TETHER_OUTPUT [SRC_ROOT]

SITES_TSV lists the ground-truth sites of research/vela.md §2 that the
rendering holds, one per line: `site<TAB>category<TAB>spans`, where spans is
`file:first-last` (or `file:line`) joined by `;`, paths relative to the
rendering. A site is found when a warning, or a note of a warning, lies in
one of its spans. A warning is a true positive when it or one of its notes
lies in some site's span; precision = true positives / warnings.
"""
import collections
import os
import re
import sys

sites_path, out_path = sys.argv[1], sys.argv[2]
root = os.path.abspath(sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(sites_path))

sites = []  # (site, category, [(file, first, last)])
for raw in open(sites_path):
    raw = raw.strip()
    if not raw or raw.startswith("#"):
        continue
    site, cat, spans = raw.split("\t")
    parsed = []
    for span in spans.split(";"):
        path, lines = span.rsplit(":", 1)
        first, _, last = lines.partition("-")
        parsed.append((os.path.join(root, path), int(first), int(last or first)))
    sites.append((site, cat, parsed))

line_re = re.compile(r"^(.*?):(\d+):\d+: (warning|note): ")
warnings = []  # [[(file, line), ...]] the warning's position first, then its notes'
for text in open(out_path):
    m = line_re.match(text)
    if not m:
        continue
    pos = (os.path.abspath(m.group(1)), int(m.group(2)))
    if m.group(3) == "warning":
        warnings.append([pos])
    elif warnings:
        warnings[-1].append(pos)


def hits(spans, positions):
    return any(f == p and a <= l <= b for f, a, b in spans for p, l in positions)


found = collections.OrderedDict()
for site, cat, spans in sites:
    found[site] = (cat, any(hits(spans, w) for w in warnings))
true_pos = sum(1 for w in warnings if any(hits(spans, w) for _, _, spans in sites))

by_cat = collections.OrderedDict()
for site, (cat, ok) in found.items():
    total, hit, missed = by_cat.get(cat, (0, 0, []))
    by_cat[cat] = (total + 1, hit + ok, missed + ([] if ok else [site]))
for cat, (total, hit, missed) in by_cat.items():
    print(f"{cat:5} {hit}/{total}" + (f"  missed: {', '.join(missed)}" if missed else ""))
n_found = sum(ok for _, ok in found.values())
print(f"recall {n_found}/{len(found)} = {n_found / len(found):.2f}")
prec = true_pos / len(warnings) if warnings else 1.0
print(f"precision {true_pos}/{len(warnings)} = {prec:.2f}")
