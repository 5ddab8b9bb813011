#!/usr/bin/env python3
"""%check_tether: one check's lit test in one RUN line, like clang-tidy's
check_clang_tidy.py.

    // RUN: %check_tether %s CHECKS %t [options] [-- TETHER-OPTIONS] [-- COMPILER-ARGS]

1. Runs `tether check --quiet --checks=-*,CHECKS FILE [--also files] [TETHER-OPTIONS]
   -- -std=c++20 -I<libtether's headers> [COMPILER-ARGS]` and requires its
   documented exit code: 1 when the CHECK lines expect a warning, 0 otherwise
   (any other status, a crash included, fails the test).
2. Checks its output with FileCheck against FILE's CHECK lines (or
   --check-prefix's), with -implicit-check-not=warning: so an unexpected
   finding fails the test.
3. When FILE has CHECK-FIXES lines (and the prefix is the default one), runs
   the same check with --fix on a copy of FILE without its CHECK lines (TMP.cpp)
   and checks the fixed copy against them. Files given with --also are not
   passed to the --fix run: it must never rewrite a test input.
"""
import argparse
import re
import subprocess
import sys


def split_dashes(argv):
    """Splits argv at its first two '--' into (script args, tether options, compiler args)."""
    parts = [[]]
    for arg in argv:
        if arg == "--" and len(parts) < 3:
            parts.append([])
        else:
            parts[-1].append(arg)
    while len(parts) < 3:
        parts.append([])
    return parts


def run(cmd, **kwargs):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs)


def main():
    script_args, tether_opts, compiler_args = split_dashes(sys.argv[1:])
    parser = argparse.ArgumentParser(prog="check_tether.py")
    parser.add_argument("--tether", required=True, help="the tether executable")
    parser.add_argument("--include", required=True, help="libtether's include directory")
    parser.add_argument("--filecheck", default="FileCheck")
    parser.add_argument("--check-prefix", default="CHECK")
    parser.add_argument("--implicit-check-not", action="append", default=[],
                        help="besides warning: (e.g. note:)")
    parser.add_argument("--partial", action="store_true",
                        help="the prefix's lines name some findings, not all: "
                             "no -implicit-check-not=warning:")
    parser.add_argument("--also", action="append", default=[],
                        help="another source file checked with FILE (not fixed)")
    parser.add_argument("--no-context-include", action="store_true",
                        help="compile without libtether's headers (std-only inputs)")
    parser.add_argument("file")
    parser.add_argument("checks")
    parser.add_argument("tmp")
    args = parser.parse_args(script_args)

    with open(args.file, encoding="utf-8") as f:
        source = f.read()
    prefix = args.check_prefix
    expects_finding = re.search(r"//\s*%s:.*warning:" % re.escape(prefix), source) is not None
    compile_args = ["-std=c++20"]
    if not args.no_context_include:
        compile_args.append("-I" + args.include)
    compile_args += compiler_args

    def tether(files, extra):
        return [args.tether, "check", "--quiet", "--checks=-*," + args.checks] + extra + \
            tether_opts + files + ["--"] + compile_args

    result = run(tether([args.file] + args.also, []))
    want = 1 if expects_finding else 0
    output = result.stdout.decode("utf-8", "replace")
    if result.returncode != want:
        sys.stdout.write(output)
        sys.exit("check_tether: tether check exited with %d, expected %d (%s)"
                 % (result.returncode, want,
                    "the CHECK lines expect a warning" if want else "no warning is expected"))
    filecheck = [args.filecheck, args.file, "--check-prefix=" + prefix]
    if not args.partial:
        filecheck.append("-implicit-check-not=warning:")
    filecheck += ["-implicit-check-not=" + s for s in args.implicit_check_not]
    checked = subprocess.run(filecheck, input=result.stdout)
    if checked.returncode != 0:
        sys.exit("check_tether: the findings do not match the %s lines" % prefix)

    if prefix != "CHECK" or "CHECK-FIXES" not in source:
        return
    fixed_path = args.tmp + ".cpp"
    with open(fixed_path, "w", encoding="utf-8") as f:
        f.writelines(line for line in source.splitlines(True) if "CHECK" not in line)
    fixed = run(tether([fixed_path], ["--fix"]))
    if fixed.returncode not in (0, 1):
        sys.stdout.write(fixed.stdout.decode("utf-8", "replace"))
        sys.exit("check_tether: tether check --fix exited with %d" % fixed.returncode)
    checked = subprocess.run([args.filecheck, args.file, "--check-prefix=CHECK-FIXES",
                              "--input-file=" + fixed_path])
    if checked.returncode != 0:
        sys.exit("check_tether: the fixed file does not match the CHECK-FIXES lines")


if __name__ == "__main__":
    main()
