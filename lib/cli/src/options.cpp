// Tether's option vocabulary over CLI11 (options.hpp).
#include "tether/cli/options.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>

#include "tether/io/read_file.hpp"

namespace tether::cli {

namespace {

Error Invalid(std::string message) {
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

// Reads a non-negative decimal number ("12", "1.5", ".5") at the front of s
// exactly: *whole (saturated just past 2^64, enough to say "too large") and
// the fraction's digits, as written.
bool TakeNumber(std::string_view* s, unsigned __int128* whole, std::string_view* fraction) {
  constexpr unsigned __int128 kSaturate = static_cast<unsigned __int128>(1) << 64;
  std::size_t i = 0;
  *whole = 0;
  while (i < s->size() && std::isdigit(static_cast<unsigned char>((*s)[i]))) {
    if (*whole <= kSaturate) *whole = *whole * 10 + static_cast<unsigned>((*s)[i] - '0');
    ++i;
  }
  std::size_t whole_digits = i, fraction_start = i;
  if (i < s->size() && (*s)[i] == '.') {
    fraction_start = ++i;
    while (i < s->size() && std::isdigit(static_cast<unsigned char>((*s)[i]))) ++i;
  }
  *fraction = s->substr(fraction_start, i - fraction_start);
  if (whole_digits == 0 && fraction->empty()) return false;
  s->remove_prefix(i);
  return true;
}

// fraction (decimal digits after the point) times unit, when that is a whole
// number: from the last digit, each partial sum must be a multiple of ten
// (the product is 0.d1d2...dk * unit = sum(di * unit * 10^(k-i)) / 10^k).
// The carry stays below unit, so no number of digits overflows it:
// "0.0000000931322574615478515625GiB" is exactly 100 bytes.
bool FractionBytes(std::string_view fraction, std::uint64_t unit, std::uint64_t* bytes) {
  std::uint64_t carry = 0;
  for (auto it = fraction.rbegin(); it != fraction.rend(); ++it) {
    carry += static_cast<std::uint64_t>(*it - '0') * unit;
    if (carry % 10 != 0) return false;
    carry /= 10;
  }
  *bytes = carry;
  return true;
}

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

// What a parser says beyond "invalid duration "TEXT"": ": unknown unit ..."
// is kept (after the quoted text), a bare hint in parentheses is not (the
// kind's description already gives examples).
std::string ParserReason(const std::string& message, const std::string& prefix) {
  if (message.rfind(prefix, 0) != 0) return ": " + message;
  std::string rest = message.substr(prefix.size());
  return rest.rfind(": ", 0) == 0 ? rest : "";
}

constexpr const char* kDurationWhat = "a duration such as 500ms or 2m";
constexpr const char* kSizeWhat = "a size such as 10MiB or 512KiB";

bool AllDigits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

// Decimal arithmetic throughout (no binary floating point): "0.52MB" is
// exactly 520000 bytes, "1.5KiB" 1536, and "0.1B" is refused as a fraction
// of a byte rather than rounded.
Error ParseSize(std::string_view text, std::uint64_t* out) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  std::string_view rest = text;
  unsigned __int128 whole;
  std::string_view fraction;
  if (!TakeNumber(&rest, &whole, &fraction)) {
    return Invalid("invalid size " + quoted +
                   " (write it as 10MiB, 512KiB, 100B or a number of bytes)");
  }
  static const std::map<std::string_view, std::uint64_t> kUnits = {
      {"", 1},
      {"B", 1},
      {"KiB", 1ull << 10},
      {"MiB", 1ull << 20},
      {"GiB", 1ull << 30},
      {"TiB", 1ull << 40},
      {"KB", 1'000},
      {"kB", 1'000},
      {"MB", 1'000'000},
      {"GB", 1'000'000'000},
      {"TB", 1'000'000'000'000},
  };
  auto it = kUnits.find(rest);
  if (it == kUnits.end()) {
    return Invalid("invalid size " + quoted + ": unknown unit \"" + std::string(rest) +
                   "\" (units: B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)");
  }
  std::uint64_t fraction_bytes = 0;
  if (!FractionBytes(fraction, it->second, &fraction_bytes)) {
    return Invalid("invalid size " + quoted + ": not a whole number of bytes");
  }
  // whole <= 2^64 * 10 + 9 and a unit < 2^41: the product fits 128 bits.
  const unsigned __int128 bytes = whole * it->second + fraction_bytes;
  if (bytes > std::numeric_limits<std::uint64_t>::max()) {
    return Invalid("invalid size " + quoted + ": too large (the maximum is " +
                   std::to_string(std::numeric_limits<std::uint64_t>::max()) + " bytes)");
  }
  *out = static_cast<std::uint64_t>(bytes);
  return Error();
}

std::string Alternatives(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    out += words[i];
  }
  return out;
}

Options::Options() {
  app_.set_help_flag();  // --help is a flag of its own: the command prints its usage
  app_.allow_extras();   // unknown options are named by Parse, in our words
  app_.add_flag("-h,--help", help_);
}

Options::Declared& Options::Declare(const std::string& names, std::string what, bool repeatable) {
  Declared& d = declared_.emplace_back();
  d.label = names.substr(0, names.find(','));
  d.what = std::move(what);
  d.repeatable = repeatable;
  // Every occurrence is kept, one value each: Parse refuses a repeat of an
  // option that is not repeatable, in its own words.
  d.option = app_.add_option(names, d.values)
                 ->expected(1)
                 ->allow_extra_args(false)
                 ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  return d;
}

CLI::Option* Options::Text(const std::string& names, std::string* into, std::string what,
                           Empty empty) {
  Declared& d = Declare(names, what, false);
  if (empty == Empty::kRefused)
    d.refuse = [what](const std::string& text) {
      return text.empty() ? what + ", not ''" : std::string();
    };
  d.apply = [into](const std::string& text) { *into = text; };
  return d.option;
}

CLI::Option* Options::PathValue(const std::string& names, std::string* into, std::string what,
                                std::function<std::string(const std::string&)> problem) {
  Declared& d = Declare(names, what, false);
  d.on_disk = true;
  d.refuse = [what, problem](const std::string& text) -> std::string {
    const std::string why = problem(text);
    return why.empty() ? "" : what + ", not " + Quoted(text) + ": " + why;
  };
  d.apply = [into](const std::string& text) { *into = text; };
  return d.option;
}

CLI::Option* Options::InputFile(const std::string& names, std::string* into, Dash dash) {
  return PathValue(names, into,
                   dash == Dash::kStdin ? "a file it can read (- for stdin)" : "a file it can read",
                   [dash](const std::string& text) -> std::string {
                     if (dash == Dash::kStdin && text == "-") return "";
                     std::optional<io::ReadError> err = io::CheckInputFile(text);
                     return err ? err->message : "";
                   });
}

CLI::Option* Options::OutputFile(const std::string& names, std::string* into,
                                 io::OutputOptions options) {
  return PathValue(names, into, "a file it can write",
                   [options](const std::string& text) -> std::string {
                     if (text.empty()) return "empty file name";
                     std::optional<io::OutputError> err = io::CheckOutputFile(text, options);
                     return err ? err->message : "";
                   });
}

CLI::Option* Options::OutputDirectory(const std::string& names, std::string* into,
                                      io::Parents parents) {
  return PathValue(names, into, "a directory it can write in", [parents](const std::string& text) {
    std::optional<io::OutputError> err = io::CheckOutputDirectory(text, parents);
    return err ? err->message : std::string();
  });
}

CLI::Option* Options::Choice(const std::string& names, std::string* into,
                             std::vector<std::string> choices) {
  const std::string what = Alternatives(choices);
  Declared& d = Declare(names, what, false);
  d.refuse = [what, choices](const std::string& text) {
    return std::find(choices.begin(), choices.end(), text) != choices.end()
               ? std::string()
               : what + ", not " + Quoted(text);
  };
  d.apply = [into](const std::string& text) { *into = text; };
  return d.option;
}

CLI::Option* Options::DurationValue(const std::string& names, Duration* into,
                                    DurationBounds bounds) {
  if (bounds.max_text.empty()) bounds.max_text = FormatDuration(bounds.max);
  Declared& d = Declare(names, kDurationWhat, false);
  d.refuse = [bounds](const std::string& text) -> std::string {
    const std::string not_text = ", not " + Quoted(text);
    Duration value{};
    if (Error err = ParseDuration(text, &value); !err.ok()) {
      // Past 64 bits of nanoseconds: past this option's maximum too.
      if (err.message().find(": too large") != std::string::npos)
        return "a duration of at most " + bounds.max_text + not_text;
      return kDurationWhat + not_text +
             ParserReason(err.message(), "invalid duration \"" + text + "\"");
    }
    if (bounds.above_min && value <= bounds.min)
      return "a duration above " + FormatDuration(bounds.min) + not_text;
    if (value < bounds.min)
      return "a duration of at least " + FormatDuration(bounds.min) + not_text;
    if (value > bounds.max) return "a duration of at most " + bounds.max_text + not_text;
    return "";
  };
  d.apply = [into](const std::string& text) { (void)ParseDuration(text, into); };
  return d.option;
}

CLI::Option* Options::CountInto(const std::string& names, std::uint64_t min, std::uint64_t max,
                                std::uint64_t top, std::function<void(std::uint64_t)> store) {
  std::string range = "a whole number";
  if (min > 0 && max == top) range += " of at least " + std::to_string(min);
  if (max != top) range += " from " + std::to_string(min) + " to " + std::to_string(max);
  Declared& d = Declare(names, range, false);
  d.refuse = [range, min, max, top](const std::string& text) -> std::string {
    const std::string not_text = ", not " + Quoted(text);
    if (!AllDigits(text)) return range + not_text;
    errno = 0;
    const std::uint64_t n = std::strtoull(text.c_str(), nullptr, 10);
    // Past the type's largest value the range has said nothing of the top.
    if ((errno == ERANGE || n > max) && max == top)
      return "a whole number of at most " + std::to_string(max) + not_text;
    return errno == ERANGE || n > max || n < min ? range + not_text : "";
  };
  d.apply = [store](const std::string& text) { store(std::strtoull(text.c_str(), nullptr, 10)); };
  return d.option;
}

CLI::Option* Options::Count(const std::string& names, std::uint64_t* into, std::uint64_t min,
                            std::uint64_t max) {
  return CountInto(names, min, max, std::numeric_limits<std::uint64_t>::max(),
                   [into](std::uint64_t n) { *into = n; });
}

CLI::Option* Options::Count(const std::string& names, unsigned* into, std::uint64_t min,
                            std::uint64_t max) {
  return CountInto(names, min, max, std::numeric_limits<unsigned>::max(),
                   [into](std::uint64_t n) { *into = static_cast<unsigned>(n); });
}

CLI::Option* Options::Count(const std::string& names, int* into, std::uint64_t min,
                            std::uint64_t max) {
  return CountInto(names, min, max, std::numeric_limits<int>::max(),
                   [into](std::uint64_t n) { *into = static_cast<int>(n); });
}

CLI::Option* Options::Size(const std::string& names, std::uint64_t* into) {
  Declared& d = Declare(names, kSizeWhat, false);
  d.refuse = [](const std::string& text) -> std::string {
    std::uint64_t bytes = 0;
    Error err = ParseSize(text, &bytes);
    if (err.ok()) return "";
    return kSizeWhat + (", not " + Quoted(text)) +
           ParserReason(err.message(), "invalid size \"" + text + "\"");
  };
  d.apply = [into](const std::string& text) { (void)ParseSize(text, into); };
  return d.option;
}

CLI::Option* Options::Repeated(const std::string& names, std::vector<std::string>* into,
                               std::string what) {
  Declared& d = Declare(names, std::move(what), true);
  d.apply = [into](const std::string& text) { into->push_back(text); };
  return d.option;
}

CLI::Option* Options::Flag(const std::string& names, bool* into) {
  Declared& d = declared_.emplace_back();
  d.label = names.substr(0, names.find(','));
  d.flag = true;
  d.option = app_.add_flag(names, *into);
  return d.option;
}

void Options::Operands(std::vector<std::string>* into) {
  operands_ = into;
  app_.add_option("operands", *into);
}

void Options::AfterDashes(std::vector<std::string>* into, bool* seen) {
  after_dashes_ = into;
  saw_dashes_ = seen;
}

void Options::Command(std::vector<std::string>* into) {
  command_ = into;
  app_.prefix_command();
}

std::string Options::Parse(int argc, char** argv) {
  std::string problem;
  std::vector<std::string> args = Attached(argc, argv, &problem);
  if (!problem.empty()) return problem;
  std::reverse(args.begin(), args.end());  // CLI11 takes them reversed
  try {
    app_.parse(args);
  } catch (const CLI::ParseError& e) {
    // Attached has found every missing value; what CLI11 still refuses is a
    // flag given a value (`--quiet=yes`).
    const std::string what = e.what();
    for (const Declared& d : declared_)
      if (d.option->check_name(what.substr(0, what.find(':'))))
        return d.flag ? d.label + " takes no value" : d.label + " needs " + d.what;
    return what;
  }
  for (const Declared& d : declared_)
    if (!d.repeatable && d.option->count() > 1) return d.label + " given twice";
  for (const Declared& d : declared_)
    for (const std::string& text : d.values)
      if (d.refuse)
        if (std::string why = d.refuse(text); !why.empty()) {
          usage_helps_ = !d.on_disk;
          return d.label + " needs " + why;
        }
  for (const Declared& d : declared_)
    for (const std::string& text : d.values) d.apply(text);
  return Remaining();
}

std::vector<std::string> Options::Names() const {
  std::vector<std::string> names;
  for (const CLI::Option* o : app_.get_options()) {
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  }
  return names;
}

// argv with each option's value attached to it ("--grace=-1s", "-j-1"): the
// word after an option that takes a value is its value, even when it starts
// with '-' (CLI11 would read "-1m" as an option). An option with no word
// after it (or "--") lacks its value. Stops at "--" (what follows goes to
// AfterDashes or stays operands) and, for a Command, at its first word.
std::vector<std::string> Options::Attached(int argc, char** argv, std::string* problem) {
  std::vector<std::string> args;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--" || (command_ && (arg.empty() || arg[0] != '-'))) break;
    if (const Declared* d = ValueOption(arg)) {
      if (i + 1 >= argc || std::string(argv[i + 1]) == "--") {
        *problem = d->label + " needs " + d->what;
        return {};
      }
      const std::string value = argv[++i];
      if (value.empty()) {
        args.push_back(arg);  // "--f=" would make CLI11 take the next word
        args.push_back("");
      } else if (arg.rfind("--", 0) == 0) {
        args.push_back(arg + "=" + value);
      } else if (!value.empty() && value[0] == '-') {
        args.push_back(arg + value);  // "-j-1": a short option's attached value
      } else {
        args.push_back(arg);
        args.push_back(value);
      }
    } else if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=' &&
               ValueOption(arg.substr(0, arg.size() - 1))) {
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

// The declared option `arg` names when it takes a value and has none in
// the same word ("--out", "-p"; not "--out=F" or "-j4"); else null.
const Options::Declared* Options::ValueOption(const std::string& arg) const {
  if (arg.size() < 2 || arg[0] != '-' || arg.find('=') != std::string::npos) return nullptr;
  if (arg[1] != '-' && arg.size() != 2) return nullptr;  // "-j4" has its value
  for (const Declared& d : declared_)
    if (!d.flag && d.option->check_name(arg)) return &d;
  return nullptr;
}

std::string Options::Unknown(const std::string& arg) const {
  return "unknown option " + Quoted(arg.substr(0, arg.find('=')));
}

// What CLI11 left: the command to run, the operands, or an unknown option.
std::string Options::Remaining() {
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

}  // namespace tether::cli
