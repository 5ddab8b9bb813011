"""Loads a page in a real headless Chromium and returns the DOM after its
scripts ran (--dump-dom): shared by the report tests' measuring scripts."""
import os
import subprocess

CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def dump_dom(page, profile, window, query=""):
    """The DOM of file://PAGE?QUERY in a WINDOW ("1400,1000") sized window."""
    return subprocess.run(CHROMIUM + ["--window-size=" + window, "--user-data-dir=" + profile, "--dump-dom",
                                      "file://" + os.path.abspath(page) + query],
                          capture_output=True, text=True, timeout=120).stdout
