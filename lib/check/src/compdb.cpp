// The compile database and the units it gives (compdb.hpp).
#include "compdb.hpp"

#include <algorithm>

#include <clang/Tooling/JSONCompilationDatabase.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

#include "tether/check/read_input.hpp"

namespace tether::check {

namespace tooling = clang::tooling;

namespace {

std::string Absolute(const std::string& path) {
  llvm::SmallString<256> p(path);
  llvm::sys::fs::make_absolute(p);
  llvm::sys::path::remove_dots(p, true);
  return std::string(p.str());
}

// The note for a FILE given on the command line that the compile database
// does not list: LLVM's JSON database then infers a command from the nearest
// listed file (as clang-tidy uses it); the file is checked with it, and the
// note says so. "" when the file is listed (or no database is involved).
std::string InferredCommandNote(const std::vector<tooling::CompileCommand>& cmds,
                                const std::string& file, const RunOptions& options) {
  if (options.files.empty() || (options.have_fixed_args && options.build_dir.empty())) return "";
  if (cmds.empty() || cmds.front().Heuristic.empty()) return "";
  std::string where = options.build_dir.empty() ? std::string("the compile database")
                                                : options.build_dir + "/compile_commands.json";
  std::string command;
  for (const std::string& arg : cmds.front().CommandLine)
    command += (command.empty() ? "" : " ") + arg;
  return file + " is not in " + where + ": checked with a command " + cmds.front().Heuristic +
         ": " + command;
}

// The files to check, sorted and unique, less --exclude's; *error when none.
std::vector<std::string> SelectFiles(const tooling::CompilationDatabase& db,
                                     const RunOptions& options, std::string* error) {
  std::vector<std::string> files;
  if (!options.files.empty()) {
    for (const std::string& f : options.files) files.push_back(Absolute(f));
  } else {
    files = db.getAllFiles();
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  std::vector<std::string> selected;
  for (const std::string& f : files) {
    bool excluded = false;
    for (const auto& ex : options.exclude_substrings) excluded |= f.find(ex) != std::string::npos;
    if (!excluded) selected.push_back(f);
  }
  if (selected.empty()) {
    *error = "no translation units to check";
    if (!files.empty()) {
      *error += ": --exclude left none of the " + std::to_string(files.size());
    } else if (!options.build_dir.empty()) {
      *error += ": " + options.build_dir + "/compile_commands.json lists none";
    }
  }
  return selected;
}

// The error that keeps a command from being run at all, or "".
std::string UnrunnableReason(const tooling::CompileCommand& cmd) {
  // ClangTool aborts the process ("Cannot chdir") on a compile command whose
  // directory is gone: say so for this unit instead.
  if (!cmd.Directory.empty() && !llvm::sys::fs::is_directory(cmd.Directory))
    return "error: the compile command's directory '" + cmd.Directory +
           "' does not exist (is compile_commands.json stale?)";
  // A database entry with an empty argument list: there is no compiler to
  // run (ClangTool would index its first argument).
  if (cmd.CommandLine.empty()) return "error: the compile command is empty";
  return "";
}

}  // namespace

std::unique_ptr<tooling::CompilationDatabase> LoadCompileCommands(
    llvm::StringRef json, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs, std::string* error) {
  std::string err;
  std::unique_ptr<tooling::CompilationDatabase> base =
      tooling::JSONCompilationDatabase::loadFromBuffer(json, err,
                                                       tooling::JSONCommandLineSyntax::AutoDetect);
  if (!base) {
    *error = err;
    return nullptr;
  }
  // The wrappers of LLVM's JSONCompilationDatabasePlugin::loadFromDirectory,
  // in its order.
  return tooling::inferTargetAndDriverMode(
      tooling::inferMissingCompileCommands(tooling::expandResponseFiles(std::move(base), fs)));
}

std::unique_ptr<tooling::CompilationDatabase> OpenDatabase(const RunOptions& options,
                                                           std::string* error) {
  std::string err;
  if (!options.build_dir.empty()) {
    const std::string json_path = options.build_dir + "/compile_commands.json";
    // LLVM reads compile_commands.json whatever it is: a FIFO would block it
    // for ever, /dev/zero exhaust memory. Refuse those first, as every input.
    if (std::string bad = RefuseUnreadableInput(json_path); !bad.empty()) {
      *error = bad;
      return nullptr;
    }
    std::unique_ptr<tooling::CompilationDatabase> db;
    if (llvm::sys::fs::exists(json_path)) {
      auto buf = llvm::MemoryBuffer::getFile(json_path, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
      if (!buf) {
        err = buf.getError().message();
      } else {
        db = LoadCompileCommands((*buf)->getBuffer(), llvm::vfs::getRealFileSystem(), &err);
      }
    } else {
      // No compile_commands.json: LLVM finds compile_flags.txt, or says why not.
      db = tooling::CompilationDatabase::loadFromDirectory(options.build_dir, err);
    }
    if (!db) *error = options.build_dir + ": cannot load compile_commands.json: " + err;
    return db;
  }
  if (options.have_fixed_args)
    return std::make_unique<tooling::FixedCompilationDatabase>(".", options.extra_args);
  std::string probe =
      options.files.empty() ? Absolute("tether-probe.cpp") : Absolute(options.files[0]);
  auto db = tooling::CompilationDatabase::autoDetectFromSource(probe, err);
  if (!db) *error = "no compilation database: give -p BUILD_DIR, or compiler arguments after --";
  return db;
}

tooling::ArgumentsAdjuster CheckerAdjuster(const RunOptions& options) {
  std::vector<std::string> extra;
  if (!options.build_dir.empty() || !options.have_fixed_args) extra = options.extra_args;
  // A CMake precompiled header made by g++ (`-include .../cmake_pch.hxx`
  // with a .gch beside it) cannot be read by Clang; include the header as
  // text instead (cc1's -include does not look for a PCH).
  tooling::ArgumentsAdjuster pch_as_text = [](const tooling::CommandLineArguments& args,
                                              llvm::StringRef) {
    tooling::CommandLineArguments out;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "-include" && i + 1 < args.size() &&
          llvm::StringRef(args[i + 1]).endswith("cmake_pch.hxx")) {
        out.insert(out.end(), {"-Xclang", "-include", "-Xclang", args[++i]});
        continue;
      }
      out.push_back(args[i]);
    }
    return out;
  };
  // The checker's own flags first, right after the program name, and
  // -fsyntax-only before LLVM's syntax-only adjuster (which then adds none).
  // Appended, they are taken as the value of an option a command leaves
  // dangling at its end (`... -include`: "'-fsyntax-only' file not found", an
  // error of the checker's making, where the compiler says "argument to
  // '-include' is missing"). After the program name no option can take them,
  // and none depends on its place (-w silences every warning, the driver
  // honours -fsyntax-only over -c). The extra arguments after `--` go last,
  // so that they override the command's.
  tooling::ArgumentsAdjuster all = tooling::getClangStripOutputAdjuster();
  for (tooling::ArgumentsAdjuster next :
       {tooling::getInsertArgumentAdjuster(
            tooling::CommandLineArguments{"-resource-dir=" TETHER_CLANG_RESOURCE_DIR,
                                          "-fsyntax-only", "-w", "-Wno-unknown-warning-option"},
            tooling::ArgumentInsertPosition::BEGIN),
        tooling::getClangSyntaxOnlyAdjuster(), tooling::getClangStripDependencyFileAdjuster(),
        tooling::getInsertArgumentAdjuster(extra, tooling::ArgumentInsertPosition::END),
        pch_as_text})
    all = tooling::combineAdjusters(std::move(all), std::move(next));
  // The program name is not an option, whatever it looks like: LLVM's output
  // adjuster drops every argument starting with "-o", a program "-o..." too,
  // and the next argument would be taken for the program. The adjusters see
  // a plain name in its place (none of them drops or moves one) and the
  // program comes back after.
  return [all](const tooling::CommandLineArguments& args, llvm::StringRef file) {
    if (args.empty()) return args;
    tooling::CommandLineArguments in = args;
    in.front() = "tether-program";
    tooling::CommandLineArguments out = all(in, file);
    out.front() = args.front();
    return out;
  };
}

// A -isystem directory that holds the file's own sources (the file's
// directory or one above it, short of the file system's root): CMake does
// that to a header-only library's own tests (cpp-httplib), and every finding
// in its headers is then skipped as a system header's.
static std::string ProjectSystemIncludeNote(const tooling::CompileCommand& cmd) {
  const std::vector<std::string>& args = cmd.CommandLine;
  llvm::SmallString<256> file(cmd.Filename);
  llvm::sys::fs::make_absolute(cmd.Directory, file);
  llvm::sys::path::remove_dots(file, true);
  for (size_t i = 0; i < args.size(); ++i) {
    std::string dir;
    if (args[i] == "-isystem" && i + 1 < args.size())
      dir = args[i + 1];
    else if (llvm::StringRef(args[i]).startswith("-isystem") && args[i].size() > 8)
      dir = args[i].substr(8);
    if (dir.empty()) continue;
    llvm::SmallString<256> abs(dir);
    llvm::sys::fs::make_absolute(cmd.Directory, abs);
    llvm::sys::path::remove_dots(abs, true);
    const llvm::StringRef d = abs.str();
    if (llvm::sys::path::has_parent_path(d) && d.size() > 1 &&
        llvm::StringRef(file).startswith(d) && file.size() > d.size() &&
        llvm::sys::path::is_separator(file[d.size()]) && !d.startswith("/usr"))
      return "'" + d.str() +
             "' is a system include directory (-isystem) of the compile commands, "
             "but it holds the project's own sources (" +
             llvm::sys::path::filename(file).str() +
             " is under it): findings in headers there are skipped as system headers; pass it "
             "with -I to check them";
  }
  return "";
}

std::vector<Unit> SelectUnits(const tooling::CompilationDatabase& db, const RunOptions& options,
                              std::string* error) {
  const tooling::ArgumentsAdjuster adjust = CheckerAdjuster(options);
  std::vector<Unit> units;
  for (const std::string& file : SelectFiles(db, options, error)) {
    std::vector<tooling::CompileCommand> cmds = db.getCompileCommands(file);
    const std::string note = InferredCommandNote(cmds, file, options);
    std::vector<Unit> mine;
    for (tooling::CompileCommand& cmd : cmds) {
      Unit u;
      u.note = note;
      u.system_note = ProjectSystemIncludeNote(cmd);
      u.error = UnrunnableReason(cmd);
      if (u.error.empty()) cmd.CommandLine = adjust(cmd.CommandLine, cmd.Filename);
      u.key = {file, cmd.Directory, cmd.CommandLine};
      u.command = std::move(cmd);
      mine.push_back(std::move(u));
    }
    if (mine.empty()) {
      Unit u;
      u.key.file = file;
      u.error = options.build_dir.empty() ? "error: no compile command for this file"
                                          : "error: no compile command for this file in " +
                                                options.build_dir + "/compile_commands.json";
      mine.push_back(std::move(u));
    }
    std::vector<UnitCommand> keys;
    for (const Unit& u : mine) keys.push_back(u.key);
    const std::vector<std::size_t> keep = DistinctUnits(keys);
    for (std::size_t k = 0; k < keep.size(); ++k) {
      Unit& u = mine[keep[k]];
      u.index = static_cast<unsigned>(k + 1);
      u.count = static_cast<unsigned>(keep.size());
      units.push_back(std::move(u));
    }
  }
  return units;
}

}  // namespace tether::check
