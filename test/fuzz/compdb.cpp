// Fuzz target: a compile_commands.json as `tether check -p` loads it and the
// units it would check (lib/check/src/compdb.hpp: LoadCompileCommands, then
// SelectUnits, the code RunChecks runs before any parse). Response files are
// read from a small in-memory file system, never the disk. Beyond "no crash,
// UB, leak or hang": a rejected database has an error; an accepted one gives
// units or an error; every unit's file is one the database lists (or a FILE
// asked for), sorted; no two units are the same command of the same file; a
// file's units are numbered 1..count; a runnable unit's command is what the
// checker runs (-fsyntax-only first, no output file); the selection is
// the same when made again.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>

#include "compdb.hpp"

namespace {

using tether::check::RunOptions;
using tether::check::Unit;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "compdb invariant broken: %s\n", what);
  std::abort();
}

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> ResponseFiles() {
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> fs(new llvm::vfs::InMemoryFileSystem);
  fs->addFile("/fuzz/flags.rsp", 0, llvm::MemoryBuffer::getMemBuffer("-DA=1 -Iinc -fPIC"));
  fs->addFile("/fuzz/loop.rsp", 0, llvm::MemoryBuffer::getMemBuffer("-DB @/fuzz/loop.rsp"));
  fs->addFile("/fuzz/out.rsp", 0, llvm::MemoryBuffer::getMemBuffer("-o /fuzz/x.o -MF x.d"));
  return fs;
}

// With TETHER_FUZZ_VERBOSE=1 in the environment (replaying one input), the
// units on stderr.
void Dump(const std::vector<Unit>& units) {
  static const bool verbose = std::getenv("TETHER_FUZZ_VERBOSE") != nullptr;
  if (!verbose) return;
  for (const Unit& u : units) {
    std::fprintf(stderr, "unit %s (%u of %u) in %s%s%s:", u.key.file.c_str(), u.index, u.count,
                 u.key.directory.c_str(), u.error.empty() ? "" : " error: ", u.error.c_str());
    for (const std::string& a : u.key.arguments) std::fprintf(stderr, " [%s]", a.c_str());
    std::fprintf(stderr, "\n");
  }
}

// The invariants of one selection; `allowed` is the files it may name.
void CheckUnits(const std::vector<Unit>& units, const std::string& error,
                const std::set<std::string>& allowed) {
  if (units.empty() && error.empty()) Fail("no units and no error");
  std::set<tether::check::UnitCommand> keys;
  for (size_t i = 0; i < units.size(); ++i) {
    const Unit& u = units[i];
    if (!allowed.count(u.key.file)) Fail("a unit's file is not in the database");
    if (i > 0 && units[i - 1].key.file > u.key.file) Fail("units not sorted by file");
    if (!keys.insert(u.key).second) Fail("the same unit twice");
    if (u.index < 1 || u.index > u.count) Fail("index out of 1..count");
    bool first_of_file = i == 0 || units[i - 1].key.file != u.key.file;
    if (first_of_file ? u.index != 1 : u.index != units[i - 1].index + 1) Fail("index sequence");
    bool last_of_file = i + 1 == units.size() || units[i + 1].key.file != u.key.file;
    if (last_of_file && u.index != u.count) Fail("count is not the number of units");
    if (!u.error.empty()) continue;
    const std::vector<std::string>& args = u.command.CommandLine;
    if (args.empty() || args != u.key.arguments) Fail("the command run is not the unit's");
    // Right after the program name, where no option can take it as a value.
    if (args.size() < 5 || args[2] != "-fsyntax-only" || args[3] != "-w")
      Fail("no -fsyntax-only -w at the start");
    for (size_t a = 1; a < args.size(); ++a)
      if (llvm::StringRef(args[a]).startswith("-o")) Fail("an output file left in the command");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const llvm::StringRef text(reinterpret_cast<const char*>(data), size);
  std::string error;
  std::unique_ptr<clang::tooling::CompilationDatabase> db =
      tether::check::LoadCompileCommands(text, ResponseFiles(), &error);
  if (!db) {
    if (error.empty()) Fail("rejected without an error");
    return 0;
  }
  const std::vector<std::string> listed = db->getAllFiles();
  const std::set<std::string> files(listed.begin(), listed.end());

  // Every file the database lists, as `tether check -p BUILD`.
  RunOptions options;
  options.build_dir = "/fuzz-build";
  error.clear();
  std::vector<Unit> units = tether::check::SelectUnits(*db, options, &error);
  Dump(units);
  CheckUnits(units, error, files);
  std::string again_error;
  std::vector<Unit> again = tether::check::SelectUnits(*db, options, &again_error);
  if (again.size() != units.size() || again_error != error) Fail("not deterministic");
  for (size_t i = 0; i < units.size(); ++i)
    if (again[i].key != units[i].key || again[i].note != units[i].note) Fail("not deterministic");

  // FILEs asked for: the first listed one and one the database does not list
  // (a command inferred from the nearest listed file, or an error unit).
  options.files = {"/fuzz/zz-unlisted.cpp"};
  if (!listed.empty() && !listed.front().empty() && listed.front().front() == '/')
    options.files.push_back(listed.front());
  options.extra_args = {"-DEXTRA", "-o", "extra.o"};  // after `--`: appended, -o and all
  error.clear();
  units = tether::check::SelectUnits(*db, options, &error);
  Dump(units);
  std::set<std::string> asked;  // as SelectUnits names them: absolute, no dots
  for (const std::string& f : options.files) {
    llvm::SmallString<256> p(f);
    llvm::sys::fs::make_absolute(p);
    llvm::sys::path::remove_dots(p, true);
    asked.insert(std::string(p.str()));
  }
  if (units.empty()) Fail("FILEs asked for, no units");
  for (const Unit& u : units) {
    if (!asked.count(u.key.file)) Fail("a unit for a FILE not asked for");
    if (!u.error.empty()) continue;
    // The extra arguments come last, or just before a `--` that ends the
    // options (LLVM's END insertion; an inferred clang-cl command has one).
    const std::vector<std::string>& args = u.key.arguments;
    // (after the program name, which is never an option, even when it is "--").
    auto dashes = std::find(args.begin() + 1, args.end(), "--");
    if (*(dashes - 1) != "extra.o") Fail("extra arguments misplaced");
  }
  for (const std::string& f : asked) {
    bool found = false;
    for (const Unit& u : units) found |= u.key.file == f;
    if (!found) Fail("a FILE asked for has no unit");
  }
  return 0;
}
