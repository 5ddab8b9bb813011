// Reading `tether report`'s input: a trace (docs/trace-format.md) or a static
// graph (docs/static-graph-format.md), told apart by the first record.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "tether/error.hpp"
#include "tether/graph/scope_graph.hpp"

namespace tether::trace {
struct Trace;
}  // namespace tether::trace

namespace tether::graph {

enum class InputKind { kTrace, kStaticGraph };

// Looks at the first JSON object of `text`: a trace starts with an object
// carrying "ev" (its header line), a static graph is one object carrying
// "tether_static_graph". Anything else is an error naming path:line:col.
Error DetectInput(const std::string& path, const std::string& text, InputKind* kind);

// Parses a static graph. Errors (kInvalidArgument) name path:line:col and
// the problem: bad JSON, a missing or mistyped field, an unknown version, a
// call naming an unknown function.
Error LoadStaticGraph(const std::string& path, const std::string& text, StaticGraph* out);

struct LoadOptions {
  std::int64_t grace_ns = 0;  // passed to tether::trace::Analyze
  // Called on a trace once loaded, before it is analysed and built: the
  // tool resolves thread sites (addresses in the program) to source lines
  // with it, as tether trace does, so a report names the same sites.
  std::function<void(trace::Trace*)> prepare_trace{};
};

// Reads `path`, detects its kind, loads it (tether::trace::LoadTrace and
// tether::trace::Analyze for traces) and builds its scope graph.
Error LoadScopeGraph(const std::string& path, const LoadOptions& options, ScopeGraph* out);

// Reads an input file through tether::io::ReadInputFile (no directory, FIFO
// or device; the size cap): kIo with "path: error: ..." otherwise.
Error ReadInput(const std::string& path, std::string* out);

}  // namespace tether::graph
