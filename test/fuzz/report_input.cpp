// Fuzz target: `tether report`'s input loader: detection of a trace or a
// static graph, the static-graph loader, and building the scope graph from
// either. Any input must give a graph or an error; an exception, a crash, UB
// or a hang is a defect.
#include <cstddef>
#include <cstdint>

#include "fuzz_file.hpp"
#include "tether/graph/input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = tether::fuzz::InputFile(data, size);
  tether::graph::LoadOptions options;
  options.grace_ns = 1000000;
  tether::graph::ScopeGraph graph;
  (void)tether::graph::LoadScopeGraph(path, options, &graph);
  return 0;
}
