// `tether check`: the command line of the static checker (lib/check).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "command_args.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "tether/check/baseline.hpp"
#include "tether/check/line_filter.hpp"
#include "tether/check/model.hpp"
#include "tether/check/runner.hpp"
#include "tether/check/suppress.hpp"
#include "tether/check/writers.hpp"
#include "tether/cli/options.hpp"
#include "tether/io/process.hpp"
#include "tether/io/write_file.hpp"

namespace tether::tool {
namespace {

// The git toplevel of the current directory ("" outside git or without git).
std::string GitToplevel() {
  io::ProgramOptions options;
  options.capture_err = false;
  io::ProgramResult git = io::RunProgram({"git", "rev-parse", "--show-toplevel"}, options);
  if (!git.Succeeded()) return "";
  std::string out = std::move(git.out);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// Whole or not at all (io::WriteFileAtomically): a report a CI step reads
// never holds half of a run. Says why on stderr when it cannot.
bool WriteFile(const std::string& path, const std::string& text) {
  std::optional<io::WriteError> e = io::WriteFileAtomically(path, text);
  if (e) std::cerr << "tether check: error: cannot write " << path << ": " << e->message << "\n";
  return !e;
}

// An absolute path without symlinks (as the findings' paths are), even when
// the last parts do not exist.
std::string CanonicalDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path p =
      std::filesystem::weakly_canonical(std::filesystem::absolute(dir, ec), ec);
  return ec ? dir : p.string();
}

bool Under(const std::string& file, std::string root) {
  if (!root.empty() && root.back() != '/') root += '/';
  return file.rfind(root, 0) == 0;
}

// "tether check: 3 findings in 2 translation units (1 justified); ...": on
// stderr, and the last line of a text report written with --output.
std::string SummaryLine(const check::RunSummary& run, bool have_baseline, unsigned stale,
                        unsigned errors) {
  std::string line = "tether check: " + std::to_string(run.findings.size()) + " finding" +
                     (run.findings.size() == 1 ? "" : "s") + " in " + std::to_string(run.units) +
                     " translation unit" + (run.units == 1 ? "" : "s");
  if (run.suppressed) line += " (" + std::to_string(run.suppressed) + " justified)";
  if (errors)
    line += "; " + std::to_string(errors) + (errors == 1 ? " is an error" : " are errors") +
            " (--warnings-as-errors)";
  if (have_baseline)
    line += "; " + std::to_string(run.baselined) + " known from the baseline" +
            (stale ? ", " + std::to_string(stale) + " baseline entries no longer found" : "");
  unsigned partial = 0;
  for (const check::FailedUnit& u : run.failed) partial += u.partial;
  if (partial)
    line += "; " + std::to_string(partial) + " with compile errors (results may be incomplete)";
  if (run.failed.size() > partial)
    line += "; " + std::to_string(run.failed.size() - partial) + " could not be analysed";
  return line;
}

int Usage(const std::string& problem) {
  std::cerr << "tether check: " << problem << "\n" << kCheckUsage;
  return kExitError;
}

// Returns -1 when the run goes on, else the exit code (usage error, --help).
int ParseCheckArgs(int argc, char** argv, CheckArgs* args) {
  check::RunOptions& options = args->options;
  cli::Options cli;
  const CheckOptionHandles handles = DeclareCheckOptions(&cli, args);
  if (std::string problem = cli.Parse(argc, argv); !problem.empty()) {
    if (cli.UsageHelps()) return Usage(problem);
    std::cerr << "tether check: error: " << problem << "\n";
    return kExitError;
  }
  if (cli.Help()) {
    std::cout << kCheckUsage;
    return kExitClean;
  }
  if (args->quiet) options.progress = false;
  args->have_warnings_as_errors = handles.warnings_as_errors->count() > 0;
  args->have_header_filter = handles.header_filter->count() > 0;
  if (options.have_fixed_args && options.build_dir.empty() && options.files.empty())
    return Usage("give the FILES to check before --");
  if (!args->line_filter.empty() && !args->diff.empty())
    return Usage("--line-filter and --diff both say which lines to report on: give one");
  return -1;
}

// --line-filter or --diff, read before the analysis (a bad one is an error at
// once, exit 2). *have is false when neither was given.
bool LoadLineFilter(const CheckArgs& args, check::LineFilter* out, bool* have) {
  *have = !args.line_filter.empty() || !args.diff.empty();
  if (!*have) return true;
  std::string error;
  if (!args.line_filter.empty()) {
    if (check::LineFilter::FromJson(args.line_filter, "--line-filter", out, &error)) return true;
    std::cerr << "tether check: " << error << "\n";
    return false;
  }
  std::string text;
  const std::string where = args.diff == "-" ? "<stdin>" : args.diff;
  if (args.diff == "-") {
    std::ostringstream in;
    in << std::cin.rdbuf();
    text = in.str();
  } else {
    std::ifstream in(args.diff, std::ios::binary);
    if (!in) {
      std::cerr << "tether check: " << args.diff
                << ": error: cannot read the diff: " << std::strerror(errno) << "\n";
      return false;
    }
    std::ostringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  if (check::LineFilter::FromUnifiedDiff(text, where, out, &error)) return true;
  std::cerr << "tether check: " << error << "\n";
  return false;
}

// --checks must enable a check: a list that enables none (a typo in its only
// name) would check nothing and pass. Returns false (said on stderr) then.
bool ChecksEnableOne(const std::string& checks) {
  for (const auto& info : check::AllCheckInfos())
    if (check::CheckEnabled(checks, info.name)) return true;
  std::cerr << "tether check: error: no checks enabled by --checks '" << checks
            << "' (tether check --list-checks lists them)\n";
  return false;
}

// --warnings-as-errors that names none of the enabled checks makes every
// finding a warning: legitimate ('' for a report that never fails), but a typo
// looks the same, so say so.
void NoteWarningsAsErrors(const CheckArgs& args) {
  if (!args.have_warnings_as_errors) return;
  for (const auto& info : check::AllCheckInfos())
    if (check::CheckEnabled(args.options.checks, info.name) &&
        check::CheckEnabled(args.warnings_as_errors, info.name))
      return;
  std::cerr << "tether check: note: --warnings-as-errors '" << args.warnings_as_errors
            << "' matches none of the enabled checks: no finding fails the run\n";
}

// --output, --export-fixes and --graph were each checked when parsed
// (cli::Options::OutputFile: nothing created or truncated); here, before the
// analysis, two of them must not name one file. Returns false (said on
// stderr) when they do.
bool CheckOutputFiles(const CheckArgs& args) {
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--output", &args.output}, {"--export-fixes", &args.export_fixes}, {"--graph", &args.graph}};
  for (size_t i = 0; i < std::size(outputs); ++i)
    for (size_t j = i + 1; j < std::size(outputs); ++j) {
      const std::string &a = *outputs[i].second, &b = *outputs[j].second;
      if (!a.empty() && !b.empty() && CanonicalDir(a) == CanonicalDir(b)) {
        std::cerr << "tether check: error: " << outputs[i].first << " and " << outputs[j].first
                  << " both name " << b << "\n";
        return false;
      }
    }
  return true;
}

// --model FILE..., or the default models. Returns false (said on stderr) when one does not load.
bool LoadModels(std::vector<std::string> models, check::ApiModel* model) {
  if (models.empty()) {
    for (std::string_view rest = check::kDefaultModels; !rest.empty();) {
      size_t semi = rest.find(';');
      models.emplace_back(rest.substr(0, semi));
      rest = semi == std::string_view::npos ? "" : rest.substr(semi + 1);
    }
  }
  for (const std::string& m : models) {
    std::string error;
    if (!check::LoadModel(m, model, &error)) {
      std::cerr << "tether check: " << error << "\n";
      return false;
    }
  }
  return true;
}

// The root of SARIF URIs and fingerprints: --sarif-root, else the git
// toplevel, else the current directory (said when writing SARIF).
std::string SarifRoot(std::string sarif_root, const std::string& format,
                      const check::RunSummary& run) {
  bool root_is_cwd = false;
  if (sarif_root.empty()) sarif_root = GitToplevel();
  if (sarif_root.empty()) {
    sarif_root = ".";
    root_is_cwd = true;
  }
  sarif_root = CanonicalDir(sarif_root);
  if (format == "sarif") {
    if (root_is_cwd)
      std::cerr
          << "tether check: note: not in a git checkout: SARIF URIs are relative to the current "
             "directory "
          << sarif_root << " (give --sarif-root DIR for another)\n";
    unsigned outside = 0;
    for (const check::Finding& f : run.findings) outside += !Under(f.file, sarif_root);
    if (outside)
      std::cerr << "tether check: note: " << outside << " finding"
                << (outside == 1 ? " is" : "s are") << " in files outside " << sarif_root
                << ": their SARIF URIs are absolute\n";
  }
  return sarif_root;
}

// A TU with compile errors was still checked on its recovered AST; its
// errors are printed as Clang prints them, so editors and CI find them.
void PrintFailedUnits(const check::RunSummary& run) {
  for (const check::FailedUnit& u : run.failed) {
    if (u.partial)
      std::cerr << "tether check: error: " << u.file
                << " has compile errors: its results may be incomplete (checked on the AST Clang "
                   "recovered):\n";
    else
      std::cerr << "tether check: error: analysis failed for " << u.file << ":\n";
    for (const std::string& e : u.errors) std::cerr << e << "\n";
  }
}

// The report (--format, --output), --export-fixes, --graph and --fix.
// Returns false (said on stderr) when a file cannot be written.
bool WriteResults(const CheckArgs& args, const check::RunResult& result,
                  const std::string& sarif_root, const std::string& summary) {
  const check::RunSummary& run = result.summary;
  std::string report;
  if (args.format == "json") {
    report = check::JsonReport(run);
  } else if (args.format == "sarif") {
    report = check::SarifReport(run, sarif_root, TETHER_VERSION);
  } else {
    report = check::TextReport(run);
    if (!args.output.empty()) report += summary + "\n";  // on stdout it is the stderr line
  }
  if (args.output.empty()) {
    std::cout << report << std::flush;
  } else if (!WriteFile(args.output, report)) {
    return false;
  }
  if (!args.export_fixes.empty()) {
    std::string main_file = args.options.files.empty() ? "" : args.options.files.front();
    if (!WriteFile(args.export_fixes,
                   check::ExportFixesYaml(run, main_file, args.options.build_dir))) {
      return false;
    }
  }
  if (!args.graph.empty() &&
      !WriteFile(args.graph, check::StaticGraphJson(result.facts, run.findings))) {
    return false;
  }
  if (args.fix) {
    std::vector<std::string> errors;
    unsigned applied = check::ApplyFixes(run.findings, &errors);
    for (const auto& e : errors) std::cerr << "tether check: warning: " << e << "\n";
    std::cerr << "tether check: applied " << applied << " fix" << (applied == 1 ? "" : "es")
              << "\n";
  }
  return true;
}

}  // namespace

int RunCheckCommand(int argc, char** argv) {
  CheckArgs args;
  if (int rc = ParseCheckArgs(argc, argv, &args); rc >= 0) return rc;
  const check::RunOptions& options = args.options;
  if (!ChecksEnableOne(options.checks)) return kExitError;
  if (args.list_checks) {
    for (const auto& info : check::AllCheckInfos())
      if (check::CheckEnabled(options.checks, info.name))
        std::cout << info.name << ": " << info.summary << "\n";
    return kExitClean;
  }
  if (!CheckOutputFiles(args)) return kExitError;
  check::LineFilter line_filter;
  bool have_line_filter = false;
  if (!LoadLineFilter(args, &line_filter, &have_line_filter)) return kExitError;
  check::HeaderFilter header_filter;
  if (std::string error; args.have_header_filter &&
                         !check::HeaderFilter::Make(args.header_filter, &header_filter, &error)) {
    std::cerr << "tether check: error: " << error << "\n";
    return kExitError;
  }
  NoteWarningsAsErrors(args);
  check::ApiModel model;
  if (!LoadModels(args.models, &model)) return kExitError;

  check::Baseline baseline;
  if (!args.baseline_file.empty()) {
    std::string error;
    if (!check::LoadBaseline(args.baseline_file, &baseline, &error)) {
      std::cerr << error << "\n";
      return kExitError;
    }
  }

  check::RunResult result = check::RunChecks(options, model);
  if (!result.error.empty()) {
    std::cerr << "tether check: error: " << result.error << "\n";
    return kExitError;
  }
  for (const std::string& note : result.notes) std::cerr << "tether check: note: " << note << "\n";
  if (!options.cache_dir.empty())
    std::cerr << "tether check: cache: " << result.parsed << " parsed, " << result.reused
              << " reused of " << result.summary.units << " translation units\n";
  check::RunSummary& run = result.summary;
  run.warnings_as_errors = args.warnings_as_errors;
  const std::string sarif_root = SarifRoot(args.sarif_root, args.format, run);
  check::AssignFingerprints(sarif_root, &run.findings);
  unsigned stale = args.baseline_file.empty() ? 0 : check::ApplyBaseline(baseline, &run);
  const unsigned in_headers =
      args.have_header_filter ? header_filter.Apply(result.unit_files, &run) : 0;
  const unsigned off_lines = have_line_filter ? line_filter.Apply(&run) : 0;
  PrintFailedUnits(run);
  unsigned errors = 0;
  for (const check::Finding& f : run.findings) errors += check::IsError(run, f);
  std::string summary = SummaryLine(run, !args.baseline_file.empty(), stale, errors);
  if (args.have_header_filter)
    summary += "; " + std::to_string(in_headers) + " in headers --header-filter leaves out";
  if (have_line_filter)
    summary += "; " + std::to_string(off_lines) + " outside the " +
               (args.diff.empty() ? "--line-filter lines" : "changed lines");

  if (!WriteResults(args, result, sarif_root, summary)) return kExitError;
  std::cerr << summary << "\n";
  if (!run.failed.empty())
    return kExitError;  // also a TU with compile errors, whose findings are reported
  // With --warnings-as-errors only its findings fail the run (clang-tidy's
  // meaning); without it every finding does.
  if (args.have_warnings_as_errors) return errors ? kExitFindings : kExitClean;
  return run.findings.empty() ? kExitClean : kExitFindings;
}

}  // namespace tether::tool
