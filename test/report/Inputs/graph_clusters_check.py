#!/usr/bin/env python3
"""Checks the clustered scope graph of a trace against its JSON report.

- every zombie node is declared inside the DOT cluster of the scope its
  finding says it outlived;
- every zombie whose chain was cut (ownership: reaches_scope false and a
  first_root) has a red dashed `cut` edge to exactly that root;
- the SVG that `dot` laid out is at most MAX_PX CSS pixels wide (Graphviz
  writes points; a browser draws 1pt as 4/3 px).

usage: graph_clusters_check.py REPORT.json REPORT.dot REPORT.svg MAX_PX
"""
import json
import re
import sys


def main():
    report, dot_path, svg_path, max_px = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    findings, ownership = [], []
    for line in open(report, encoding="utf-8"):
        line = line.strip().rstrip(",")
        if line.startswith('{"kind":"zombie"'):
            findings.append(json.loads(line))
        elif line.startswith('{"task":'):
            ownership.append(json.loads(line))
    dot = open(dot_path, encoding="utf-8").read()
    cluster_of = {}
    for m in re.finditer(r'subgraph "cluster_cn_(\w+)" \{(.*?)\n  \}', dot, re.S):
        for node in re.findall(r'^    "(n_\w+)" \[', m.group(2), re.M):
            cluster_of[node] = m.group(1)
    problems = []
    for f in findings:
        node, scope = "n_" + f["node"].replace(":", "_"), f["scope"].replace(":", "_")
        if cluster_of.get(node) != scope:
            problems.append("%s is in cluster %s, not in %s" % (node, cluster_of.get(node), scope))
    cuts = 0
    for o in ownership:
        if o["kind"] != "zombie" or o["reaches_scope"] or not o.get("first_root"):
            continue
        task, root = "n_" + o["task"].replace(":", "_"), "n_" + o["first_root"].replace(":", "_")
        if not re.search(r'"%s" -> "%s" \[class="cut", color="#dc2626"[^\]]*style=dashed' % (task, root), dot):
            problems.append("%s has no red dashed cut edge to %s" % (task, root))
        cuts += 1
    svg = open(svg_path, encoding="utf-8").read()
    width_pt = float(re.search(r'<svg width="([0-9.]+)pt"', svg).group(1))
    width_px = width_pt * 4 / 3
    print("%d zombies in their scope's cluster, %d cut edges, %d clusters" % (
        len(findings), cuts, len(set(cluster_of.values()))))
    print("width %s: %.0f px %s %.0f px" % ("ok" if width_px <= max_px else "TOO WIDE", width_px,
                                           "<=" if width_px <= max_px else ">", max_px))
    for p in problems:
        print("problem: " + p)
    sys.exit(1 if problems or width_px > max_px or not findings else 0)


if __name__ == "__main__":
    main()
