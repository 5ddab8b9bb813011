// The pipeline decoder's shared state: where diagnostics and notes go, and the
// typed readers every part of the format uses (scalars, bools, string lists,
// environments, key checks). Each reader reports a precise error at the node
// it looked at and returns false; decoding goes on, so one run reports every
// problem of a file.
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tether/worker/pipeline.hpp"
#include "yaml_tree.hpp"

namespace tether::worker::internal {

using yaml::Entry;
using yaml::Node;

class Decoder {
 public:
  Decoder(std::string file, Pipeline* pipeline, std::vector<PipelineDiagnostic>* diagnostics)
      : file_(std::move(file)), pipeline_(pipeline), diagnostics_(diagnostics) {}

  const std::string& file() const { return file_; }
  Pipeline& pipeline() { return *pipeline_; }
  bool failed() const { return errors_ > 0; }

  SourcePos Pos(const Node& at) const { return {file_, at.line, at.column}; }
  void ErrorAt(int line, int column, std::string message);
  void Error(const Node& at, std::string message) {
    ErrorAt(at.line, at.column, std::move(message));
  }
  // A warning: a setting Vela drops or overrides (Pipeline::warnings; an
  // error when the file is parsed strictly, see ParsePipeline).
  void Warn(const Node& at, std::string message);
  // A note: accepted, recorded, not honoured. Goes to Pipeline::notes as "line:col: text".
  void Note(const Node& at, const std::string& text);
  void AddTreeProblems(const std::vector<yaml::TreeProblem>& problems);

  // The mapping's entries with `<<` merges resolved (merge problems reported).
  std::vector<Entry> Entries(const Node& map);
  // Warns of each key not in `allowed`: "unknown key `k` in <where> is
  // ignored (as by Vela)", with a "did you mean" when a known key is one or two
  // edits away, or why this worker has no use for it (`restart`, `registry`).
  void CheckKeys(const std::vector<Entry>& entries, std::initializer_list<std::string_view> allowed,
                 std::string_view where);

  // A scalar's text (numbers and bools as written; null as ""). Error for
  // sequences and mappings.
  bool Scalar(const Node& node, std::string_view what, std::string* out);
  // true/false (also YAML 1.1 yes/no/on/off, as go-yaml v3 accepts for a bool).
  bool Bool(const Node& node, std::string_view what, bool* out);
  // One scalar, or a sequence of scalars (Vela's raw.StringSlice).
  bool StringList(const Node& node, std::string_view what, std::vector<std::string>* out);
  // A mapping of scalars, or a list of KEY=VALUE (Vela's raw.StringSliceMap).
  void Environment(const Node& node, std::string_view where,
                   std::map<std::string, std::string>* out);

 private:
  std::string file_;
  Pipeline* pipeline_;
  std::vector<PipelineDiagnostic>* diagnostics_;
  yaml::MergeResolver merges_;  // one per file: each mapping's merges resolved once
  int errors_ = 0;
};

// "" when `name` is safe as a file name; otherwise why it is not.
std::string UnsafeNameReason(std::string_view name);
// Vela's default for an env var exported from a secret name: upper-cased,
// anything but [A-Za-z0-9_] turned into '_'.
std::string EnvNameFor(std::string_view name);
// `$$` -> `$` (Vela's escape for text its substitution must not touch); all
// other `${...}` text is kept for the shell (see docs/pipeline-format.md).
std::string UnescapeDollars(std::string_view text);

// Decoders of the parts of a pipeline (containers.cpp, pipeline.cpp).
enum class ContainerKind { kStep, kService, kSecretOrigin };
// Decodes one step/service/secret origin. Returns false when the node is not a
// mapping or has no usable name (the container is then not kept).
bool DecodeContainer(Decoder& d, const Node& node, ContainerKind kind, Container* out);
// Decodes a list of steps (top level or one stage's), checking names.
void DecodeSteps(Decoder& d, const Node& node, std::string_view where, std::vector<Container>* out);

}  // namespace tether::worker::internal
