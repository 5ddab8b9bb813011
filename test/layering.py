#!/usr/bin/env python3
"""The tree's layers, as docs/contributing.md's table states them, checked
against the code. For each layer the table lists (its first column) and what
it depends on (backquoted layers in its last column; "the libraries" is every
lib/ layer; "nothing" is none):

- every #include in the layer's sources resolves to the layer itself or to a
  layer below it (what it depends on, and what those depend on), and never
  into another layer's src/ (a layer's headers for others are under include/);
- every CMakeLists.txt of the layer edits only targets the layer defines (no
  target_link_libraries on another library's target from outside it);
- every directory under lib/ is a row of the table.

An #include that resolves to no file of the tree (the standard library,
Clang, a generated header) is not the tree's business and is skipped.

usage: test/layering.py [ROOT]   (default: the tree this file is in)
exit: 0 when the code keeps the table; 1 with one line per breach (file:line:
what); 2 when the table cannot be read.
"""
import os
import re
import sys

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp", ".inc")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
TARGET_DEF_RE = re.compile(r"^\s*add_(?:library|executable)\(\s*([A-Za-z0-9_.:-]+)", re.M)
TARGET_EDIT_RE = re.compile(
    r"^\s*(target_link_libraries|target_include_directories|target_compile_options|"
    r"target_compile_definitions|target_link_options|target_sources|"
    r"target_compile_features|set_target_properties)\(\s*([A-Za-z0-9_.:-]+)", re.M)


def fail_table(message):
    print(f"layering: docs/contributing.md: {message}", file=sys.stderr)
    sys.exit(2)


def read_table(root):
    """[(layer, [dependency phrases...])] from the 'How the tree is layered' table."""
    path = os.path.join(root, "docs", "contributing.md")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail_table(f"cannot read: {e.strerror}")
    try:
        start = lines.index("## How the tree is layered")
    except ValueError:
        fail_table("no '## How the tree is layered' section")
    rows = []
    for number, line in enumerate(lines[start + 1:], start + 2):
        if line.startswith("## "):
            break
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        layer = re.match(r"`([^`]+)`", cells[0])
        if layer is None or len(cells) < 3:
            fail_table(f"line {number}: a row without a `layer` and a 'depends on' column")
        rows.append((layer.group(1).rstrip("/"), cells[-1], number))
    if not rows:
        fail_table("the layer table has no rows")
    return rows


def dependencies(rows, root):
    """{layer: set of layers it may include (itself and everything below)}."""
    layers = [layer for layer, _, _ in rows]
    libraries = [layer for layer in layers if layer.startswith("lib/")]
    direct = {}
    for layer, phrase, number in rows:
        if not os.path.isdir(os.path.join(root, layer)):
            fail_table(f"line {number}: layer {layer} is not a directory of the tree")
        named = [n.rstrip("/") for n in re.findall(r"`([^`]+)`", phrase)]
        unknown = [n for n in named if n not in layers]
        if unknown:
            fail_table(f"line {number}: {layer} depends on {unknown[0]}, which is no layer")
        deps = set(named)
        if "the libraries" in phrase:
            deps |= set(libraries)
        direct[layer] = deps - {layer}
    closure = {}
    for layer in layers:
        seen, todo = {layer}, list(direct[layer])
        while todo:
            dep = todo.pop()
            if dep not in seen:
                seen.add(dep)
                todo.extend(direct[dep])
        closure[layer] = seen
    return closure


def layer_of(path, root, layers):
    rel = os.path.relpath(path, root)
    for layer in sorted(layers, key=len, reverse=True):
        if rel == layer or rel.startswith(layer + "/"):
            return layer
    return None


def resolve(name, including_dir, layer, root, layers):
    """(path, how) of the tree's file an include names, or (None, None)."""
    local = os.path.normpath(os.path.join(including_dir, name))
    if os.path.isfile(local):
        return local, "relative"
    # The layer's own roots first: its include/ and src/, or the layer
    # directory itself for tool/ and worker-reference/ (their own headers).
    own = [os.path.join(root, layer, d) for d in ("include", "src", "")]
    for base in own:
        candidate = os.path.join(base, name)
        if os.path.isfile(candidate):
            return os.path.normpath(candidate), "own"
    for other in layers:
        candidate = os.path.join(root, other, "include", name)
        if os.path.isfile(candidate):
            return os.path.normpath(candidate), "include"
    for other in layers:
        candidate = os.path.join(root, other, "src", name)
        if os.path.isfile(candidate):
            return os.path.normpath(candidate), "src"
    return None, None


def sources(root, layer):
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, layer)):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for filename in sorted(filenames):
            if filename.endswith(SOURCE_SUFFIXES):
                yield os.path.join(dirpath, filename)


def check_includes(root, closure):
    layers = list(closure)
    breaches = []
    for layer in layers:
        for path in sources(root, layer):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read().splitlines()
            for number, line in enumerate(text, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target, how = resolve(m.group(1), os.path.dirname(path), layer, root, layers)
                if target is None:
                    continue
                owner = layer_of(target, root, layers)
                rel = os.path.relpath(path, root)
                if owner is None or owner == layer:
                    continue
                if owner not in closure[layer]:
                    breaches.append(f"{rel}:{number}: includes {m.group(1)} ({owner}), which is not "
                                    f"below {layer} in docs/contributing.md's layer table")
                elif how == "src" or os.path.relpath(target, os.path.join(root, owner)).startswith("src/"):
                    breaches.append(f"{rel}:{number}: includes {m.group(1)} from {owner}/src: another "
                                    f"layer's headers are those under its include/")
    return breaches


def check_cmake(root, closure):
    layers = list(closure)
    defined = {}
    files = {}
    for layer in layers:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, layer)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            if "CMakeLists.txt" in filenames:
                path = os.path.join(dirpath, "CMakeLists.txt")
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                files.setdefault(layer, []).append((path, text))
                for name in TARGET_DEF_RE.findall(text):
                    defined[name] = layer
    breaches = []
    for layer, entries in files.items():
        for path, text in entries:
            for m in TARGET_EDIT_RE.finditer(text):
                command, target = m.group(1), m.group(2)
                owner = defined.get(target)
                if owner is not None and owner != layer:
                    number = text.count("\n", 0, m.start()) + 1
                    breaches.append(f"{os.path.relpath(path, root)}:{number}: {command} on "
                                    f"{target}, a target of {owner}: each layer edits only its own")
    return breaches


def check_listed(root, closure):
    """Every library directory is a row of the table."""
    lib = os.path.join(root, "lib")
    missing = [f"lib/{d}" for d in sorted(os.listdir(lib)) if os.path.isdir(os.path.join(lib, d))
               and f"lib/{d}" not in closure] if os.path.isdir(lib) else []
    return [f"{d}: not a row of docs/contributing.md's layer table" for d in missing]


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    closure = dependencies(read_table(root), root)
    breaches = check_listed(root, closure) + check_includes(root, closure) + check_cmake(root, closure)
    for line in breaches:
        print(line)
    if breaches:
        print(f"layering: {len(breaches)} breach(es) of docs/contributing.md's layer table",
              file=sys.stderr)
        return 1
    print(f"layering: {len(closure)} layers, every include and CMake edit keeps the table")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
