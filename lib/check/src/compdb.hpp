// Which translation units a `tether check` run checks, before any parse: the
// compile database the options name (loaded as LLVM's own loader loads
// compile_commands.json), the files selected from it, and each file's
// distinct compile commands as units (tether/check/units.hpp), each with the
// command line exactly as its parse runs it. Nothing here parses C++: the
// fuzz target test/fuzz/compdb.cpp runs the same code on any bytes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <llvm/Support/VirtualFileSystem.h>

#include "tether/check/runner.hpp"
#include "tether/check/units.hpp"

namespace tether::check {

// One translation unit to check.
struct Unit {
  UnitCommand key;                         // file, directory and the adjusted arguments
  clang::tooling::CompileCommand command;  // as the parse runs it (CommandLine adjusted)
  unsigned index = 1, count = 1;           // the index-th of the file's count distinct commands
  std::string error;  // set when it cannot run at all: no command, a directory that is gone
  std::string note;   // a command inferred for a FILE the database does not list
  // The command makes a directory of the file's own project a system include
  // directory (-isystem): findings in headers there are skipped, so say so.
  std::string system_note;
  // Its command's directory does not exist (StaleDirectoryError).
  bool directory_gone = false;
};

// A compile_commands.json's text as LLVM's JSON plugin loads it from a
// directory: commands in either syntax, response files expanded through fs,
// commands inferred for files it does not list, target and driver mode from
// the compiler's name. Null with *error when the text is not a database:
// "LINE:COL: not valid JSON: ..." (JsonSyntaxError) or "not a compile
// database: ..." (LLVM's reason).
std::unique_ptr<clang::tooling::CompilationDatabase> LoadCompileCommands(
    llvm::StringRef json, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs, std::string* error);

// The compile database the options name: -p's compile_commands.json (or its
// compile_flags.txt), the arguments after `--`, or one found above the first
// FILE. *source is the file it was read from ("" for the arguments after
// `--`). Null with *error, one line naming the file: "F: no such file (...)",
// "F:LINE:COL: not valid JSON: ..." (never quoting the text), "F: not a
// compile database: ...".
std::unique_ptr<clang::tooling::CompilationDatabase> OpenDatabase(const RunOptions& options,
                                                                  std::string* error,
                                                                  std::string* source);

// What the checker does to every compile command, in this order: no output
// file; Clang 16's resource directory, -fsyntax-only and -w right after the
// program name; the rest of ClangTool's own adjusters (no -save-temps or
// colour, no dependency file); the extra arguments at the end (before a
// `--`); a g++ CMake PCH included as text.
clang::tooling::ArgumentsAdjuster CheckerAdjuster(const RunOptions& options);

// The units to check: the FILEs given, or every file the database lists,
// less --exclude's, sorted by file; each file's commands in database order,
// a command equal to an earlier one of the same file (after CheckerAdjuster)
// left out. Empty with *error when no file is selected: checking nothing is
// not a clean result.
std::vector<Unit> SelectUnits(const clang::tooling::CompilationDatabase& db,
                              const RunOptions& options, std::string* error);

// One line when a unit's command names a directory that does not exist (a
// database left from a build tree that moved): "SOURCE: the directory 'D' of
// the entry for F does not exist (nor that of N more entries); ...", naming
// the first such unit. "" when there is none. `source` is OpenDatabase's.
std::string StaleDirectoryError(const std::vector<Unit>& units, const std::string& source);

}  // namespace tether::check
