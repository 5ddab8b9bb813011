// The compile database and the units it gives (compdb.hpp).
#include "compdb.hpp"

#include <algorithm>
#include <cctype>
#include <map>

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

// ClangTool aborts the process ("Cannot chdir") on a compile command whose
// directory is gone: such a unit is never run (StaleDirectoryError).
bool DirectoryGone(const tooling::CompileCommand& cmd) {
  return !cmd.Directory.empty() && !llvm::sys::fs::is_directory(cmd.Directory);
}

// The error that keeps a command from being run at all, or "".
std::string UnrunnableReason(const tooling::CompileCommand& cmd) {
  if (DirectoryGone(cmd))
    return "error: the compile command's directory '" + cmd.Directory +
           "' does not exist (is compile_commands.json stale?)";
  // A database entry with an empty argument list: there is no compiler to
  // run (ClangTool would index its first argument).
  if (cmd.CommandLine.empty()) return "error: the compile command is empty";
  return "";
}

// CMake's unity build (UNITY_BUILD) compiles a target's sources through
// generated files, CMakeFiles/T.dir/Unity/unity_N_cxx.cxx, each a list of
// `#include "/abs/source.cpp"` lines, and compile_commands.json then lists
// only those. The sources are what a user asks to check: this database
// lists them in place of the unity file that includes them, each with that
// unity file's command (its flags, its directory, the file's own name in
// place of the unity file's). A source is not checked as part of the unity
// file: the sources before it in the batch are not seen, as in a build
// without UNITY_BUILD. A database without unity files is unchanged.
class UnityBuildDatabase : public tooling::CompilationDatabase {
 public:
  UnityBuildDatabase(std::unique_ptr<tooling::CompilationDatabase> inner,
                     llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs)
      : inner_(std::move(inner)) {
    for (const tooling::CompileCommand& cmd : inner_->getAllCompileCommands()) {
      const std::string unity = AbsoluteIn(cmd.Directory, cmd.Filename);
      if (!IsUnitySource(unity) || sources_.count(unity)) continue;
      auto buf = fs->getBufferForFile(unity);
      if (!buf) continue;  // not generated (yet): the entry stays as it is
      std::vector<std::string>& included = sources_[unity];
      llvm::SmallVector<llvm::StringRef, 32> lines;
      (*buf)->getBuffer().split(lines, '\n');
      for (llvm::StringRef line : lines) {
        line = line.trim();
        if (!line.consume_front("#include \"") || !line.consume_back("\"")) continue;
        const std::string source =
            AbsoluteIn(std::string(llvm::sys::path::parent_path(unity)), line.str());
        included.push_back(source);
        unity_of_.emplace(source, unity);  // the first unity file that includes it
      }
    }
  }

  std::vector<tooling::CompileCommand> getCompileCommands(llvm::StringRef file) const override {
    std::vector<tooling::CompileCommand> own = inner_->getCompileCommands(file);
    if (!own.empty() || unity_of_.empty()) return own;
    auto it = unity_of_.find(Absolute(file.str()));
    if (it == unity_of_.end()) return own;
    std::vector<tooling::CompileCommand> cmds = inner_->getCompileCommands(it->second);
    for (tooling::CompileCommand& cmd : cmds) {
      for (std::string& arg : cmd.CommandLine)
        if (arg == cmd.Filename || AbsoluteIn(cmd.Directory, arg) == it->second) arg = it->first;
      cmd.Filename = it->first;
    }
    return cmds;
  }

  std::vector<std::string> getAllFiles() const override {
    if (sources_.empty()) return inner_->getAllFiles();
    std::vector<std::string> files;
    for (const std::string& file : inner_->getAllFiles()) {
      auto it = sources_.find(Absolute(file));
      if (it == sources_.end())
        files.push_back(file);
      else
        files.insert(files.end(), it->second.begin(), it->second.end());
    }
    return files;
  }

  std::vector<tooling::CompileCommand> getAllCompileCommands() const override {
    if (sources_.empty()) return inner_->getAllCompileCommands();
    std::vector<tooling::CompileCommand> all;
    for (const std::string& file : getAllFiles())
      for (tooling::CompileCommand& cmd : getCompileCommands(file)) all.push_back(std::move(cmd));
    return all;
  }

 private:
  static std::string AbsoluteIn(const std::string& dir, const std::string& path) {
    llvm::SmallString<256> p(path);
    if (!dir.empty()) llvm::sys::fs::make_absolute(dir, p);
    return Absolute(std::string(p.str()));
  }
  // CMake's names: Unity/unity_N_c.c, unity_N_cxx.cxx (batches) or
  // unity_GROUP_cxx.cxx (UNITY_BUILD_MODE GROUP), in a directory "Unity".
  static bool IsUnitySource(llvm::StringRef path) {
    const llvm::StringRef name = llvm::sys::path::filename(path);
    return llvm::sys::path::filename(llvm::sys::path::parent_path(path)) == "Unity" &&
           name.startswith("unity_") && (name.endswith("_cxx.cxx") || name.endswith("_c.c"));
  }

  std::unique_ptr<tooling::CompilationDatabase> inner_;
  std::map<std::string, std::vector<std::string>> sources_;  // unity file -> its sources
  std::map<std::string, std::string> unity_of_;              // source -> its unity file
};

}  // namespace

std::unique_ptr<tooling::CompilationDatabase> LoadCompileCommands(
    llvm::StringRef json, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs, std::string* error) {
  // LLVM reads the database as YAML, whose parser prints a syntax error with
  // the whole line it is on (a one-line database of megabytes), then gives
  // the entries before the error as if they were all: the JSON is checked
  // first.
  if (std::string syntax = JsonSyntaxError(std::string_view(json.data(), json.size()));
      !syntax.empty()) {
    *error = syntax;
    return nullptr;
  }
  std::string err;
  std::unique_ptr<tooling::CompilationDatabase> base =
      tooling::JSONCompilationDatabase::loadFromBuffer(json, err,
                                                       tooling::JSONCommandLineSyntax::AutoDetect);
  if (!base) {
    *error = "not a compile database: " + err;
    return nullptr;
  }
  // The wrappers of LLVM's JSONCompilationDatabasePlugin::loadFromDirectory,
  // in its order, with the sources of CMake unity files listed before any
  // command is inferred for them.
  std::unique_ptr<tooling::CompilationDatabase> expanded =
      tooling::expandResponseFiles(std::move(base), fs);
  return tooling::inferTargetAndDriverMode(tooling::inferMissingCompileCommands(
      std::make_unique<UnityBuildDatabase>(std::move(expanded), fs)));
}

namespace {

// The compile_commands.json at `path` (which exists), or null with *error:
// "PATH: why", "PATH:LINE:COL: why".
std::unique_ptr<tooling::CompilationDatabase> LoadJsonFile(const std::string& path,
                                                           std::string* error) {
  // LLVM reads compile_commands.json whatever it is: a FIFO would block it
  // for ever, /dev/zero exhaust memory. Refuse those first, as every input.
  if (std::string bad = RefuseUnreadableInput(path); !bad.empty()) {
    *error = bad;
    return nullptr;
  }
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf) {
    *error = path + ": " + buf.getError().message();
    return nullptr;
  }
  std::string err;
  std::unique_ptr<tooling::CompilationDatabase> db =
      LoadCompileCommands((*buf)->getBuffer(), llvm::vfs::getRealFileSystem(), &err);
  // "PATH:LINE:COL: not valid JSON: ...", "PATH: not a compile database: ...".
  const bool at_position = !err.empty() && std::isdigit(static_cast<unsigned char>(err[0]));
  if (!db) *error = path + (at_position ? ":" : ": ") + err;
  return db;
}

// -p DIR: its compile_commands.json, else its compile_flags.txt.
std::unique_ptr<tooling::CompilationDatabase> LoadBuildDir(const std::string& dir,
                                                           std::string* error,
                                                           std::string* source) {
  const std::string json_path = dir + "/compile_commands.json";
  *source = json_path;
  if (llvm::sys::fs::exists(json_path)) return LoadJsonFile(json_path, error);
  if (llvm::sys::fs::exists(dir + "/compile_flags.txt")) {
    *source = dir + "/compile_flags.txt";
    std::string err;
    auto db = tooling::CompilationDatabase::loadFromDirectory(dir, err);
    if (!db) *error = *source + ": " + err;
    return db;
  }
  if (!llvm::sys::fs::exists(dir))
    *error = json_path + ": no such file: the build directory " + dir + " does not exist";
  else if (!llvm::sys::fs::is_directory(dir))
    *error = json_path + ": no such file: " + dir +
             " is not a directory (-p takes the build directory that holds compile_commands.json)";
  else
    *error = json_path +
             ": no such file (configure the build with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON to "
             "write it)";
  return nullptr;
}

// The database above `probe`, as LLVM's autoDetectFromSource finds it (the
// nearest directory with a compile_commands.json or a compile_flags.txt), but
// a broken compile_commands.json is an error, not skipped for one further up.
std::unique_ptr<tooling::CompilationDatabase> FindAbove(const std::string& probe,
                                                        std::string* error, std::string* source) {
  for (llvm::StringRef dir = llvm::sys::path::parent_path(probe); !dir.empty();
       dir = llvm::sys::path::parent_path(dir)) {
    const std::string json_path = (dir + "/compile_commands.json").str();
    if (llvm::sys::fs::exists(json_path)) {
      *source = json_path;
      return LoadJsonFile(json_path, error);
    }
    if (llvm::sys::fs::exists(dir + "/compile_flags.txt")) {
      *source = (dir + "/compile_flags.txt").str();
      std::string err;
      auto db = tooling::CompilationDatabase::loadFromDirectory(dir, err);
      if (!db) *error = *source + ": " + err;
      return db;
    }
  }
  *error = "no compilation database: give -p BUILD_DIR, or compiler arguments after --";
  return nullptr;
}

}  // namespace

std::unique_ptr<tooling::CompilationDatabase> OpenDatabase(const RunOptions& options,
                                                           std::string* error,
                                                           std::string* source) {
  source->clear();
  if (!options.build_dir.empty()) return LoadBuildDir(options.build_dir, error, source);
  if (options.have_fixed_args)
    return std::make_unique<tooling::FixedCompilationDatabase>(".", options.extra_args);
  return FindAbove(
      options.files.empty() ? Absolute("tether-probe.cpp") : Absolute(options.files[0]), error,
      source);
}

std::string StaleDirectoryError(const std::vector<Unit>& units, const std::string& source) {
  const Unit* first = nullptr;
  unsigned more = 0;
  for (const Unit& u : units) {
    if (!u.directory_gone) continue;
    if (first == nullptr)
      first = &u;
    else
      ++more;
  }
  if (first == nullptr) return "";
  const tooling::CompileCommand& cmd = first->command;
  std::string entry = cmd.Heuristic.empty()
                          ? "the entry for " + cmd.Filename
                          : "the command for " + first->key.file + " (" + cmd.Heuristic + ")";
  std::string where = source.empty() ? std::string("the compile database") : source;
  return where + ": the directory '" + cmd.Directory + "' of " + entry + " does not exist" +
         (more ? " (nor that of " + std::to_string(more) + " more " +
                     (more == 1 ? "entry" : "entries") + ")"
               : "") +
         "; is the database stale? (configure the build again to write it anew)";
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
      u.directory_gone = DirectoryGone(cmd);
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
