"""Runs `tether-worker validate` on every pipeline of the Vela corpus and
compares its verdict with MANIFEST.md's: accept -> exit 0, reject (or raw
Go-template text) -> exit 2. Fragments (a ruleset, a steps list, ...) and the
not-Vela files are not whole pipelines: Vela's ParseYAML/ValidateYAML refuse
them as files, so must we. Prints one line per disagreement and a summary.
usage: corpus_agree.py TETHER_WORKER CORPUS_DIR"""
import os
import re
import subprocess
import sys


def rows(manifest):
    header = None
    for line in open(manifest, encoding="utf-8"):
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if header is None:
            header = cells
            continue
        link = re.search(r"\]\(([^)]+)\)", cells[1] if len(cells) > 1 else "")
        if not link:
            continue
        col = next((i for i, h in enumerate(header) if h.startswith("predicted server result")), None)
        predicted = cells[col] if col is not None else "reject: not a Vela pipeline"
        yield link.group(1), predicted


def main():
    worker, corpus = sys.argv[1], sys.argv[2]
    total = accepted = refused = 0
    bad = []
    for name, predicted in rows(os.path.join(corpus, "MANIFEST.md")):
        if name.startswith("not-vela/"):
            continue  # not Vela pipelines: the 105 are the others
        want = 0 if predicted.startswith("accept") else 2
        rc = subprocess.run([worker, "validate", os.path.join(corpus, name)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        total += 1
        if rc == 0:
            accepted += 1
        else:
            refused += 1
        if rc != want:
            bad.append("DISAGREE %s: exit %d, Vela: %s" % (name, rc, predicted))
    for b in bad:
        print(b)
    print("%d files: %d accepted, %d refused, %d disagreements" % (total, accepted, refused, len(bad)))
    return 1 if bad else 0


sys.exit(main())
