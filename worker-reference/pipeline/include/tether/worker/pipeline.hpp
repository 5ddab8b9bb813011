// The pipeline model of tether-worker: what a Vela-style .vela.yml says, after
// parsing, anchor/merge resolution, ${VAR} substitution of the worker's own
// variables, and strict validation. The executor runs a Pipeline; it never
// sees YAML.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/error.hpp"

namespace tether::worker {

// The longest build timeout the worker accepts (pipeline `timeout:` and
// --build-timeout): 100 years. Any longer and a deadline (now + timeout) no
// longer fits the clocks' 64-bit nanosecond counts; validation refuses it.
inline constexpr std::chrono::hours kMaxTimeout{876000};
inline constexpr const char* kMaxTimeoutText = "876000h (100 years)";

// A position in a pipeline file, for messages: "file:line:col: error: ...".
struct SourcePos {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based
};

// A step's reference to a pipeline secret: the secret `source` is exported to
// the step as the environment variable `target` (Vela's short form `- name`
// means source = name, target = upper-cased name).
struct SecretRef {
  std::string source;
  std::string target;
};

// A step or a service: one process group on the process runtime. A container
// with neither commands nor entrypoint (a Vela plugin or template step) has
// nothing the process runtime can run: its `unsupported` says why.
struct Container {
  std::string name;                     // safe as a file name (validated)
  std::string image;                    // recorded; the process runtime does not pull
  std::vector<std::string> commands;    // run by /bin/sh -e -c, each echoed as "$ cmd"
  std::vector<std::string> entrypoint;  // when set and commands empty: exec'd as argv
  std::map<std::string, std::string> environment;
  std::vector<std::string> secrets;    // names of pipeline secrets injected as env vars
  std::vector<SecretRef> secret_refs;  // the same, with the env var name each is exported as
  bool detach = false;                 // runs in the background until ExecBuild ends
  bool continue_on_failure = false;    // ruleset: continue: true
  std::string pull;                    // recorded (always, not_present, ...), not honoured
  std::map<std::string, std::string> unsupported;  // key -> why it is recorded, not honoured
  std::string uses_template;  // Vela `template: {name}`: not expanded (see CheckRunnable)
  SourcePos pos;
};

struct Stage {
  std::string name;
  std::vector<std::string> needs;  // stage names; validated to exist and be acyclic
  std::vector<Container> steps;    // run in order
  SourcePos pos;
};

struct Secret {
  std::string name;
  // Where the value comes from on this worker: the worker's environment variable
  // (default: the upper-cased name) or a file path.
  std::string from_env;
  std::string from_file;
  SourcePos pos;
};

// One diagnostic: "file:line:col: error: message" (or "unsupported: ..."),
// or with warning set "file:line:col: warning: message".
struct PipelineDiagnostic {
  SourcePos pos;
  std::string message;
  bool warning = false;
  std::string ToString() const;
};

struct Pipeline {
  std::string file;
  std::string version;
  std::map<std::string, std::string> environment;  // global
  std::vector<Container> services;
  std::vector<Container> steps;  // a pipeline has steps or stages, not both
  std::vector<Stage> stages;
  std::vector<Secret> secrets;
  std::optional<std::chrono::seconds> timeout;  // build timeout from the file, if any
  std::vector<std::string>
      notes;                   // accepted features the process runtime records but does not honour
  bool render_inline = false;  // metadata.render_inline: the file is a template (see CheckRunnable)
  std::vector<std::string>
      templates;  // names `templates` declares (a step may call another: see CheckRunnable)
  // Settings Vela accepts but drops or overrides (an unknown key, a second
  // step of one name, ...): each one "file:line:col: warning: ...", in file
  // order. Parsing with strict = true turns every one into an error.
  std::vector<PipelineDiagnostic> warnings;
};

// Parses and validates a pipeline file. On failure returns kInvalidArgument
// and fills diagnostics (every error found, in file order); nothing is run.
// Warnings (settings Vela drops or overrides) go to out->warnings and do not
// fail the file; with strict each is an error instead (`validate --strict`).
Error LoadPipeline(const std::string& path, Pipeline* out,
                   std::vector<PipelineDiagnostic>* diagnostics, bool strict = false);
// Reads a pipeline file's text through tether::io (no directory, FIFO or
// device; size-capped). Error kIo with one "cannot read the pipeline file: ..."
// diagnostic (no position).
Error ReadPipelineFile(const std::string& path, std::string* text,
                       std::vector<PipelineDiagnostic>* diagnostics);
// The same from text (path is used in messages). Never throws and never exits:
// any text gives a Pipeline or located diagnostics (fuzz entry point).
Error ParsePipeline(const std::string& text, const std::string& path, Pipeline* out,
                    std::vector<PipelineDiagnostic>* diagnostics, bool strict = false);

// What `validate` accepts (everything Vela accepts) is not always something the
// process runtime can run meaningfully. Before running, the executor calls
// this: it returns kInvalidArgument with one diagnostic per step that calls a
// template: "step `s` uses template `t`, which `templates` does not declare"
// when none declares it (validate only warns: Vela compiles such a file), else
// "unsupported: ..." (templates are not fetched or expanded); and one for
// metadata.render_inline. Plugin steps (image + parameters, no commands) are
// not refused: they are skipped, and their Container::unsupported says so.
Error CheckRunnable(const Pipeline& pipeline, std::vector<PipelineDiagnostic>* diagnostics);

}  // namespace tether::worker
