// `tether-worker validate [--notes] [--strict] FILE...`: parse and validate pipelines
// without running anything.
#include "cmd/validate.hpp"
#include "cmd/exit_codes.hpp"

#include <iostream>

#include "tether/cli/options.hpp"
#include "tether/worker/pipeline.hpp"

namespace tether::worker::cmd {

namespace {

const char kUsage[] = "usage: tether-worker validate [--notes] [--strict] [--] FILE...\n";
const char kValidateHelp[] =
    "usage: tether-worker validate [--notes] [--strict] [--] FILE...\n"
    "  Parses and validates Vela-style pipeline files; runs nothing.\n"
    "  --notes  also print what is accepted but not honoured\n"
    "  --strict every warning (a setting Vela drops or overrides) is an error\n"
    "  --       what follows is a file name, even if it starts with '-'\n"
    "  exit 0: all valid; 2: some file invalid or unreadable\n";

struct ValidateArgs {
  bool notes = false;
  bool strict = false;
  std::vector<std::string> files;
};

void DeclareValidateOptions(cli::Options* cli, ValidateArgs* out) {
  cli->Flag("--notes", &out->notes);
  cli->Flag("--strict", &out->strict);
  cli->Operands(&out->files);
}

// "12:5: text" -> "FILE:12:5: note: text"; "text" -> "FILE: note: text".
std::string NoteLine(const std::string& file, const std::string& note) {
  size_t first = note.find(':');
  size_t second = first == std::string::npos ? first : note.find(": ", first + 1);
  bool positioned = first != std::string::npos && first > 0 && second != std::string::npos &&
                    note.find_first_not_of("0123456789:") == second + 1;
  if (!positioned) return file + ": note: " + note;
  return file + ":" + note.substr(0, second) + ": note: " + note.substr(second + 2);
}

void PrintContainerNotes(const std::string& file, const char* kind, const Container& c) {
  for (const auto& [key, why] : c.unsupported) {
    std::cout << file << ":" << c.pos.line << ":" << c.pos.column << ": note: " << kind << " `"
              << c.name << "`: `" << key << "`: " << why << "\n";
  }
}

size_t CountSteps(const Pipeline& p) {
  size_t n = p.steps.size();
  for (const Stage& s : p.stages) n += s.steps.size();
  return n;
}

}  // namespace

CommandHelp ValidateHelp() {
  auto scratch = std::make_shared<ValidateArgs>();
  return {"validate", kValidateHelp,
          [scratch](cli::Options* cli) { DeclareValidateOptions(cli, scratch.get()); }};
}

int RunValidate(int argc, char** argv) {
  ValidateArgs args;
  cli::Options cli;
  DeclareValidateOptions(&cli, &args);
  const bool& notes = args.notes;
  const bool& strict = args.strict;
  const std::vector<std::string>& files = args.files;
  if (std::string problem = cli.Parse(argc, argv); !problem.empty()) {
    std::cerr << "tether-worker validate: " << problem << "\n" << kUsage;
    return kExitUsage;
  }
  if (cli.Help()) {
    std::cout << kValidateHelp;
    return kExitOk;
  }
  if (files.empty()) {
    std::cerr << "tether-worker validate: no pipeline files given\n" << kUsage;
    return kExitUsage;
  }
  bool all_valid = true;
  for (const std::string& file : files) {
    Pipeline pipeline;
    std::vector<PipelineDiagnostic> diagnostics;
    Error err = LoadPipeline(file, &pipeline, &diagnostics, strict);
    for (const PipelineDiagnostic& w : pipeline.warnings) std::cerr << w.ToString() << "\n";
    if (!err.ok()) {
      all_valid = false;
      for (const PipelineDiagnostic& d : diagnostics) std::cerr << d.ToString() << "\n";
      if (diagnostics.empty()) std::cerr << file << ": error: " << err.ToString() << "\n";
      continue;
    }
    std::cout << file << ": ok (" << CountSteps(pipeline) << " steps, " << pipeline.services.size()
              << " services, " << pipeline.stages.size() << " stages)\n";
    if (notes) {
      for (const std::string& note : pipeline.notes) std::cout << NoteLine(file, note) << "\n";
      for (const Container& c : pipeline.services) PrintContainerNotes(file, "service", c);
      for (const Container& c : pipeline.steps) PrintContainerNotes(file, "step", c);
      for (const Stage& s : pipeline.stages) {
        for (const Container& c : s.steps) PrintContainerNotes(file, "step", c);
      }
    }
  }
  std::cout.flush();
  return all_valid ? 0 : 2;
}

}  // namespace tether::worker::cmd
