// Parse + validate time of the whole Vela corpus (tether::worker::LoadPipeline)
// against yaml-cpp's YAML::LoadFile alone on the same files. LoadFile only
// builds yaml-cpp's node tree; LoadPipeline builds its own tree from
// yaml-cpp's events, resolves merges, checks duplicates and the Vela schema.
// The corpus folder can be overridden with $TETHER_VELA_CORPUS_DIR.
#include <benchmark/benchmark.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tether/worker/pipeline.hpp"

namespace {

// Every corpus file yaml-cpp can load (the baseline must succeed on each).
const std::vector<std::string>& CorpusFiles() {
  static const std::vector<std::string> files = [] {
    const char* env = std::getenv("TETHER_VELA_CORPUS_DIR");
    std::string dir = env != nullptr ? env : TETHER_VELA_CORPUS_DIR;
    std::vector<std::string> out;
    if (!std::filesystem::is_directory(dir)) return out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (e.path().extension() != ".yml") continue;
      try {
        YAML::LoadFile(e.path().string());
        out.push_back(e.path().string());
      } catch (const YAML::Exception&) {
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  return files;
}

bool HaveCorpus(benchmark::State& state) {
  if (!CorpusFiles().empty()) return true;
  state.SkipWithError("Vela corpus not found (set TETHER_VELA_CORPUS_DIR)");
  return false;
}

size_t CorpusBytes() {
  size_t bytes = 0;
  for (const std::string& f : CorpusFiles()) bytes += std::filesystem::file_size(f);
  return bytes;
}

// Baseline: yaml-cpp reads and builds its node tree; nothing else.
void BM_YamlCppLoadFile(benchmark::State& state) {
  if (!HaveCorpus(state)) return;
  for (auto _ : state) {
    for (const std::string& f : CorpusFiles()) {
      YAML::Node node = YAML::LoadFile(f);
      benchmark::DoNotOptimize(node);
    }
  }
  state.counters["files"] = static_cast<double>(CorpusFiles().size());
  state.counters["bytes"] = static_cast<double>(CorpusBytes());
}
BENCHMARK(BM_YamlCppLoadFile)->Unit(benchmark::kMillisecond);

// The floor under both: yaml-cpp's scanner and parser emitting events into a
// handler that keeps nothing (what is left is tree building and checking).
class DiscardEvents final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    benchmark::DoNotOptimize(value.data());
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

void BM_YamlCppEventsOnly(benchmark::State& state) {
  if (!HaveCorpus(state)) return;
  for (auto _ : state) {
    for (const std::string& f : CorpusFiles()) {
      // Read the file whole, then parse from memory, as LoadPipeline does.
      std::ifstream file(f, std::ios::binary);
      std::stringstream text;
      text << file.rdbuf();
      std::istringstream in(text.str());
      YAML::Parser parser(in);
      DiscardEvents discard;
      parser.HandleNextDocument(discard);
    }
  }
  state.counters["files"] = static_cast<double>(CorpusFiles().size());
}
BENCHMARK(BM_YamlCppEventsOnly)->Unit(benchmark::kMillisecond);

// Ours: read, parse, resolve merges, check duplicate keys, decode, validate.
void BM_LoadPipeline(benchmark::State& state) {
  if (!HaveCorpus(state)) return;
  for (auto _ : state) {
    for (const std::string& f : CorpusFiles()) {
      tether::worker::Pipeline pipeline;
      std::vector<tether::worker::PipelineDiagnostic> diagnostics;
      tether::Error err = tether::worker::LoadPipeline(f, &pipeline, &diagnostics);
      benchmark::DoNotOptimize(err);
      benchmark::DoNotOptimize(pipeline);
    }
  }
  state.counters["files"] = static_cast<double>(CorpusFiles().size());
  state.counters["bytes"] = static_cast<double>(CorpusBytes());
}
BENCHMARK(BM_LoadPipeline)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
