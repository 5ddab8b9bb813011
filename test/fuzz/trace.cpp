// Fuzz target: the trace loader (tether trace --load, tether report), then
// what is done with a loaded trace: the analysis and both reports. Any input
// must load or give an error; an exception, a crash, UB or a hang is a defect.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <vector>

#include "fuzz_file.hpp"
#include "tether/trace/model.hpp"
#include "tether/trace/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = tether::fuzz::InputFile(data, size);
  tether::trace::Trace trace;
  if (!tether::trace::LoadTrace(path, &trace).ok()) return 0;
  tether::trace::AnalysisOptions options;
  options.grace_ns = 1000000;
  const std::vector<tether::trace::Finding> findings = tether::trace::Analyze(trace, options);
  tether::trace::ReportInput in;
  in.trace = &trace;
  in.findings = &findings;
  in.grace_ns = options.grace_ns;
  in.trace_path = path;
  std::ostringstream text, json;
  tether::trace::WriteTextReport(text, in);
  tether::trace::WriteJsonReport(json, in);
  return 0;
}
