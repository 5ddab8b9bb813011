// The subcommands of `tether`. Each returns the process exit code:
// 0 clean, 1 findings (zombies, leaks, diagnostics), 2 usage or tool error.
#pragma once

#include <iosfwd>
#include <set>
#include <string>
#include <string_view>

namespace tether::tool {

int RunCheck(int argc, char** argv);   // check_cmd.cpp (or check_disabled.cpp)
int RunTrace(int argc, char** argv);   // trace_cmd.cpp
int RunReport(int argc, char** argv);  // report_cmd.cpp
int PrintVersion(std::ostream& out);   // version.cpp

// Remembers the options a subcommand has seen, so that one given twice is
// refused ("--format given twice") instead of the last one silently winning.
// Repeatable options (--model, --exclude) are simply not recorded.
class SeenFlags {
 public:
  // False when `flag` (its canonical name) was seen before.
  bool First(std::string_view flag) { return seen_.emplace(flag).second; }

 private:
  std::set<std::string, std::less<>> seen_;
};

}  // namespace tether::tool
