#!/usr/bin/env python3
"""utils/add_check.py NAME: a new check for `tether check`, as clang-tidy's
add_new_check.py makes one for clang-tidy.

NAME is the check's name, `foo-bar` or `tether-foo-bar`. Makes every edit of
docs/contributing.md's "Add a check":

  lib/check/src/checks/foo_bar.cpp  the class, with a working example rule
                                    (clang-format-16 formats it) and its
                                    registration, FooBarCheckRegistration()
  lib/check/src/registry.cpp        that function declared and listed last
  lib/check/CMakeLists.txt          the file added to tether_check
  docs/checks/foo-bar.md            the page, each part saying what to write
  docs/checker.md                   a row at the end of the table of checks
  test/check/foo-bar.cpp            the lit test (%check_tether ... tether-foo-bar)

The example rule (a function that takes a context by non-const reference) is
there so that the new check builds, runs and passes its test from the first
build; the comments marked "THE RULE" are where the check's own goes.

Refuses, in one line on stderr with exit 2 and before it writes anything, a
NAME that is not lower-case words joined by '-', a check that exists (any of
its files, or its name in registry.cpp, CMakeLists.txt or docs/checker.md),
and a tree whose files no longer have the places it inserts into.
Python 3, standard library only.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

PROG = "add_check.py"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME_RE = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
CMAKE_WIDTH = 100  # lib/check/CMakeLists.txt's file lists stay within .clang-format's columns


class Refusal(Exception):
    """Why nothing was written: printed as one line, exit 2."""


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def parse_name(arg):
    name = arg[len("tether-"):] if arg.startswith("tether-") else arg
    if not NAME_RE.fullmatch(name):
        raise Refusal("'%s' is not a check name: lower-case words of letters and digits joined "
                      "by '-', the first starting with a letter (foo-bar or tether-foo-bar)" % arg)
    return name


class Names:
    """Every spelling of one check: foo-bar, tether-foo-bar, foo_bar, FooBar."""

    def __init__(self, name):
        self.name = name
        self.check = "tether-" + name
        self.snake = name.replace("-", "_")
        self.camel = "".join(part.capitalize() for part in name.split("-"))
        self.cls = self.camel + "Check"
        self.registration = self.cls + "Registration"
        self.source = "lib/check/src/checks/%s.cpp" % self.snake
        self.doc = "docs/checks/%s.md" % name
        self.test = "test/check/%s.cpp" % name


# ---- The edits to existing files: each returns the new text or refuses ----

REGISTRY = "lib/check/src/registry.cpp"
CMAKE = "lib/check/CMakeLists.txt"
CHECKER_DOC = "docs/checker.md"


def edit_registry(text, n):
    if re.search(r"\b%s\b" % n.registration, text):
        raise Refusal("%s exists: %s names %s" % (n.check, REGISTRY, n.registration))
    decls = list(re.finditer(r"^CheckRegistration \w+CheckRegistration\(\);\n", text, re.M))
    body = re.search(r"registry = \{\n(.*?)\n(\s*)\};", text, re.S)
    if not decls or not body:
        raise Refusal("%s: no declarations of CheckRegistration functions and list of them "
                      "to add %s to (has its layout changed?)" % (REGISTRY, n.registration))
    listed = body.group(1).rstrip()
    if not listed.endswith(","):
        listed += ","
    text = (text[:body.start(1)] + listed + " " + n.registration + "(),"
            + text[body.end(1):])
    end = decls[-1].end()
    return text[:end] + "CheckRegistration %s();\n" % n.registration + text[end:]


def edit_cmake(text, n):
    entry = "src/checks/%s.cpp" % n.snake
    if re.search(r"(^|\s)%s(\s|\))" % re.escape(entry), text):
        raise Refusal("%s exists: %s lists %s" % (n.check, CMAKE, entry))
    start = text.find("add_library(tether_check STATIC")
    block = text[start:text.find(")", start)] if start >= 0 else ""
    last = list(re.finditer(r"src/checks/\w+\.cpp", block))
    if not last:
        raise Refusal("%s: no list of src/checks/*.cpp in add_library(tether_check STATIC ...) "
                      "to add %s to" % (CMAKE, entry))
    at = start + last[-1].end()
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    if line_end - line_start + 1 + len(entry) <= CMAKE_WIDTH:
        insertion = " " + entry
    else:
        insertion = "\n  " + entry
    return text[:at] + insertion + text[at:]


def edit_checker_doc(text, n):
    if "[%s]" % n.check in text:
        raise Refusal("%s exists: %s has a row for it" % (n.check, CHECKER_DOC))
    section = re.search(r"^## Checks\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    rows = list(re.finditer(r"^\| \[tether-[a-z0-9-]+\]\(checks/[a-z0-9-]+\.md\) \|.*\|\n",
                            section.group(1) if section else "", re.M))
    if not rows:
        raise Refusal("%s: no table of checks under '## Checks' to add %s to"
                      % (CHECKER_DOC, n.check))
    at = section.start(1) + rows[-1].end()
    row = ("| [%s](checks/%s.md) | the example rule add_check.py wrote, a context parameter "
           "taken by non-const reference: write what the check finds, in a few words |\n"
           % (n.check, n.name))
    return text[:at] + row + text[at:]


# ---- The new files ----

SOURCE = r'''/// {check}: the example rule utils/add_check.py wrote (a function that
/// takes a context by non-const reference). Replace it with the check's own
/// rule where the comments say THE RULE, then the summary and docs below.
/// Docs: {doc}
#include "../ast_util.hpp"
#include "../check_base.hpp"

namespace tether::check {{
namespace {{

using namespace clang;
using namespace clang::ast_matchers;

class {cls} : public Check {{
 public:
  using Check::Check;

  // THE RULE, part 1: what the check looks at. The example matches every
  // function definition outside system headers, a template once as written
  // (not per instantiation), overrides left out (the base decides their
  // parameters). AST questions in the model's vocabulary are in ast_util.hpp
  // and blocking.hpp; model() is the API model --model gives.
  void registerMatchers(MatchFinder* finder) override {{
    finder->addMatcher(functionDecl(isDefinition(), unless(isExpansionInSystemHeader()),
                                    unless(isTemplateInstantiation()),
                                    unless(cxxMethodDecl(isOverride())))
                           .bind("fn"),
                       this);
  }}

  // THE RULE, part 2: a match turned into findings (diag), their notes
  // (note) and fix-its (replace, insert). The example reports a named
  // parameter of a context type (the model's context_types) taken by
  // non-const reference, through which the function could replace its
  // caller's context; its fix-it adds const when the definition is the
  // function's only declaration (a declaration elsewhere would no longer
  // match it).
  void check(const MatchFinder::MatchResult& result) override {{
    const auto* fn = result.Nodes.getNodeAs<FunctionDecl>("fn");
    for (const ParmVarDecl* p : fn->parameters()) {{
      QualType t = p->getType();
      if (p->getName().empty() || !t->isLValueReferenceType() ||
          t.getNonReferenceType().isConstQualified() || !IsContextType(t, model()))
        continue;
      std::string what = "'" + DisplayName(fn) + "' takes the context '" + p->getNameAsString();
      Finding* f = diag(p->getLocation(), what + "' by non-const reference; take it as a const reference");
      if (!fn->getPreviousDecl()) insert(f, p->getBeginLoc(), "const ");
    }}
  }}
}};

}}  // namespace

// The only place the check's name, summary, description, help and precision
// (SARIF's "high", "medium" or "low") are written: say the check's own rule.
CheckRegistration {registration}() {{
  return RegisterCheck<{cls}>(
      {{"{check}", "A function takes a context by non-const reference.",
       "The example rule utils/add_check.py wrote: a parameter of a context type taken by "
       "non-const reference lets the function replace its caller's context.",
       "Take the context as a const reference (or by value).", "low"}});
}}

}}  // namespace tether::check
'''

DOC = r'''# {check}

**Finds** a function that takes a context (a type of the model's `context_types`:
`tether::Context`, `std::stop_token`) by non-const reference, through which it could replace
its caller's context. This is the example rule `utils/add_check.py` wrote into
`{source}`: write here what the check finds instead, in the model's words, and
why it is a bug (what goes wrong at run time).

**Not reported**: an unnamed parameter, an override (its base decides its parameters), code in
system headers. Write here what looks like a finding and is not, and why (the precision rules).

**Fix-it**: `const` is added when the definition is the function's only declaration. Write here
what the fix-it does and when, or that the check has none.

## Bad

```cpp
void Serve(tether::Context& ctx);  // an example of what the check reports
```

## Good

```cpp
void Serve(const tether::Context& ctx);  // the same code, fixed
```

Test: `{test}`.
'''

TEST = r'''// REQUIRES: checker
// RUN: %check_tether %s {check} %t
// The example rule utils/add_check.py wrote ({source}):
// replace these cases with the check's own, each finding pinned by a CHECK
// line with its line and column, the code it must not report after them.
#include <stop_token>

#include <tether/context.hpp>

tether::Error Work(const tether::Context& ctx);

tether::Error Replaces(tether::Context& ctx) {{ return Work(ctx); }}
// CHECK: :[[@LINE-1]]:41: warning: 'Replaces' takes the context 'ctx' by non-const reference; take it as a const reference [{check}]
// CHECK-FIXES: tether::Error Replaces(const tether::Context& ctx) {{ return Work(ctx); }}

void Token(std::stop_token& token) {{}}
// CHECK: :[[@LINE-1]]:29: warning: 'Token' takes the context 'token' by non-const reference
// CHECK-FIXES: void Token(const std::stop_token& token) {{}}

void Declared(tether::Context& ctx);
void Declared(tether::Context& ctx) {{}}
// CHECK: :[[@LINE-1]]:32: warning: 'Declared' takes the context 'ctx' by non-const reference
// CHECK-FIXES: void Declared(tether::Context& ctx) {{}}

// ---- Not findings -------------------------------------------------------

void ByConstReference(const tether::Context& ctx) {{}}
void ByValue(tether::Context ctx) {{}}
void NotAContext(int& n) {{}}
void Unnamed(tether::Context&) {{}}
struct Base {{
  virtual void Run(tether::Context& ctx) = 0;
}};
struct Derived : Base {{
  void Run(tether::Context& ctx) override {{}}
}};
'''


def new_files(n):
    fields = dict(check=n.check, cls=n.cls, registration=n.registration, doc=n.doc,
                  source=n.source, test=n.test)
    return {n.source: SOURCE.format(**fields), n.doc: DOC.format(**fields),
            n.test: TEST.format(**fields)}


def clang_format():
    tool = os.environ.get("CLANG_FORMAT", "clang-format-16")
    if not shutil.which(tool):
        raise Refusal("%s not found: it formats the C++ this writes to lib/ (apt-get install "
                      "clang-format-16, or set CLANG_FORMAT)" % tool)
    return tool


def main():
    parser = argparse.ArgumentParser(prog=PROG, description="Add a check to tether check.")
    parser.add_argument("name", metavar="NAME", help="the check's name: foo-bar or tether-foo-bar")
    args = parser.parse_args()
    try:
        n = Names(parse_name(args.name))
        files = new_files(n)
        existing = [p for p in files if os.path.exists(os.path.join(ROOT, p))]
        if existing:
            raise Refusal("%s exists: %s" % (n.check, ", ".join(existing)))
        edits = {REGISTRY: edit_registry(read(REGISTRY), n), CMAKE: edit_cmake(read(CMAKE), n),
                 CHECKER_DOC: edit_checker_doc(read(CHECKER_DOC), n)}
        formatter = clang_format()
    except (Refusal, OSError) as e:
        sys.stderr.write("%s: error: %s\n" % (PROG, e))
        return 2
    for rel, text in list(files.items()) + list(edits.items()):
        with open(os.path.join(ROOT, rel), "w", encoding="utf-8") as f:
            f.write(text)
        print("%s: %s %s" % (PROG, "wrote" if rel in files else "updated", rel))
    subprocess.run([formatter, "-i", os.path.join(ROOT, n.source), os.path.join(ROOT, REGISTRY)],
                   check=True)
    print("%s: %s added with an example rule; write its own where %s says THE RULE, then "
          "%s, its row in %s and %s; build and run "
          "lit build/test/check (docs/contributing.md)"
          % (PROG, n.check, n.source, n.doc, CHECKER_DOC, n.test))
    return 0


if __name__ == "__main__":
    sys.exit(main())
