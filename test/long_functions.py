#!/usr/bin/env python3
"""Lists the product functions of N lines or more (default 100), longest first.

usage: test/long_functions.py [--max N] [DIR...]   (default: lib tool worker-reference)

A brace matcher, not a parser: comments, strings and character literals are
blanked, then a '{' whose text before it ends in a parameter list (`name(...)`,
optionally followed by const, noexcept, override, a trailing return type or a
constructor's initializer list) opens a function body; lambdas and control
statements (if, for, while, switch, catch) are parts of their function. A
function's lines run from its name to its closing brace. Exit 1 when any
function has N lines or more, so a test can hold the limit.
"""
import os
import re
import sys

KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof", "noexcept",
            "static_assert", "requires", "defined"}
SUFFIX = re.compile(r"\)\s*(?:const\b|noexcept\b(?:\([^()]*\))?|override\b|final\b|mutable\b|&&?|->[^{;()]*|\s)*$")


def blank(text):
    """Comments and literals become spaces (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000'000 is a number
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i)); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)


def matching_open(text, close):
    depth = 0
    for k in range(close, -1, -1):
        if text[k] == ")": depth += 1
        elif text[k] == "(":
            depth -= 1
            if depth == 0: return k
    return -1


def function_start(text, brace):
    """The offset of the function's name when `brace` opens a function body, else -1."""
    head = text[:brace]
    # A constructor's initializer list: `) : a_(x), b_{y} {`.
    m = re.search(r"\)\s*:\s*[\w:<>,\s(){}.\[\]*&+\-\"]*$", head)
    if m and not re.search(r"\?", head[m.start():]):
        cand = head[:m.start() + 1]
    else:
        cand = head
    m = SUFFIX.search(cand)
    if not m: return -1
    close = m.start()
    open_ = matching_open(cand, close)
    if open_ < 0: return -1
    name = re.search(r"([~\w:<>]+|operator\s*[^\s(]+)\s*$", cand[:open_])
    if not name: return -1
    word = name.group(1).split("::")[-1]
    if word in KEYWORDS or not word or cand[:name.start()].rstrip().endswith(("]", "=", ",", "(", "return")):
        return -1
    return name.start()


def functions(path):
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    found, stack = [], []  # stack: (is_function, start offset)
    in_function = 0
    for k, c in enumerate(text):
        if c == "{":
            start = -1 if in_function else function_start(text, k)
            stack.append((start >= 0, start))
            in_function += start >= 0
        elif c == "}" and stack:
            is_fn, start = stack.pop()
            if is_fn:
                in_function -= 1
                first = text.count("\n", 0, start) + 1
                last = text.count("\n", 0, k) + 1
                name = re.match(r"[~\w:<>]+|operator\s*[^\s(]+", text[start:]).group(0)
                found.append((last - first + 1, path, first, name))
    return found


def main(argv):
    limit, roots = 100, []
    args = iter(argv)
    for a in args:
        if a == "--max": limit = int(next(args))
        else: roots.append(a)
    roots = roots or ["lib", "tool", "worker-reference"]
    long_ones = []
    for root in roots:
        for d, _, files in os.walk(root):
            for f in sorted(files):
                if f.endswith((".cpp", ".hpp", ".h", ".cc")):
                    long_ones += [x for x in functions(os.path.join(d, f)) if x[0] >= limit]
    for lines, path, line, name in sorted(long_ones, reverse=True):
        print(f"{lines:4d} {path}:{line} {name}")
    return 1 if long_ones else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
