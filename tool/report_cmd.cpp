// `tether report INPUT --format json|dot|svg|html|perfetto|timeline-svg|text [-o OUT]`: renders a
// trace or a static graph (docs/reports.md). Exit: 0 no findings, 1 the input
// has findings (zombies, leaks, unwaited groups, checker findings), 2 usage,
// input or tool error (the report is then not written).
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "command_args.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "tether/cli/options.hpp"
#include "tether/duration.hpp"
#include "tether/graph/input.hpp"
#include "tether/graph/static_join.hpp"
#include "tether/graph/writers.hpp"
#include "tether/io/write_file.hpp"
#include "thread_sites.hpp"

namespace tether::tool {
namespace {

int Usage(const std::string& problem) {
  std::cerr << "tether report: " << problem << "\n" << kReportUsage;
  return kExitError;
}

// Where a report goes: standard output (no -o, or "-"), or a file written
// whole or not at all (io::WriteFileAtomically), so a failed report never
// leaves half a file behind. The report is built in memory first: the
// largest (HTML of a 10^5-task trace) is tens of megabytes.
class ReportOutput {
 public:
  explicit ReportOutput(std::string path) : path_(std::move(path)) {}
  std::ostream& stream() { return ToStdout() ? std::cout : buffer_; }
  bool Commit(std::string* error) {
    if (ToStdout()) {
      std::cout.flush();
      if (!std::cout) *error = "cannot write the report to standard output";
      return static_cast<bool>(std::cout);
    }
    if (std::optional<io::WriteError> e = io::WriteFileAtomically(path_, buffer_.str())) {
      *error = "cannot write " + path_ + ": " + e->message;
      return false;
    }
    return true;
  }

 private:
  bool ToStdout() const { return path_.empty() || path_ == "-"; }
  std::string path_;
  std::ostringstream buffer_;
};

// What a report format is given to write.
struct FormatInput {
  const graph::ScopeGraph& sg;
  const graph::Analyses& analyses;
  const graph::DisplayGraph& display;  // made when the format has display_graph
  const std::string& svg;              // dot's output when the format has needs_graphviz
  const graph::StaticJoin* joined;     // --static, when given
  std::size_t group_above;
};

// The report formats: the one place a format's name is read, with what it
// needs and how it is written (--format's choices are these names).
struct ReportFormat {
  const char* name;
  bool needs_trace;     // it shows times, which a static graph has not
  bool needs_static;    // it shows the join of --static with the trace
  bool display_graph;   // it draws the (grouped) scope graph
  bool needs_graphviz;  // it embeds the graph rendered to SVG by `dot`
  Error (*write)(const FormatInput& in, std::ostream& out);
};

constexpr ReportFormat kReportFormats[] = {
    {"json", false, false, false, false,
     [](const FormatInput& in, std::ostream& out) {
       graph::WriteJson(in.sg, in.analyses, out, in.joined);
       return Error();
     }},
    {"dot", false, false, true, false,
     [](const FormatInput& in, std::ostream& out) {
       graph::WriteDot(in.sg, in.display, out);
       return Error();
     }},
    {"svg", false, false, true, true,
     [](const FormatInput& in, std::ostream& out) {
       out << in.svg;
       return Error();
     }},
    {"html", false, false, true, true,
     [](const FormatInput& in, std::ostream& out) {
       graph::WriteHtml(in.sg, in.analyses, in.display, in.svg, out, in.joined);
       return Error();
     }},
    {"perfetto", true, false, false, false,
     [](const FormatInput& in, std::ostream& out) { return graph::WritePerfetto(in.sg, out); }},
    {"timeline-svg", true, false, false, false,
     [](const FormatInput& in, std::ostream& out) {
       graph::WriteTimelineSvg(in.sg, in.analyses, in.group_above, nullptr, out);
       return Error();
     }},
    {"text", true, true, false, false,
     [](const FormatInput& in, std::ostream& out) {
       graph::WriteJoinText(in.sg, *in.joined, out);
       return Error();
     }},
};

// The table has every name --format accepts, in its order.
constexpr bool SameNames() {
  if (std::size(kReportFormats) != std::size(kReportFormatNames)) return false;
  for (std::size_t i = 0; i < std::size(kReportFormats); ++i)
    if (std::string_view(kReportFormats[i].name) != kReportFormatNames[i]) return false;
  return true;
}
static_assert(SameNames(), "kReportFormats and kReportFormatNames name the same formats");

const ReportFormat& FormatNamed(const std::string& name) {
  for (const ReportFormat& f : kReportFormats)
    if (name == f.name) return f;
  return kReportFormats[0];  // not reached: --format is a choice of kReportFormatNames
}

// "json, dot, svg or html": the formats a static graph can be written in.
std::string StaticGraphFormats() {
  std::vector<std::string> names;
  for (const ReportFormat& f : kReportFormats)
    if (!f.needs_trace) names.push_back(f.name);
  return cli::Alternatives(names);
}

// Renders sg in format and writes it to output (stdout when empty): 0, or 2
// after saying why on stderr. OUT is only touched once the rendering worked.
int WriteReport(const ReportFormat& format, const std::string& output, const graph::ScopeGraph& sg,
                const graph::Analyses& analyses, const graph::StaticJoin* joined,
                std::size_t group_above) {
  if (format.needs_trace && sg.source != graph::SourceKind::kTrace) {
    std::cerr << "tether report: --format " << format.name
              << " needs a trace: a static graph has no times (use " << StaticGraphFormats()
              << ")\n";
    return kExitError;
  }
  // Render fully before touching OUT (svg/html need `dot` to succeed first).
  std::string svg;
  graph::DisplayGraph display;
  if (format.display_graph) display = graph::MakeDisplayGraph(sg, group_above, &analyses);
  if (format.needs_graphviz) {
    std::ostringstream dot;
    graph::WriteDot(sg, display, dot);
    if (Error err = graph::RenderSvg(dot.str(), &svg); !err.ok()) {
      std::cerr << "tether report: " << err.message() << "\n";
      return kExitError;
    }
  }

  ReportOutput sink(output);
  std::string problem;
  const FormatInput in{sg, analyses, display, svg, joined, group_above};
  if (Error err = format.write(in, sink.stream()); !err.ok()) {
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
  if (std::string problem = cli.Parse(argc, argv); !problem.empty()) {
    if (cli.UsageHelps()) return Usage(problem);
    std::cerr << "tether report: error: " << problem << "\n";
    return kExitError;
  }
  if (cli.Help()) {
    std::cout << kReportUsage;
    return kExitClean;
  }
  const std::vector<std::string>& inputs = args.inputs;
  if (inputs.size() > 1)
    return Usage("more than one input ('" + inputs[0] + "' and '" + inputs[1] + "')");
  const std::string input = inputs.empty() ? "" : inputs[0];
  const ReportFormat& format = FormatNamed(args.format);
  const std::string& static_path = args.static_path;
  const auto group_above = static_cast<std::size_t>(args.group_above);
  graph::LoadOptions options;
  options.grace_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(args.grace).count();
  options.prepare_trace = ResolveThreadSites;  // the sites tether trace names
  if (input.empty()) return Usage("no input given");
  if (format.needs_static && static_path.empty())
    return Usage(std::string("--format ") + format.name + " needs --static GRAPH.json");

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
