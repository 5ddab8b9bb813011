// A finding: one diagnostic of one check, with its notes and fix-its. It is a
// plain value (no Clang types) so that worker threads can hand findings to
// the writers after their ASTs are gone.
#pragma once

#include <string>
#include <vector>

namespace tether::check {

// One replacement of bytes [offset, offset+length) of file by text.
struct Replacement {
  std::string file;
  unsigned offset = 0;
  unsigned length = 0;
  std::string text;
};

struct Note {
  std::string file;
  unsigned line = 0, col = 0;
  std::string message;
  std::string line_text;  // the source line, for the caret
};

struct Finding {
  std::string check;  // "tether-detached-context"
  std::string file;   // absolute path
  unsigned line = 0, col = 0;
  unsigned offset = 0;  // byte offset of line:col in file
  std::string message;
  std::string line_text;
  std::string function;  // qualified name of the enclosing function, if any
  std::vector<Note> notes;
  std::vector<Replacement> fixes;
  std::string fingerprint;  // "tether/v1", set before writing (baseline.hpp)
};

// Orders by file, line, column, check, message (the output order).
bool FindingLess(const Finding& a, const Finding& b);
// Sorts and removes duplicates (the same check at the same place with the same
// message: a header seen by several TUs, a template instantiated many times).
void SortAndDedupe(std::vector<Finding>* findings);

// A translation unit that could not be analysed, or (partial) one with
// compile errors whose recovered AST was checked: its findings are reported
// but may be incomplete. Either makes the run exit 2.
struct FailedUnit {
  std::string file;
  std::vector<std::string> errors;  // "file:line:col: error: message"
  bool partial = false;
};

}  // namespace tether::check
