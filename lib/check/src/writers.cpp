// Text (clang-style), JSON and clang-apply-replacements YAML writers.
#include "tether/check/writers.hpp"

#include <sstream>

#include <nlohmann/json.hpp>

#include "tether/check/suppress.hpp"

namespace tether::check {
namespace {

// The caret line: spaces up to col (tabs kept so the caret lines up).
std::string CaretLine(const std::string& line_text, unsigned col) {
  std::string out;
  for (unsigned i = 1; i < col; ++i)
    out += (i - 1 < line_text.size() && line_text[i - 1] == '\t') ? '\t' : ' ';
  return out + "^";
}

std::string YamlQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "''";
    else if (c == '\n')
      out += "\n\n";  // a folded newline inside a single-quoted scalar
    else
      out += c;
  }
  return out + "'";
}

}  // namespace

bool IsError(const RunSummary& run, const Finding& f) {
  return !run.warnings_as_errors.empty() && CheckEnabled(run.warnings_as_errors, f.check);
}

std::string TextReport(const RunSummary& run) {
  std::ostringstream out;
  for (const Finding& f : run.findings) {
    // clang-tidy's form for a warning made an error.
    const bool error = IsError(run, f);
    out << f.file << ":" << f.line << ":" << f.col << (error ? ": error: " : ": warning: ")
        << f.message << " [" << f.check << (error ? ",-warnings-as-errors" : "") << "]\n";
    if (!f.line_text.empty() || f.line) {
      out << f.line_text << "\n" << CaretLine(f.line_text, f.col) << "\n";
      for (const Replacement& r : f.fixes) {
        if (r.file == f.file && r.offset == f.offset)
          out << std::string(f.col > 0 ? f.col - 1 : 0, ' ') << r.text << "\n";
      }
    }
    for (const Note& n : f.notes) {
      out << n.file << ":" << n.line << ":" << n.col << ": note: " << n.message << "\n";
      if (!n.line_text.empty()) out << n.line_text << "\n" << CaretLine(n.line_text, n.col) << "\n";
    }
  }
  return out.str();
}

std::string JsonReport(const RunSummary& run) {
  using nlohmann::json;
  json findings = json::array();
  for (const Finding& f : run.findings) {
    json notes = json::array();
    for (const Note& n : f.notes)
      notes.push_back({{"file", n.file}, {"line", n.line}, {"col", n.col}, {"message", n.message}});
    json fixes = json::array();
    for (const Replacement& r : f.fixes)
      fixes.push_back(
          {{"file", r.file}, {"offset", r.offset}, {"length", r.length}, {"text", r.text}});
    findings.push_back({{"check", f.check},
                        {"file", f.file},
                        {"line", f.line},
                        {"col", f.col},
                        {"message", f.message},
                        {"function", f.function},
                        {"level", IsError(run, f) ? "error" : "warning"},
                        {"fingerprint", f.fingerprint},
                        {"notes", notes},
                        {"fixes", fixes}});
  }
  json failed = json::array();
  // partial: the TU has compile errors but its recovered AST was checked (its
  // findings are in "findings", maybe not all of them).
  for (const FailedUnit& u : run.failed)
    failed.push_back({{"file", u.file}, {"errors", u.errors}, {"partial", u.partial}});
  json checks = json::array();
  for (const CheckInfo& info : run.enabled_checks) checks.push_back(info.name);
  json doc = {{"tether_check", 1},          {"checks", checks},
              {"units", run.units},         {"suppressed", run.suppressed},
              {"baselined", run.baselined}, {"findings", findings},
              {"failed_units", failed}};
  return doc.dump(2) + "\n";
}

std::string ExportFixesYaml(const RunSummary& run, const std::string& main_file,
                            const std::string& build_dir) {
  std::ostringstream out;
  out << "---\nMainSourceFile:  " << YamlQuote(main_file) << "\nDiagnostics:\n";
  bool any = false;
  for (const Finding& f : run.findings) {
    if (f.fixes.empty()) continue;
    any = true;
    out << "  - DiagnosticName:  " << f.check << "\n"
        << "    DiagnosticMessage:\n"
        << "      Message:         " << YamlQuote(f.message) << "\n"
        << "      FilePath:        " << YamlQuote(f.file) << "\n"
        << "      FileOffset:      " << f.offset << "\n"
        << "      Replacements:\n";
    for (const Replacement& r : f.fixes) {
      out << "        - FilePath:        " << YamlQuote(r.file) << "\n"
          << "          Offset:          " << r.offset << "\n"
          << "          Length:          " << r.length << "\n"
          << "          ReplacementText: " << YamlQuote(r.text) << "\n";
    }
    out << "    Level:           " << (IsError(run, f) ? "Error" : "Warning") << "\n"
        << "    BuildDirectory:  " << YamlQuote(build_dir) << "\n";
  }
  if (!any) out.seekp(-1, std::ios_base::cur), out << " []\n";
  out << "...\n";
  return out.str();
}

}  // namespace tether::check
