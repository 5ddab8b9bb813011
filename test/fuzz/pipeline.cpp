// Fuzz target: the pipeline parser and validator of tether-worker (YAML
// events, the tree with anchors and merge keys, the Vela schema), then the
// runnability check the executor makes. Any input must give a pipeline or
// diagnostics; an exception, a crash, UB or a hang is a defect.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tether/worker/pipeline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tether::worker::Pipeline pipeline;
  std::vector<tether::worker::PipelineDiagnostic> diagnostics;
  tether::Error err = tether::worker::ParsePipeline(text, "fuzz.vela.yml", &pipeline, &diagnostics);
  if (err.ok()) {
    std::vector<tether::worker::PipelineDiagnostic> unrunnable;
    (void)tether::worker::CheckRunnable(pipeline, &unrunnable);
  } else if (diagnostics.empty()) {
    std::abort();  // an invalid pipeline must say why
  }
  for (const auto& d : diagnostics) (void)d.ToString();
  return 0;
}
