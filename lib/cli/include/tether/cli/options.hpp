// A subcommand's options, declared once each with CLI11: `--f=v` and `--f v`
// both work, an option given twice, an unknown option, a missing or refused
// value all become one line in Tether's words ("tether report: --grace needs a
// duration such as 50ms or 2s") that the caller prints above its usage text
// and exits 2 on. The usage text stays the command's own (--help prints it).
#pragma once

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tether/duration.hpp"

namespace tether::cli {

class Options {
 public:
  Options() {
    app_.set_help_flag();  // --help is a flag of its own: the command prints its usage
    app_.allow_extras();   // unknown options are named by Parse, in our words
    app_.add_flag("-h,--help", help_);
  }

  // A single-valued option; needs: the message for a missing or bad value.
  CLI::Option* Text(const std::string& names, std::string* into, std::string needs) {
    return Track(app_.add_option(names, *into), std::move(needs));
  }
  // A non-negative duration in Go's syntax (tether::ParseDuration).
  CLI::Option* NonNegativeDuration(const std::string& names, Duration* into, std::string needs) {
    CLI::Option* o = app_.add_option_function<std::string>(names, [into](const std::string& text) {
      (void)ParseDuration(text, into);  // the check below has refused what does not parse
    });
    o->check(CLI::Validator(
        [](std::string& text) -> std::string {
          Duration d{};
          if (!ParseDuration(text, &d).ok() || d < Duration::zero()) return "not a non-negative duration";
          return "";
        },
        "DURATION"));
    return Track(o, std::move(needs));
  }
  // A count: digits only; one beyond std::uint64_t is refused as too large.
  CLI::Option* Count(const std::string& names, std::uint64_t* into, std::string needs) {
    std::string label = names.substr(names.rfind(',') + 1);  // the long name ("-o,--output")
    CLI::Option* o = app_.add_option_function<std::string>(names, [this, into, label](const std::string& text) {
      errno = 0;
      unsigned long long n = std::strtoull(text.c_str(), nullptr, 10);
      if (errno == ERANGE) {
        late_problem_ = label + ": " + text + " is too large (at most " +
                        std::to_string(std::numeric_limits<std::uint64_t>::max()) + ")";
        return;
      }
      *into = n;
    });
    o->check(CLI::Validator(
        [](std::string& text) -> std::string {
          return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos ? "" : "not a count";
        },
        "N"));
    return Track(o, std::move(needs));
  }
  // Refuses an empty value ("--static ''"), with the option's needs message.
  static CLI::Validator NonEmpty() {
    return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "empty" : ""; }, "");
  }
  // The operands (everything that is not an option).
  void Operands(std::vector<std::string>* into) { app_.add_option("operands", *into); }

  // "" when argv parsed; otherwise the problem, in one line. Options given
  // twice are refused: a repeat is a mistake, not an override.
  std::string Parse(int argc, char** argv) {
    try {
      app_.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return Explain(e);
    }
    if (!late_problem_.empty()) return late_problem_;
    for (const std::string& extra : app_.remaining())
      if (extra.size() > 1 && extra[0] == '-') return "unknown option '" + extra + "'";
    return "";
  }
  bool Help() const { return help_; }

 private:
  CLI::Option* Track(CLI::Option* o, std::string needs) {
    needs_[o] = std::move(needs);
    return o;
  }
  // CLI11 names the option first ("--grace: ..."); the kind of error says
  // whether it was repeated or lacked a good value.
  std::string Explain(const CLI::ParseError& e) {
    std::string what = e.what();
    std::string name = what.substr(0, what.find(':'));
    for (const auto& [option, needs] : needs_) {
      if (!option->check_name(name)) continue;
      if (what.find("At Most") != std::string::npos) return option->get_name() + " given twice";
      return needs;
    }
    return what;
  }

  CLI::App app_;
  bool help_ = false;
  std::string late_problem_;  // found while converting a value (a count too large)
  std::map<CLI::Option*, std::string> needs_;
};

}  // namespace tether::cli
