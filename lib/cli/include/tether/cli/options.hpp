// A subcommand's options, declared once each with CLI11: `--f=v` and `--f v`
// both work, an option given twice, an unknown option, a missing or refused
// value all become one line in Tether's words ("tether report: --grace needs a
// duration such as 50ms or 2s") that the caller prints above its usage text
// and exits 2 on. The usage text stays the command's own (--help prints it).
//
// Each option has two messages: `missing` (no value after it) and `bad` (a
// value its check refused). An empty `bad` lets the check's own message
// through: a check returns a whole line ("--grace: invalid duration ...").
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tether/duration.hpp"

namespace tether::cli {

// How a command names an unknown option: `tether` quotes it ("unknown option
// '--bogus'"), `tether-worker` does not ("unknown option --bogus").
enum class Style { kQuoted, kBare };

class Options {
 public:
  // Returns "" for a good value, else the whole message.
  using Refusal = std::function<std::string(const std::string& text)>;

  explicit Options(Style style = Style::kQuoted) : style_(style) {
    app_.set_help_flag();  // --help is a flag of its own: the command prints its usage
    app_.allow_extras();   // unknown options are named by Parse, in our words
    app_.add_flag("-h,--help", help_);
  }

  // A single-valued option; needs: the message for a missing or bad value.
  CLI::Option* Text(const std::string& names, std::string* into, std::string needs) {
    return Track(app_.add_option(names, *into), names, needs, needs);
  }
  // A single-valued option whose refused values are explained by `refuse`.
  CLI::Option* Checked(const std::string& names, std::string* into, std::string missing,
                       Refusal refuse) {
    CLI::Option* o = Track(app_.add_option(names, *into), names, std::move(missing), "");
    return o->check(Check(std::move(refuse)));
  }
  // A value to convert: `refuse` explains a bad one, `apply` stores a good one.
  CLI::Option* Converted(const std::string& names, std::string missing, Refusal refuse,
                         std::function<void(const std::string&)> apply) {
    CLI::Option* o = app_.add_option_function<std::string>(names, std::move(apply));
    return Track(o, names, std::move(missing), "")->check(Check(std::move(refuse)));
  }
  // An option that may be given any number of times (--model A --model B).
  CLI::Option* Repeated(const std::string& names, std::vector<std::string>* into,
                        std::string missing) {
    CLI::Option* o =
        app_.add_option(names, *into)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    o->expected(1)->allow_extra_args(false);
    Track(o, names, std::move(missing), "");
    repeatable_.push_back(o);
    return o;
  }
  // A flag without a value (--quiet); given twice is refused like any option.
  CLI::Option* Flag(const std::string& names, bool* into) {
    CLI::Option* o = Track(app_.add_flag(names, *into), names, "", "");
    flags_.insert(o);
    return o;
  }
  // A Go duration (tether::ParseDuration) that `limit` accepts: `limit`
  // returns "" or the whole message. A text that is no duration reads
  // "NAME: invalid duration ..." (the parser's words).
  CLI::Option* DurationValue(const std::string& names, Duration* into, std::string missing,
                             std::function<std::string(Duration, const std::string&)> limit) {
    std::string label = FirstName(names);
    Refusal refuse = [label, limit](const std::string& text) -> std::string {
      Duration d{};
      if (Error err = ParseDuration(text, &d); !err.ok()) return label + ": " + err.message();
      return limit(d, text);
    };
    return Converted(names, std::move(missing), std::move(refuse),
                     [into](const std::string& text) { (void)ParseDuration(text, into); });
  }
  // A non-negative duration in Go's syntax (tether::ParseDuration).
  CLI::Option* NonNegativeDuration(const std::string& names, Duration* into, std::string needs) {
    CLI::Option* o = DurationValue(names, into, needs, [](Duration d, const std::string&) {
      return d < Duration::zero() ? "negative" : "";
    });
    needs_[o].bad = needs;
    return o;
  }
  // A count: digits only; one beyond std::uint64_t is refused as too large.
  CLI::Option* Count(const std::string& names, std::uint64_t* into, std::string needs) {
    std::string label = FirstName(names);
    CLI::Option* o = Converted(
        names, needs,
        [label](const std::string& text) -> std::string {
          if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
            return "not a count";
          errno = 0;
          (void)std::strtoull(text.c_str(), nullptr, 10);
          if (errno == ERANGE)
            return label + ": " + text + " is too large (at most " +
                   std::to_string(std::numeric_limits<std::uint64_t>::max()) + ")";
          return "";
        },
        [into](const std::string& text) { *into = std::strtoull(text.c_str(), nullptr, 10); });
    // A count too large says so; any other refusal is the option's need.
    count_needs_[o] = needs;
    return o;
  }
  // Refuses an empty value ("--static ''"), with the option's needs message.
  static CLI::Validator NonEmpty() {
    return CLI::Validator(
        [](std::string& text) -> std::string { return text.empty() ? "empty" : ""; }, "");
  }
  // The operands (everything that is not an option).
  void Operands(std::vector<std::string>* into) {
    operands_ = into;
    app_.add_option("operands", *into);
  }
  // What follows a "--" (a compiler's arguments), kept apart from the
  // operands; *seen says whether there was a "--".
  void AfterDashes(std::vector<std::string>* into, bool* seen) {
    after_dashes_ = into;
    saw_dashes_ = seen;
  }
  // A command to run: the first operand and everything after it, options
  // included (`tether trace prog -x`), or all that follows "--".
  void Command(std::vector<std::string>* into) {
    command_ = into;
    app_.prefix_command();
  }

  // "" when argv parsed; otherwise the problem, in one line. Options given
  // twice are refused: a repeat is a mistake, not an override.
  std::string Parse(int argc, char** argv) {
    std::vector<std::string> args = Attached(argc, argv);
    std::reverse(args.begin(), args.end());  // CLI11 takes them reversed
    try {
      app_.parse(args);
    } catch (const CLI::ParseError& e) {
      return Explain(e);
    }
    for (const auto& [option, messages] : needs_) {
      bool repeatable =
          std::find(repeatable_.begin(), repeatable_.end(), option) != repeatable_.end();
      if (!repeatable && option->count() > 1) return messages.label + " given twice";
    }
    std::vector<std::string> rest = app_.remaining();
    if (command_) {
      if (!rest.empty() && rest[0] == "--") {
        command_->assign(rest.begin() + 1, rest.end());
        return "";
      }
      if (!rest.empty() && rest[0].size() > 1 && rest[0][0] == '-') return Unknown(rest[0]);
      *command_ = rest;
      return "";
    }
    for (const std::string& extra : rest)
      if (extra.size() > 1 && extra[0] == '-') return Unknown(extra);
    // After "--": a compiler's arguments (AfterDashes), else operands
    // even when they start with '-'.
    std::vector<std::string>* tail = after_dashes_ ? after_dashes_ : operands_;
    if (tail) tail->insert(tail->end(), dashes_tail_.begin(), dashes_tail_.end());
    return "";
  }
  bool Help() const { return help_; }

 private:
  struct Messages {
    std::string label;  // the first name declared: what "given twice" names
    std::string missing;
    std::string bad;  // "": the check's own message
  };
  // argv with a value that starts with '-' attached to its option
  // ("--grace=-1s", "-j-1"): the word after an option that takes a value is
  // its value, as before CLI11 (which would read "-1m" as an option). Stops at "--"
  // (what follows goes to AfterDashes or stays operands) and, for a
  // Command, at its first word.
  std::vector<std::string> Attached(int argc, char** argv) {
    std::vector<std::string> args;
    int i = 1;
    for (; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--" || (command_ && (arg.empty() || arg[0] != '-'))) break;
      if (i + 1 < argc && argv[i + 1][0] == '-' && TakesValue(arg)) {
        args.push_back(arg + (arg.rfind("--", 0) == 0 ? "=" : "") + argv[++i]);
      } else if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=' &&
                 TakesValue(arg.substr(0, arg.size() - 1))) {
        // "--f=": an empty value (`--warnings-as-errors=`). CLI11 would
        // take the next word for the value; it gets the empty word instead.
        args.push_back(arg.substr(0, arg.size() - 1));
        args.push_back("");
      } else {
        args.push_back(arg);
      }
    }
    if (i < argc && !command_ && std::string(argv[i]) == "--") {
      if (saw_dashes_) *saw_dashes_ = true;
      dashes_tail_.assign(argv + i + 1, argv + argc);
      return args;
    }
    args.insert(args.end(), argv + i, argv + argc);
    return args;
  }
  bool TakesValue(const std::string& arg) const {
    if (arg.size() < 2 || arg[0] != '-' || arg.find('=') != std::string::npos) return false;
    if (arg[1] != '-' && arg.size() != 2) return false;  // "-j4" has its value
    for (const auto& [option, messages] : needs_)
      if (!flags_.count(option) && option->check_name(arg)) return true;
    return false;
  }
  static std::string FirstName(const std::string& names) {
    return names.substr(0, names.find(','));
  }
  static CLI::Validator Check(Refusal refuse) {
    return CLI::Validator([refuse](std::string& text) { return refuse(text); }, "");
  }
  CLI::Option* Track(CLI::Option* o, const std::string& names, std::string missing,
                     std::string bad) {
    needs_[o] = Messages{FirstName(names), std::move(missing), std::move(bad)};
    return o;
  }
  std::string Unknown(const std::string& arg) const {
    if (style_ == Style::kQuoted) return "unknown option '" + arg + "'";
    return "unknown option " + arg.substr(0, arg.find('='));
  }
  // CLI11 names the option first ("--grace: ..."); the kind of error says
  // whether it was repeated, lacked a value or had a refused one.
  std::string Explain(const CLI::ParseError& e) {
    std::string what = e.what();
    std::string name = what.substr(0, what.find(':'));
    for (const auto& [option, messages] : needs_) {
      if (!option->check_name(name)) continue;
      if (what.find("At Most") != std::string::npos) return messages.label + " given twice";
      const bool refused = dynamic_cast<const CLI::ValidationError*>(&e) != nullptr;
      if (!refused) return messages.missing;
      if (auto count = count_needs_.find(option); count != count_needs_.end()) {
        std::string because = what.substr(what.find(": ") + 2);
        return because.rfind(messages.label + ": ", 0) == 0 ? because : count->second;
      }
      if (!messages.bad.empty()) return messages.bad;
      return what.substr(what.find(": ") + 2);  // the check's whole message
    }
    return what;
  }

  CLI::App app_;
  Style style_;
  bool help_ = false;
  std::map<CLI::Option*, Messages> needs_;
  std::map<CLI::Option*, std::string> count_needs_;
  std::vector<CLI::Option*> repeatable_;
  std::set<CLI::Option*> flags_;
  std::vector<std::string>* after_dashes_ = nullptr;
  bool* saw_dashes_ = nullptr;
  std::vector<std::string>* command_ = nullptr;
  std::vector<std::string>* operands_ = nullptr;
  std::vector<std::string> dashes_tail_;  // what followed "--"
};

}  // namespace tether::cli
