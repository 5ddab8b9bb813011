// A command's options, declared once each by the kind of value they take,
// with CLI11 underneath (`--f=v` and `--f v` both work). Every message is
// made here from the option's first name and its kind, so both binaries
// (`tether`, `tether-worker`) speak one vocabulary:
//
//   NAME needs WHAT                    no value after the option
//   NAME needs WHAT, not 'TEXT'        a value the kind refuses
//   NAME needs WHAT, not 'TEXT': WHY   ... where the parser knows more
//   NAME given twice                   a repeat is a mistake, not an override
//   unknown option 'ARG'
//
// WHAT is the kind's description: "a file" (a text option's own words),
// "text, json or sarif" (a choice), "a duration such as 500ms or 2m" (with
// its bound when one is broken: "a duration of at least 100ms"), "a whole
// number from 1 to 1024" (a count), "a size such as 10MiB or 512KiB", "a
// file it can read" (checked on disk when parsed: "--baseline needs a file it
// can read, not 'b.json': no such file"), "a file it can write", "a directory
// it can write in".
// The caller prints the message above its usage text and exits 2.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <list>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "tether/duration.hpp"
#include "tether/error.hpp"
#include "tether/io/output_file.hpp"

namespace tether::cli {

// "10MiB" = 10 * 2^20, "10MB" = 10 * 10^6, "100B" or "100" = 100 bytes;
// fractions in decimal, exactly ("0.52MB" = 520000). Error: kInvalidArgument
// naming the text and what is wrong with it.
Error ParseSize(std::string_view text, std::uint64_t* out);

// "a, b or c": how a choice's values are listed in messages.
std::string Alternatives(const std::vector<std::string>& words);

// The range a duration option accepts. Every duration is at least `min`
// (more than `min` when `above_min`) and at most `max`.
struct DurationBounds {
  Duration min = Duration::zero();
  bool above_min = false;
  Duration max = Duration::max();
  std::string max_text;  // how `max` is written in a message ("876000h (100 years)")

  static DurationBounds AtLeast(Duration least) {
    DurationBounds b;
    b.min = least;
    return b;
  }
  static DurationBounds AboveZero() {
    DurationBounds b;
    b.above_min = true;
    return b;
  }
};

// Whether a text option takes the empty value (`--static ''`).
enum class Empty { kAllowed, kRefused };

// Whether a file option takes "-" for the standard input.
enum class Dash { kRefused, kStdin };

class Options {
 public:
  Options();
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;

  // A text value; `what` says what it is ("a file", "a glob list").
  CLI::Option* Text(const std::string& names, std::string* into, std::string what,
                    Empty empty = Empty::kAllowed);
  // One of `choices`, stored as written.
  CLI::Option* Choice(const std::string& names, std::string* into,
                      std::vector<std::string> choices);
  // A Go duration (tether::ParseDuration) within `bounds`.
  CLI::Option* DurationValue(const std::string& names, Duration* into, DurationBounds bounds = {});
  // A whole number from `min` to `max` (digits only).
  CLI::Option* Count(const std::string& names, std::uint64_t* into, std::uint64_t min = 0,
                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
  CLI::Option* Count(const std::string& names, unsigned* into, std::uint64_t min = 0,
                     std::uint64_t max = std::numeric_limits<unsigned>::max());
  CLI::Option* Count(const std::string& names, int* into, std::uint64_t min = 0,
                     std::uint64_t max = std::numeric_limits<int>::max());
  // A file the command reads, looked at when parsed (io::CheckInputFile: it
  // exists, is a regular file, opens and is within the input limit), so a
  // typo fails before the work starts. With Dash::kStdin "-" is stdin.
  CLI::Option* InputFile(const std::string& names, std::string* into, Dash dash = Dash::kRefused);
  // A file the command writes, looked at when parsed (io::CheckOutputFile:
  // nothing is created or truncated).
  CLI::Option* OutputFile(const std::string& names, std::string* into,
                          io::OutputOptions options = {});
  // A directory the command writes in, made when missing, with its parents
  // or only its last part (io::CheckOutputDirectory).
  CLI::Option* OutputDirectory(const std::string& names, std::string* into,
                               io::Parents parents = io::Parents::kMade);
  // A size in bytes (ParseSize).
  CLI::Option* Size(const std::string& names, std::uint64_t* into);
  // A text option that may be given any number of times (--model A --model B).
  CLI::Option* Repeated(const std::string& names, std::vector<std::string>* into, std::string what);
  // A flag without a value (--quiet).
  CLI::Option* Flag(const std::string& names, bool* into);

  // The operands (everything that is not an option).
  void Operands(std::vector<std::string>* into);
  // What follows a "--" (a compiler's arguments), kept apart from the
  // operands; *seen says whether there was a "--".
  void AfterDashes(std::vector<std::string>* into, bool* seen);
  // A command to run: the first operand and everything after it, options
  // included (`tether trace prog -x`), or all that follows "--".
  void Command(std::vector<std::string>* into);

  // "" when argv parsed (argv[0] is the command's name); otherwise the
  // problem, in one line. Values are stored only when every one is good
  // (flags are set as CLI11 reads them; the caller exits on a problem).
  std::string Parse(int argc, char** argv);
  bool Help() const { return help_; }
  // Whether the usage text helps with the problem Parse returned: not when
  // the line was well formed and a file it names is wrong on disk (a missing
  // --baseline). Such a problem is an input error: one line, "error:".
  bool UsageHelps() const { return usage_helps_; }
  // Every name declared, "-h" and "--help" included ("-p", "--build-dir"):
  // what a test compares with the command's usage text.
  std::vector<std::string> Names() const;

 private:
  struct Declared {
    CLI::Option* option = nullptr;
    std::string label;  // the first name: what messages name
    std::string what;   // the value's description, for a missing value
    // "" for a good text, else the message after "NAME needs ".
    std::function<std::string(const std::string& text)> refuse;
    std::function<void(const std::string& text)> apply;  // stores a good value
    bool repeatable = false;
    bool flag = false;
    bool on_disk = false;             // a path kind: its refusal is about the file, not the line
    std::vector<std::string> values;  // what CLI11 read
  };

  Declared& Declare(const std::string& names, std::string what, bool repeatable);
  // A path looked at on disk: `problem` says what is wrong with it ("" when nothing).
  CLI::Option* PathValue(const std::string& names, std::string* into, std::string what,
                         std::function<std::string(const std::string&)> problem);
  // A count no larger than `top`, the type's largest value.
  CLI::Option* CountInto(const std::string& names, std::uint64_t min, std::uint64_t max,
                         std::uint64_t top, std::function<void(std::uint64_t)> store);
  std::vector<std::string> Attached(int argc, char** argv, std::string* problem);
  const Declared* ValueOption(const std::string& arg) const;
  std::string Unknown(const std::string& arg) const;
  std::string Remaining();

  CLI::App app_;
  bool help_ = false;
  bool usage_helps_ = true;
  std::list<Declared> declared_;  // stable addresses: CLI11 writes into `values`
  std::vector<std::string>* after_dashes_ = nullptr;
  bool* saw_dashes_ = nullptr;
  std::vector<std::string>* command_ = nullptr;
  std::vector<std::string>* operands_ = nullptr;
  std::vector<std::string> dashes_tail_;  // what followed "--"
};

}  // namespace tether::cli
