// Every message lib/cli makes, for every kind of option: the words both
// binaries print above their usage text (options.hpp lists the vocabulary).
#include "tether/cli/options.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace tether::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// The options of one made-up command, one of each kind.
struct Values {
  std::string out, format;
  std::string queue = "dir:q";
  Duration grace{}, ttl = seconds(1), timeout = seconds(1);
  std::uint64_t group = 7, size = 0;
  unsigned jobs = 1;
  std::vector<std::string> models, operands;
  bool quiet = false;
};

class Command {
 public:
  Command() {
    cli_.Text("--out,-o", &v.out, "a file");
    cli_.Text("--queue", &v.queue, "a queue", Empty::kRefused);
    cli_.Choice("--format", &v.format, {"text", "json", "sarif"});
    cli_.DurationValue("--grace", &v.grace);
    cli_.DurationValue("--ttl", &v.ttl, DurationBounds::AtLeast(milliseconds(100)));
    DurationBounds timeout = DurationBounds::AboveZero();
    timeout.max = std::chrono::hours(876000);
    timeout.max_text = "876000h (100 years)";
    cli_.DurationValue("--timeout", &v.timeout, timeout);
    cli_.Count("--group", &v.group);
    cli_.Count("-j,--jobs", &v.jobs, 1, 1024);
    cli_.Size("--max-size", &v.size);
    cli_.Repeated("--model", &v.models, "a model file");
    cli_.Flag("--quiet,-q", &v.quiet);
    cli_.Operands(&v.operands);
  }
  // "" or the problem with `args` (after the command's name).
  std::string Parse(std::vector<std::string> args) {
    args.insert(args.begin(), "cmd");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return cli_.Parse(static_cast<int>(argv.size()), argv.data());
  }
  Options& cli() { return cli_; }
  Values v;

 private:
  Options cli_;
};

std::string Problem(std::vector<std::string> args) { return Command().Parse(std::move(args)); }

TEST(OptionMessages, MissingValueNamesWhatTheOptionNeeds) {
  EXPECT_EQ(Problem({"--out"}), "--out needs a file");
  EXPECT_EQ(Problem({"-o"}), "--out needs a file");
  EXPECT_EQ(Problem({"--format", "--"}), "--format needs text, json or sarif");
  EXPECT_EQ(Problem({"--grace"}), "--grace needs a duration such as 500ms or 2m");
  EXPECT_EQ(Problem({"--group"}), "--group needs a whole number");
  EXPECT_EQ(Problem({"-j"}), "-j needs a whole number from 1 to 1024");
  EXPECT_EQ(Problem({"--max-size"}), "--max-size needs a size such as 10MiB or 512KiB");
  EXPECT_EQ(Problem({"--model"}), "--model needs a model file");
}

TEST(OptionMessages, RefusedValueIsQuoted) {
  EXPECT_EQ(Problem({"--queue", ""}), "--queue needs a queue, not ''");
  EXPECT_EQ(Problem({"--queue="}), "--queue needs a queue, not ''");
  EXPECT_EQ(Problem({"--format", "xml"}), "--format needs text, json or sarif, not 'xml'");
  EXPECT_EQ(Problem({"--format=XML"}), "--format needs text, json or sarif, not 'XML'");
}

TEST(OptionMessages, Durations) {
  EXPECT_EQ(Problem({"--grace", "5"}),
            "--grace needs a duration such as 500ms or 2m, not '5': missing unit (units: ns, us, "
            "ms, s, m, h)");
  EXPECT_EQ(
      Problem({"--grace", "2x"}),
      "--grace needs a duration such as 500ms or 2m, not '2x': unknown unit \"x\" (units: ns, "
      "us, ms, s, m, h)");
  EXPECT_EQ(Problem({"--grace", "m"}), "--grace needs a duration such as 500ms or 2m, not 'm'");
  EXPECT_EQ(Problem({"--grace", "-1s"}), "--grace needs a duration of at least 0s, not '-1s'");
  EXPECT_EQ(Problem({"--grace=-1s"}), "--grace needs a duration of at least 0s, not '-1s'");
  EXPECT_EQ(Problem({"--ttl", "50ms"}), "--ttl needs a duration of at least 100ms, not '50ms'");
  EXPECT_EQ(Problem({"--timeout", "0s"}), "--timeout needs a duration above 0s, not '0s'");
  EXPECT_EQ(Problem({"--timeout", "900000h"}),
            "--timeout needs a duration of at most 876000h (100 years), not '900000h'");
  // Past 64 bits of nanoseconds is past the option's maximum too.
  EXPECT_EQ(Problem({"--timeout", "9999999999999h"}),
            "--timeout needs a duration of at most 876000h (100 years), not '9999999999999h'");
}

TEST(OptionMessages, Counts) {
  EXPECT_EQ(Problem({"--group", "lots"}), "--group needs a whole number, not 'lots'");
  EXPECT_EQ(Problem({"--group", "-3"}), "--group needs a whole number, not '-3'");
  EXPECT_EQ(Problem({"--group", "99999999999999999999999"}),
            "--group needs a whole number of at most 18446744073709551615, not "
            "'99999999999999999999999'");
  EXPECT_EQ(Problem({"-j", "0"}), "-j needs a whole number from 1 to 1024, not '0'");
  EXPECT_EQ(Problem({"--jobs=2000"}), "-j needs a whole number from 1 to 1024, not '2000'");
  EXPECT_EQ(Problem({"-j-1"}), "-j needs a whole number from 1 to 1024, not '-1'");
  EXPECT_EQ(Problem({"-j", "99999999999999999999999"}),
            "-j needs a whole number from 1 to 1024, not '99999999999999999999999'");
}

TEST(OptionMessages, Sizes) {
  EXPECT_EQ(Problem({"--max-size", "10XB"}),
            "--max-size needs a size such as 10MiB or 512KiB, not '10XB': unknown unit \"XB\" "
            "(units: B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)");
  EXPECT_EQ(Problem({"--max-size", "0.1B"}),
            "--max-size needs a size such as 10MiB or 512KiB, not '0.1B': not a whole number of "
            "bytes");
}

TEST(OptionMessages, RepeatsAndUnknownOptions) {
  EXPECT_EQ(Problem({"--out", "a", "--out=b"}), "--out given twice");
  EXPECT_EQ(Problem({"-j", "2", "--jobs", "3"}), "-j given twice");
  EXPECT_EQ(Problem({"--quiet", "-q"}), "--quiet given twice");
  EXPECT_EQ(Problem({"--model", "a", "--model", "b"}), "");  // repeatable
  EXPECT_EQ(Problem({"--bogus"}), "unknown option '--bogus'");
  EXPECT_EQ(Problem({"--bogus=1"}), "unknown option '--bogus'");
  EXPECT_EQ(Problem({"-x"}), "unknown option '-x'");
}

// A repeat is named before any value is judged, and nothing is stored
// from a command line with a problem.
TEST(OptionMessages, NothingStoredFromABadCommandLine) {
  Command c;
  EXPECT_EQ(c.Parse({"--out", "kept", "--grace", "5"}),
            "--grace needs a duration such as 500ms or 2m, not '5': missing unit (units: ns, us, "
            "ms, s, m, h)");
  EXPECT_EQ(c.v.out, "");
}

TEST(OptionValues, EveryFormIsStored) {
  Command c;
  ASSERT_EQ(
      c.Parse({"--out=f", "--format",  "json", "--grace", "-0s",        "--ttl=2s", "--timeout",
               "1h30m",   "--group",   "12",   "-j4",     "--max-size", "1.5KiB",   "--model",
               "a",       "--model=b", "-q",   "x",       "--",         "-y"}),
      "");
  EXPECT_EQ(c.v.out, "f");
  EXPECT_EQ(c.v.format, "json");
  EXPECT_EQ(c.v.grace, Duration::zero());
  EXPECT_EQ(c.v.ttl, seconds(2));
  EXPECT_EQ(c.v.timeout, std::chrono::minutes(90));
  EXPECT_EQ(c.v.group, 12u);
  EXPECT_EQ(c.v.jobs, 4u);
  EXPECT_EQ(c.v.size, 1536u);
  EXPECT_EQ(c.v.models, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(c.v.quiet);
  EXPECT_EQ(c.v.operands, (std::vector<std::string>{"x", "-y"}));
}

TEST(OptionValues, DefaultsStayWhenNotGiven) {
  Command c;
  ASSERT_EQ(c.Parse({}), "");
  EXPECT_EQ(c.v.queue, "dir:q");
  EXPECT_EQ(c.v.group, 7u);
  EXPECT_FALSE(c.cli().Help());
}

TEST(OptionNames, EveryDeclaredNameWithHelp) {
  Command c;
  std::vector<std::string> names = c.cli().Names();
  for (const char* name :
       {"-h", "--help", "--out", "-o", "-j", "--jobs", "--quiet", "-q", "--max-size", "--model"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

// A scratch directory for the path kinds, removed with its files (mkdtemp
// fills in the template's X's).
class Scratch {
 public:
  Scratch() {
    std::string templ =
        (std::filesystem::temp_directory_path() / "tether-cli-test-XXXXXX").string();
    if (::mkdtemp(templ.data())) dir_ = templ;
  }
  ~Scratch() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string File(const std::string& name, const std::string& text = "x") const {
    std::ofstream(Path(name)) << text;
    return Path(name);
  }

 private:
  std::string dir_;
};

// Paths: looked at on disk when parsed, the reason after the quoted path.
struct PathValues {
  std::string in, diff, out, trace, cache, results;
};

std::string ParsePaths(PathValues* v, std::vector<std::string> args) {
  Options cli;
  cli.InputFile("--baseline", &v->in);
  cli.InputFile("--diff", &v->diff, Dash::kStdin);
  cli.OutputFile("--output", &v->out);
  cli.OutputFile("--trace", &v->trace, {.regular_only = true});
  cli.OutputDirectory("--cache-dir", &v->cache);
  cli.OutputDirectory("--results", &v->results, io::Parents::kMustExist);
  args.insert(args.begin(), "cmd");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return cli.Parse(static_cast<int>(argv.size()), argv.data());
}

TEST(OptionMessages, InputFiles) {
  Scratch s;
  ASSERT_FALSE(s.Path("").empty());
  PathValues v;
  const std::string gone = s.Path("gone.json");
  EXPECT_EQ(ParsePaths(&v, {"--baseline", gone}),
            "--baseline needs a file it can read, not '" + gone + "': no such file");
  EXPECT_EQ(ParsePaths(&v, {"--baseline", s.Path("")}),
            "--baseline needs a file it can read, not '" + s.Path("") +
                "': is a directory, not a regular file");
  EXPECT_EQ(ParsePaths(&v, {"--baseline", ""}),
            "--baseline needs a file it can read, not '': empty file name");
  EXPECT_EQ(ParsePaths(&v, {"--diff", gone}),
            "--diff needs a file it can read (- for stdin), not '" + gone + "': no such file");
  EXPECT_EQ(ParsePaths(&v, {"--baseline"}), "--baseline needs a file it can read");
  // "-" is stdin only where the option says so.
  EXPECT_EQ(ParsePaths(&v, {"--baseline", "-"}),
            "--baseline needs a file it can read, not '-': no such file");
  const std::string good = s.File("b.json");
  EXPECT_EQ(ParsePaths(&v, {"--baseline", good, "--diff", "-"}), "");
  EXPECT_EQ(v.in, good);
  EXPECT_EQ(v.diff, "-");
}

TEST(OptionMessages, OutputFilesAreNeitherCreatedNorTruncated) {
  Scratch s;
  PathValues v;
  const std::string nodir = s.Path("nodir/r.txt");
  EXPECT_EQ(ParsePaths(&v, {"--output", nodir}),
            "--output needs a file it can write, not '" + nodir + "': cannot create it in " +
                s.Path("nodir") + ": No such file or directory");
  EXPECT_EQ(ParsePaths(&v, {"--output", s.Path("")}),
            "--output needs a file it can write, not '" + s.Path("") + "': is a directory");
  EXPECT_EQ(ParsePaths(&v, {"--output", ""}),
            "--output needs a file it can write, not '': empty file name");
  EXPECT_EQ(ParsePaths(&v, {"--trace", "/dev/null"}),
            "--trace needs a file it can write, not '/dev/null': is a character device, not a "
            "regular file");
  const std::string kept = s.File("kept.txt", "keep");
  const std::string fresh = s.Path("fresh.txt");
  EXPECT_EQ(ParsePaths(&v, {"--output", kept, "--trace", fresh, "--cache-dir", s.Path("")}), "");
  std::ifstream in(kept);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "keep");
  struct stat st {};
  EXPECT_NE(::stat(fresh.c_str(), &st), 0) << "a new output file is not made when parsed";
  EXPECT_EQ(v.out, kept);
}

TEST(OptionMessages, OutputDirectories) {
  Scratch s;
  PathValues v;
  const std::string file = s.File("f");
  EXPECT_EQ(
      ParsePaths(&v, {"--cache-dir", file}),
      "--cache-dir needs a directory it can write in, not '" + file + "': is not a directory");
  EXPECT_EQ(ParsePaths(&v, {"--cache-dir", file + "/sub/dir"}),
            "--cache-dir needs a directory it can write in, not '" + file +
                "/sub/dir': cannot create it in " + file + ": Not a directory");
  // A missing directory (and its missing parents) is made later: nothing now.
  EXPECT_EQ(ParsePaths(&v, {"--cache-dir", s.Path("a/b/c")}), "");
  struct stat st {};
  EXPECT_NE(::stat(s.Path("a").c_str(), &st), 0);
  EXPECT_EQ(v.cache, s.Path("a/b/c"));
  // Only its last part made (the worker's --results): a missing parent is a
  // typo, refused; nothing is made either way.
  EXPECT_EQ(ParsePaths(&v, {"--results", s.Path("a/b")}),
            "--results needs a directory it can write in, not '" + s.Path("a/b") +
                "': cannot create it in " + s.Path("a") +
                ": No such file or directory (only its last part is made)");
  EXPECT_EQ(ParsePaths(&v, {"--results", file + "/sub"}),
            "--results needs a directory it can write in, not '" + file +
                "/sub': cannot create it in " + file + ": Not a directory");
  EXPECT_EQ(ParsePaths(&v, {"--results", s.Path("a")}), "");
  EXPECT_NE(::stat(s.Path("a").c_str(), &st), 0);
  EXPECT_EQ(v.results, s.Path("a"));
}

TEST(ParseSize, BinaryDecimalAndExactFractions) {
  std::uint64_t n = 0;
  ASSERT_TRUE(ParseSize("10MiB", &n).ok());
  EXPECT_EQ(n, 10u << 20);
  ASSERT_TRUE(ParseSize("0.52MB", &n).ok());
  EXPECT_EQ(n, 520000u);
  EXPECT_FALSE(ParseSize("18446744073709551616", &n).ok());
}

}  // namespace
}  // namespace tether::cli
