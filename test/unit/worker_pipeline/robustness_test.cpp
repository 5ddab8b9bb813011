// Truncated, mutated and hostile inputs: the parser must never crash, hang or
// accept garbage silently; every refusal carries positioned diagnostics.
// Runs under ASan/UBSan and TSan in `./run test`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "tether/worker/pipeline.hpp"

namespace tether::worker {
namespace {

const std::string kCorpus = TETHER_VELA_CORPUS_DIR;

// A pipeline that uses most of the format, for when the corpus is absent.
const char* kRichPipeline = R"(version: "1"
x-base: &base
  image: alpine:3.19
  pull: not_present
environment:
  - GLOBAL=1
steps:
  - name: build
    <<: *base
    environment: {A: "x", B: 2}
    secrets: [token, {source: key, target: KEY}]
    commands:
      - echo ${VELA_BUILD_TAG##*/}
      - |
        make all
    ruleset:
      event: [push, tag]
      continue: true
  - name: publish
    image: plugin/x
    parameters: {a: [1, 2], b: {c: d}}
services:
  - name: db
    image: postgres
    entrypoint: [postgres, -D, /tmp]
secrets:
  - name: token
    key: org/token
    engine: native
    type: org
)";

int LineCount(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
}

// The invariant every input must satisfy.
void ExpectSaneResult(const std::string& text, const std::string& label) {
  Pipeline pipeline;
  std::vector<PipelineDiagnostic> diagnostics;
  Error err = ParsePipeline(text, "fuzz.yml", &pipeline, &diagnostics);
  if (err.ok()) {
    ASSERT_TRUE(diagnostics.empty()) << label;
    ASSERT_FALSE(pipeline.version.empty()) << label;
    return;
  }
  ASSERT_EQ(err.code(), ErrorCode::kInvalidArgument) << label;
  ASSERT_FALSE(diagnostics.empty()) << label;
  const int lines = LineCount(text);
  for (const PipelineDiagnostic& d : diagnostics) {
    ASSERT_GE(d.pos.line, 1) << label << ": " << d.ToString();
    ASSERT_LE(d.pos.line, lines + 1) << label << ": " << d.ToString();
    ASSERT_FALSE(d.message.empty()) << label;
  }
}

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {kRichPipeline};
  if (!std::filesystem::is_directory(kCorpus)) return seeds;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kCorpus)) {
    if (e.path().extension() != ".yml") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    seeds.push_back(text.str());
  }
  return seeds;
}

TEST(PipelineRobustness, EveryTruncationOfEverySeed) {
  for (const std::string& seed : Seeds()) {
    // About 40 cut points per file, always including the very short prefixes.
    size_t step = std::max<size_t>(1, seed.size() / 40);
    for (size_t cut = 0; cut < seed.size(); cut += (cut < 16 ? 1 : step)) {
      ExpectSaneResult(seed.substr(0, cut), "prefix of " + std::to_string(cut) + " bytes");
    }
  }
}

TEST(PipelineRobustness, MutatedSeedsWithYamlSyntaxCharacters) {
  static const char kSpecials[] = ":-[]{}&*!|>'\"#%@,?\n\t <\0\xff";
  const std::string specials(kSpecials, sizeof kSpecials - 1);  // with the NUL byte
  std::mt19937 random(20260716);  // deterministic: a failure is reproducible
  for (const std::string& seed : Seeds()) {
    if (seed.empty()) continue;
    for (int round = 0; round < 25; ++round) {
      std::string text = seed;
      int edits = 1 + static_cast<int>(random() % 4);
      for (int e = 0; e < edits; ++e) {
        size_t at = random() % text.size();
        char c = specials[random() % specials.size()];
        switch (random() % 3) {
          case 0: text[at] = c; break;
          case 1: text.insert(at, 1, c); break;
          default: text.erase(at, 1 + random() % 8); break;
        }
        if (text.empty()) text = "x";
      }
      ExpectSaneResult(text, "mutation round " + std::to_string(round));
    }
  }
}

TEST(PipelineRobustness, HostileShapes) {
  std::string deep_flow = "a: " + std::string(20000, '[');
  std::string deep_block;
  for (int i = 0; i < 2000; ++i) deep_block += std::string(static_cast<size_t>(i), ' ') + "k:\n";
  // A billion-laughs alias fan-out: 9^20 leaves if expanded; the tree shares nodes.
  std::string laughs = "version: \"1\"\nx0: &a0 [lol, lol]\n";
  for (int i = 1; i < 20; ++i) {
    laughs += "x" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j) laughs += (j ? ", *a" : "*a") + std::to_string(i - 1);
    laughs += "]\n";
  }
  laughs += "steps:\n  - name: a\n    image: b\n    commands: [x]\n    parameters: {p: *a19}\n"
            "    environment: *a19\n";
  const std::string cases[] = {
      deep_flow,
      deep_block,
      laughs,
      "a: &a [*a]\n",                      // recursive alias
      "<<: *nowhere\n",                    // undefined alias
      "version: \"1\"\n<<: [1, 2]\n",      // merge of scalars
      "? [complex, key]\n: value\n",       // non-scalar key
      "version: \"1\"\nsteps: !!binary aGVsbG8=\n",
      std::string("version: \"1\"\nsteps:\n  - name: \"a\\0b\"\n"),
      std::string("\xef\xbb\xbfversion: \"1\"\n"),  // a byte-order mark
      "---\n---\n---\n",
      "%YAML 1.2\n---\nversion: 1\n",
      std::string(1000, '-'),
      std::string(100, '\0'),
  };
  for (const std::string& text : cases) ExpectSaneResult(text, text.substr(0, 40));
}

}  // namespace
}  // namespace tether::worker
