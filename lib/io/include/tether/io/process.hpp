// Running a helper program and collecting what it writes: graphviz's `dot`
// for the SVG and HTML reports, `git` for SARIF's root. The one way product
// code starts a child it waits for. Two others stay apart, each for its
// reason: the worker's steps (worker-reference/runtime: a process group or a
// cgroup via clone3, descriptors of its own, killed and reaped by the
// executor), and `tether trace`'s program (its pid must be known while it
// runs, to forward the signals the tool receives). The thread shim's
// addr2line runs inside the traced program and uses no Tether library.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace tether::io {

struct ProgramOptions {
  std::string input;                    // written to its standard input, then closed
  bool capture_err = true;              // false: its stderr is discarded
  std::chrono::milliseconds timeout{};  // zero: none; past it the program is killed
};

struct ProgramResult {
  bool started = false;
  bool not_found = false;  // the program is not in PATH (started is false)
  std::string error;       // why it did not start: "'dot' was not found in PATH"
  int status = 0;          // waitpid's status, when started
  bool timed_out = false;  // killed (SIGKILL) after ProgramOptions::timeout
  std::string out;         // its standard output
  std::string err;         // its standard error (when captured)

  // Started, exited by itself, with status 0.
  bool Succeeded() const;
  // "exit 3", "killed by signal 9", "timed out after 100ms".
  std::string Describe() const;
};

// Runs argv (argv[0] searched in PATH) to its end, feeding it options.input
// and reading its output as it comes (neither side can fill a pipe and stall).
ProgramResult RunProgram(const std::vector<std::string>& argv, const ProgramOptions& options = {});

// The path of `name` in PATH: the first regular, executable file of that
// name ("" when there is none); a name with a '/' is itself when it is one.
// Safe before a fork (it allocates; call it in the parent).
std::string FindInPath(std::string_view name);

}  // namespace tether::io
