// `tether report INPUT --format json|dot|svg|html|perfetto|timeline-svg|text [-o OUT]`: renders a
// trace or a static graph (docs/reports.md). Exit: 0 no findings, 1 the input
// has findings (zombies, leaks, unwaited groups, checker findings), 2 usage,
// input or tool error (the report is then not written).
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "command_args.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "tether/cli/options.hpp"
#include "tether/duration.hpp"
#include "tether/graph/input.hpp"
#include "tether/graph/static_join.hpp"
#include "tether/graph/writers.hpp"
#include "thread_sites.hpp"

namespace tether::tool {
namespace {

int Usage(const std::string& problem) {
  std::cerr << "tether report: " << problem << "\n" << kReportUsage;
  return kExitError;
}

// Writes through a temporary file renamed into place, so a failed report
// never leaves a half-written OUT behind.
class ReportOutput {
 public:
  explicit ReportOutput(std::string path) : path_(std::move(path)) {}
  ~ReportOutput() {
    if (!committed_ && !tmp_.empty()) std::remove(tmp_.c_str());
  }
  std::ostream* Open(std::string* error) {
    if (path_.empty() || path_ == "-") return &std::cout;
    tmp_ = path_ + ".tmp." + std::to_string(::getpid());
    file_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!file_) {
      *error = "cannot write " + path_ + ": " + std::strerror(errno);
      return nullptr;
    }
    return &file_;
  }
  bool Commit(std::string* error) {
    if (path_.empty() || path_ == "-") {
      std::cout.flush();
      return static_cast<bool>(std::cout);
    }
    file_.close();
    if (!file_ || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      *error = "cannot write " + path_ + ": " + std::strerror(errno);
      return false;
    }
    committed_ = true;
    return true;
  }

 private:
  std::string path_;
  std::string tmp_;
  std::ofstream file_;
  bool committed_ = false;
};

// Writes the report in `format` (all rendering that can fail before OUT is
// touched is done by then: svg holds `dot`'s output).
Error WriteFormat(const std::string& format, const graph::ScopeGraph& sg,
                  const graph::Analyses& analyses, const graph::DisplayGraph& display,
                  const std::string& svg, const graph::StaticJoin* joined, std::size_t group_above,
                  std::ostream& out) {
  if (format == "json") {
    graph::WriteJson(sg, analyses, out, joined);
  } else if (format == "dot") {
    graph::WriteDot(sg, display, out);
  } else if (format == "svg") {
    out << svg;
  } else if (format == "html") {
    graph::WriteHtml(sg, analyses, display, svg, out, joined);
  } else if (format == "text") {
    graph::WriteJoinText(sg, *joined, out);
  } else if (format == "timeline-svg") {
    graph::WriteTimelineSvg(sg, analyses, group_above, nullptr, out);
  } else {
    return graph::WritePerfetto(sg, out);
  }
  return Error();
}

// Renders sg in format and writes it to output (stdout when empty): 0, or 2
// after saying why on stderr. OUT is only touched once the rendering worked.
int WriteReport(const std::string& format, const std::string& output, const graph::ScopeGraph& sg,
                const graph::Analyses& analyses, const graph::StaticJoin* joined,
                std::size_t group_above) {
  // Render fully before touching OUT (svg/html need `dot` to succeed first).
  std::string svg;
  graph::DisplayGraph display;
  if (format == "dot" || format == "svg" || format == "html") {
    display = graph::MakeDisplayGraph(sg, group_above, &analyses);
  }
  if (format == "svg" || format == "html") {
    std::ostringstream dot;
    graph::WriteDot(sg, display, dot);
    if (Error err = graph::RenderSvg(dot.str(), &svg); !err.ok()) {
      std::cerr << "tether report: " << err.message() << "\n";
      return kExitError;
    }
  }
  if ((format == "perfetto" || format == "timeline-svg") &&
      sg.source != graph::SourceKind::kTrace) {
    std::cerr << "tether report: --format " << format
              << " needs a trace: a static graph has no times "
                 "(use json, dot, svg or html)\n";
    return kExitError;
  }

  ReportOutput sink(output);
  std::string problem;
  std::ostream* out = sink.Open(&problem);
  if (!out) {
    std::cerr << "tether report: " << problem << "\n";
    return kExitError;
  }
  if (Error err = WriteFormat(format, sg, analyses, display, svg, joined, group_above, *out);
      !err.ok()) {
    std::cerr << "tether report: " << err.message() << "\n";
    return kExitError;
  }
  if (!sink.Commit(&problem)) {
    std::cerr << "tether report: " << problem << "\n";
    return kExitError;
  }
  return kExitClean;
}

}  // namespace

int RunReport(int argc, char** argv) {
  ReportArgs args;
  args.group_above = graph::kGroupTasksAbove;
  cli::Options cli;
  DeclareReportOptions(&cli, &args);
  if (std::string problem = cli.Parse(argc, argv); !problem.empty()) return Usage(problem);
  if (cli.Help()) {
    std::cout << kReportUsage;
    return kExitClean;
  }
  const std::vector<std::string>& inputs = args.inputs;
  if (inputs.size() > 1)
    return Usage("more than one input ('" + inputs[0] + "' and '" + inputs[1] + "')");
  const std::string input = inputs.empty() ? "" : inputs[0];
  const std::string &format = args.format, &static_path = args.static_path;
  const auto group_above = static_cast<std::size_t>(args.group_above);
  graph::LoadOptions options;
  options.grace_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(args.grace).count();
  options.prepare_trace = ResolveThreadSites;  // the sites tether trace names
  if (input.empty()) return Usage("no input given");
  if (format == "text" && static_path.empty())
    return Usage("--format text needs --static GRAPH.json");

  graph::ScopeGraph sg;
  if (Error err = graph::LoadScopeGraph(input, options, &sg); !err.ok()) {
    std::cerr << "tether report: " << (err.message().empty() ? err.ToString() : err.message())
              << "\n";
    return kExitError;
  }
  graph::Analyses analyses = graph::AnalyzeGraph(sg);
  std::optional<graph::StaticJoin> join;
  if (!static_path.empty()) {
    if (sg.source != graph::SourceKind::kTrace) {
      return Usage("--static joins a static graph to a trace: INPUT must be a trace");
    }
    graph::StaticGraph checker;
    if (Error err = graph::LoadStaticGraphFile(static_path, &checker); !err.ok()) {
      std::cerr << "tether report: " << (err.message().empty() ? err.ToString() : err.message())
                << "\n";
      return kExitError;
    }
    join = graph::JoinStatic(sg, analyses, checker, static_path);
  }
  const graph::StaticJoin* joined = join ? &*join : nullptr;

  if (int rc = WriteReport(format, args.output, sg, analyses, joined, group_above); rc != 0) {
    return rc;
  }
  if (sg.truncated)
    std::cerr << "tether report: warning: " << input
              << " is truncated (the program did not exit cleanly)\n";
  if (sg.lost_events)
    std::cerr << "tether report: warning: " << sg.lost_events
              << " events were lost while tracing\n";
  return sg.findings.empty() ? kExitClean : kExitFindings;
}

}  // namespace tether::tool
