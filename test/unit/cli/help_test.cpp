// Every command of both binaries against its --help text: each option the
// command declares is named in it, and each option the text names is one the
// command declares (a stale or missing line fails here, not in a user's CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cmd/flags.hpp"
#include "cmd/serve.hpp"
#include "cmd/validate.hpp"
#include "command_args.hpp"
#include "tether/cli/options.hpp"

namespace tether::cli {
namespace {

struct HelpCase {
  std::string command;
  std::string usage;
  std::function<void(Options*)> declare;
};

std::vector<HelpCase> AllCommands() {
  std::vector<HelpCase> cases;
  cases.push_back({"tether check", tool::kCheckUsage, [](Options* cli) {
                     static tool::CheckArgs args;
                     tool::DeclareCheckOptions(cli, &args);
                   }});
  cases.push_back({"tether trace", tool::kTraceUsage, [](Options* cli) {
                     static tool::TraceArgs args;
                     tool::DeclareTraceOptions(cli, &args);
                   }});
  cases.push_back({"tether report", tool::kReportUsage, [](Options* cli) {
                     static tool::ReportArgs args;
                     tool::DeclareReportOptions(cli, &args);
                   }});
  std::vector<worker::cmd::CommandHelp> worker = {worker::cmd::RunHelp(), worker::cmd::ServeHelp(),
                                                  worker::cmd::ValidateHelp()};
  for (auto& c : worker::cmd::ClientHelps()) worker.push_back(std::move(c));
  for (auto& c : worker) cases.push_back({"tether-worker " + c.name, c.usage, c.declare});
  return cases;
}

// The option names a usage text mentions ("--grace", "-j", "-o"), but not
// another program's in an example ("git diff -U0", "tether check --graph F").
std::set<std::string> NamedIn(const std::string& usage) {
  static const std::regex kOption(R"((^|[\s\[,(|/])(--?[a-zA-Z][a-zA-Z0-9-]*))");
  static const std::regex kOtherCommand(R"((git diff|tether check|tether-worker run) $)");
  std::set<std::string> names;
  for (std::sregex_iterator it(usage.begin(), usage.end(), kOption), end; it != end; ++it) {
    const std::string before = usage.substr(0, static_cast<std::size_t>(it->position(2)));
    if (std::regex_search(before, kOtherCommand)) continue;
    names.insert((*it)[2].str());
  }
  return names;
}

TEST(CommandHelp, EveryDeclaredOptionIsInTheUsage) {
  for (const HelpCase& c : AllCommands()) {
    Options cli;
    c.declare(&cli);
    const std::set<std::string> named = NamedIn(c.usage);
    for (const std::string& name : cli.Names()) {
      if (name == "-h" || name == "--help") continue;  // every command has it
      EXPECT_TRUE(named.count(name)) << c.command << " --help does not name " << name;
    }
  }
}

TEST(CommandHelp, EveryOptionTheUsageNamesIsDeclared) {
  for (const HelpCase& c : AllCommands()) {
    Options cli;
    c.declare(&cli);
    const std::vector<std::string> declared = cli.Names();
    for (const std::string& name : NamedIn(c.usage))
      EXPECT_NE(std::find(declared.begin(), declared.end(), name), declared.end())
          << c.command << " --help names " << name << ", which it does not declare";
  }
}

// The test can fail: a usage without one of the command's options.
TEST(CommandHelp, AMissingOptionIsFound) {
  Options cli;
  std::string out;
  cli.Text("--out", &out, "a file");
  const std::set<std::string> named =
      NamedIn("usage: cmd [--output F]\n  --output F  where (see tether check --graph)\n");
  EXPECT_FALSE(named.count("--out"));
  EXPECT_TRUE(named.count("--output"));
  EXPECT_FALSE(named.count("--graph"));
}

}  // namespace
}  // namespace tether::cli
