// Phase 1 over every TU (worker threads, one ClangTool each): parse, run the
// enabled checks, gather per-function facts. Phase 2: resolve the cross-TU
// candidates, merge everything in file order.
#include "tether/check/runner.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

#include "ast_util.hpp"
#include "blocking.hpp"
#include "cache.hpp"
#include "check_base.hpp"
#include "fact_collector.hpp"
#include "phase_times.hpp"
#include "tether/check/read_input.hpp"

namespace tether::check {

using namespace clang;

namespace {

using Deps = std::vector<std::pair<std::string, std::string>>;

// Every file the preprocessor entered, with the hash of the content parsed.
void RecordDeps(const SourceManager& sm, Deps* deps) {
  for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
    const FileEntry* fe = it->first;
    std::string path(fe->tryGetRealPathName());
    if (path.empty()) {
      SmallString<256> p(fe->getName());
      llvm::sys::fs::make_absolute(p);
      path = std::string(p.str());
    }
    std::optional<StringRef> data = it->second->getBufferDataIfLoaded();
    std::string hash;
    if (data) {
      hash = ResultCache::HashText(std::string_view(data->data(), data->size()));
    } else if (auto buf = llvm::MemoryBuffer::getFile(path, false, false)) {
      hash = ResultCache::HashText(
          std::string_view((*buf)->getBufferStart(), (*buf)->getBufferSize()));
    }
    deps->emplace_back(std::move(path), std::move(hash));
  }
  std::sort(deps->begin(), deps->end());
}

// Whether `qualified` ("std::thread", "tether::Context") is declared in the TU:
// one lookup per name component from the TU down, so it costs a few hash
// lookups, never a traversal. (An inline namespace's members are visible in
// the enclosing namespace's lookup table: libc++'s std::__1::thread is found
// as std::thread.)
bool Declared(ASTContext& ctx, std::string_view qualified) {
  if (qualified.substr(0, 2) == "::") qualified.remove_prefix(2);
  std::vector<const DeclContext*> scopes = {ctx.getTranslationUnitDecl()};
  while (!scopes.empty()) {
    size_t sep = qualified.find("::");
    std::string_view part = qualified.substr(0, sep);
    auto id = ctx.Idents.find(StringRef(part.data(), part.size()));
    if (id == ctx.Idents.end()) return false;  // the name was never even spelled
    std::vector<const DeclContext*> inner;
    for (const DeclContext* dc : scopes) {
      for (const NamedDecl* d : dc->lookup(DeclarationName(id->getValue()))) {
        if (sep == std::string_view::npos) return true;
        if (const auto* c = dyn_cast<DeclContext>(d)) inner.push_back(c);
      }
    }
    if (sep == std::string_view::npos) return false;
    qualified.remove_prefix(sep + 2);
    scopes = std::move(inner);
  }
  return false;
}

// Whether any type the model is about (a context, cancel or group type)
// is declared in the TU: when none is in any TU, there was nothing to check.
bool ModelTypesDeclared(ASTContext& ctx, const ApiModel& model) {
  for (const auto* names : {&model.context_types, &model.cancel_types})
    for (const std::string& n : *names)
      if (Declared(ctx, n)) return true;
  for (const TaskGroupModel& g : model.task_groups)
    if (Declared(ctx, g.type)) return true;
  return false;
}

// What the consumer learned about the TU besides its findings and facts.
struct AstOutcome {
  bool analysed = false;        // the checks ran on its AST (recovered, if it has errors)
  bool model_types = false;     // ModelTypesDeclared
  bool record_deps = false;     // with --cache-dir
  Deps deps;                    // then: what the TU read
  PhaseTimes* times = nullptr;  // null unless timing
};

class CheckConsumer : public ASTConsumer {
 public:
  CheckConsumer(TuContext& tu, AstOutcome& out) : tu_(tu), out_(out) {
    for (const CheckRegistration& r : CheckRegistry())
      if (tu_.Enabled(r.info.name)) checks_.push_back(r.make(tu_));
    for (auto& c : checks_) c->registerMatchers(&finder_);
  }
  // A TU with compile errors is checked too, on the AST Clang recovered (as
  // clang-tidy does); RunUnit reports its errors and marks its results as
  // possibly incomplete.
  void HandleTranslationUnit(ASTContext& ctx) override {
    PhaseTimes* times = out_.times;
    if (times) times->ast_ready = Stamp::Now();
    out_.analysed = true;
    out_.model_types = ModelTypesDeclared(ctx, tu_.model());
    // Match only the declarations outside system headers. A TU that includes
    // the standard library or LLVM's headers holds hundreds of thousands of
    // calls there; matching each (and building the parent map over them for
    // hasAncestor) cost most of the run, and no check reports in a system
    // header. Callees' bodies there are still reached through their decls.
    std::vector<Decl*> scope;
    const SourceManager& sm = ctx.getSourceManager();
    for (Decl* d : ctx.getTranslationUnitDecl()->decls())
      if (!sm.isInSystemHeader(d->getLocation())) scope.push_back(d);
    ctx.setTraversalScope(scope);
    finder_.matchAST(ctx);
    if (times) times->matched = Stamp::Now();
    CollectFacts(tu_, ctx);
    if (times) times->facts_done = Stamp::Now();
    for (auto& c : checks_) c->EndOfTranslationUnit(ctx);
    if (out_.record_deps) RecordDeps(ctx.getSourceManager(), &out_.deps);
    if (times) times->deps_done = Stamp::Now();
  }

 private:
  TuContext& tu_;
  AstOutcome& out_;
  ast_matchers::MatchFinder finder_;
  std::vector<std::unique_ptr<Check>> checks_;
};

class CheckAction : public ASTFrontendAction {
 public:
  CheckAction(TuContext& tu, AstOutcome& out) : tu_(tu), out_(out) {}
  // The errors are reported by tether (ErrorCollector); Clang's own "N errors
  // generated." line on stderr would repeat them, even with --quiet.
  bool BeginInvocation(CompilerInstance& ci) override {
    ci.getDiagnosticOpts().ShowCarets = false;
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance&, StringRef) override {
    return std::make_unique<CheckConsumer>(tu_, out_);
  }

 private:
  TuContext& tu_;
  AstOutcome& out_;
};

class CheckActionFactory : public tooling::FrontendActionFactory {
 public:
  CheckActionFactory(TuContext& tu, AstOutcome& out) : tu_(tu), out_(out) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<CheckAction>(tu_, out_);
  }

 private:
  TuContext& tu_;
  AstOutcome& out_;
};

// Collects a TU's errors ("file:line:col: error: ...") and drops warnings.
class ErrorCollector : public DiagnosticConsumer {
 public:
  void HandleDiagnostic(DiagnosticsEngine::Level level, const Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < DiagnosticsEngine::Error) return;
    SmallString<256> msg;
    info.FormatDiagnostic(msg);
    std::string where;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      PresumedLoc p = info.getSourceManager().getPresumedLoc(info.getLocation());
      if (p.isValid())
        where = std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) + ":" +
                std::to_string(p.getColumn()) + ": ";
    }
    if (errors.size() < 20) errors.push_back(where + "error: " + std::string(msg.str()));
    ++count;
  }
  std::vector<std::string> errors;  // the first 20
  unsigned count = 0;
};

struct UnitResult {
  std::vector<Finding> findings;
  Facts facts;
  unsigned suppressed = 0;
  bool failed = false;       // errors: exit 2, never cached
  bool partial = false;      // failed, but its recovered AST was checked: findings and facts hold
  bool analysed = false;     // has findings and facts (checked, or read from the cache)
  bool model_types = false;  // a type of the model is declared in the TU
  std::vector<std::string> errors;
  std::vector<std::string> notes;  // said on stderr, in file order
  Deps deps;                       // with --cache-dir: what the TU read
};

std::string Absolute(const std::string& path) {
  SmallString<256> p(path);
  llvm::sys::fs::make_absolute(p);
  llvm::sys::path::remove_dots(p, true);
  return std::string(p.str());
}

// The working directory of the first compile command of `file` that does not
// exist, or "" when all do.
std::string MissingDirectory(const tooling::CompilationDatabase& db, const std::string& file) {
  for (const tooling::CompileCommand& cmd : db.getCompileCommands(file)) {
    if (!cmd.Directory.empty() && !llvm::sys::fs::is_directory(cmd.Directory)) return cmd.Directory;
  }
  return "";
}

UnitResult RunUnit(const tooling::CompilationDatabase& db, const std::string& file,
                   const RunOptions& options, const ApiModel& model, bool record_deps,
                   PhaseTimes* times) {
  if (times) times->start = Stamp::Now();
  UnitResult out;
  TuContext tu(model, options.checks);
  IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs(llvm::vfs::createPhysicalFileSystem().release());
  tooling::ClangTool tool(db, {file}, std::make_shared<PCHContainerOperations>(), fs);
  tool.setPrintErrorMessage(false);
  ErrorCollector errors;
  tool.setDiagnosticConsumer(&errors);
  tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
      {"-resource-dir=" TETHER_CLANG_RESOURCE_DIR}, tooling::ArgumentInsertPosition::BEGIN));
  std::vector<std::string> extra = {"-w", "-Wno-unknown-warning-option"};
  if (!options.build_dir.empty() || !options.have_fixed_args)
    extra.insert(extra.end(), options.extra_args.begin(), options.extra_args.end());
  tool.appendArgumentsAdjuster(
      tooling::getInsertArgumentAdjuster(extra, tooling::ArgumentInsertPosition::END));
  // A CMake precompiled header made by g++ (`-include .../cmake_pch.hxx`
  // with a .gch beside it) cannot be read by Clang; include the header as
  // text instead (cc1's -include does not look for a PCH).
  tool.appendArgumentsAdjuster([](const tooling::CommandLineArguments& args, StringRef) {
    tooling::CommandLineArguments out;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "-include" && i + 1 < args.size() &&
          StringRef(args[i + 1]).endswith("cmake_pch.hxx")) {
        out.insert(out.end(), {"-Xclang", "-include", "-Xclang", args[++i]});
        continue;
      }
      out.push_back(args[i]);
    }
    return out;
  });
  AstOutcome ast;
  ast.record_deps = record_deps;
  ast.times = times;
  CheckActionFactory factory(tu, ast);
  if (times) times->tool_ready = Stamp::Now();
  int rc = tool.run(&factory);
  if (times) times->end = Stamp::Now();
  if (rc != 0 || !errors.errors.empty()) {
    out.failed = true;
    out.errors = errors.errors;
    if (errors.count > out.errors.size())
      out.errors.push_back("(and " + std::to_string(errors.count - out.errors.size()) +
                           " more errors)");
    if (!ast.analysed) {
      if (out.errors.empty())
        out.errors.push_back("error: the compiler could not run for this file");
      return out;
    }
    out.partial = true;
  }
  out.analysed = true;
  out.model_types = ast.model_types;
  out.deps = std::move(ast.deps);
  out.findings = std::move(tu.findings);
  out.facts = std::move(tu.facts);
  out.suppressed = tu.suppressed;
  return out;
}

// What, besides the files it reads, decides a TU's results: its compile
// commands and the arguments this run adds (cache.hpp).
std::vector<std::string> KeyParts(const tooling::CompilationDatabase& db, const std::string& file,
                                  const RunOptions& options) {
  std::vector<std::string> parts = {"resource-dir", TETHER_CLANG_RESOURCE_DIR,
                                    "fixed",        options.have_fixed_args ? "1" : "0",
                                    "build-dir",    options.build_dir};
  for (const tooling::CompileCommand& c : db.getCompileCommands(file)) {
    parts.push_back("command");
    parts.push_back(c.Directory);
    parts.insert(parts.end(), c.CommandLine.begin(), c.CommandLine.end());
  }
  parts.push_back("extra");
  parts.insert(parts.end(), options.extra_args.begin(), options.extra_args.end());
  return parts;
}

// The note for a FILE given on the command line that the compile database
// does not list: LLVM's JSON database then infers a command from the nearest
// listed file (as clang-tidy uses it); the file is checked with it, and the
// note says so. "" when the file is listed (or no database is involved).
std::string InferredCommandNote(const tooling::CompilationDatabase& db, const std::string& file,
                                const RunOptions& options) {
  if (options.files.empty() || (options.have_fixed_args && options.build_dir.empty())) return "";
  std::vector<tooling::CompileCommand> cmds = db.getCompileCommands(file);
  if (cmds.empty() || cmds.front().Heuristic.empty()) return "";
  std::string where = options.build_dir.empty() ? std::string("the compile database")
                                                : options.build_dir + "/compile_commands.json";
  std::string command;
  for (const std::string& arg : cmds.front().CommandLine)
    command += (command.empty() ? "" : " ") + arg;
  return file + " is not in " + where + ": checked with a command " + cmds.front().Heuristic +
         ": " + command;
}

// The compile database the options name: -p's compile_commands.json, the
// arguments after `--`, or one found above the first FILE. Null with *error.
std::unique_ptr<tooling::CompilationDatabase> OpenDatabase(const RunOptions& options,
                                                           std::string* error) {
  std::string err;
  if (!options.build_dir.empty()) {
    // LLVM reads compile_commands.json whatever it is: a FIFO would block it
    // for ever, /dev/zero exhaust memory. Refuse those first, as every input.
    // (Absent: LLVM says so, or finds compile_flags.txt.)
    if (std::string bad = RefuseUnreadableInput(options.build_dir + "/compile_commands.json");
        !bad.empty()) {
      *error = bad;
      return nullptr;
    }
    auto db = tooling::CompilationDatabase::loadFromDirectory(options.build_dir, err);
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

// The TUs to check, sorted and unique: the FILEs given, or every file the
// database lists, less --exclude's. Empty with *error: checking nothing is
// not a clean result.
std::vector<std::string> SelectUnits(const tooling::CompilationDatabase& db,
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

// Phase 1: every selected TU on `jobs` threads, each read from the cache
// when it holds the TU's key, else parsed and checked (and stored).
class UnitPool {
 public:
  UnitPool(const tooling::CompilationDatabase& db, const std::vector<std::string>& selected,
           const RunOptions& options, const ApiModel& model, ResultCache* cache, double run_start)
      : db_(db),
        selected_(selected),
        options_(options),
        model_(model),
        cache_(cache),
        run_start_(run_start),
        time_phases_(TimePhasesRequested()),
        units_(selected.size()) {}

  unsigned Jobs() const {
    return std::max(1u, std::min<unsigned>(options_.jobs, selected_.size() ? selected_.size() : 1));
  }

  // The units' results in `selected` order; cache notes go to *notes.
  std::vector<UnitResult> Run(std::vector<std::string>* notes) {
    notes_ = notes;
    std::vector<std::thread> workers;
    for (unsigned j = 1; j < Jobs(); ++j) workers.emplace_back([this] { Work(); });
    Work();
    for (auto& t : workers) t.join();
    return std::move(units_);
  }

  unsigned parsed() const { return parsed_; }
  unsigned reused() const { return reused_; }

 private:
  void Work() {
    const unsigned worker = next_worker_++;
    for (size_t i = next_++; i < selected_.size(); i = next_++) {
      if (options_.progress) {
        std::lock_guard<std::mutex> lock(mu_);
        std::cerr << "[" << (i + 1) << "/" << selected_.size() << "] " << selected_[i] << "\n";
      }
      CheckUnit(worker, selected_[i], &units_[i]);
    }
  }

  // The error that keeps `file` from being run at all, or "".
  std::string UnrunnableReason(const std::string& file) const {
    if (!options_.files.empty() && !options_.have_fixed_args && !options_.build_dir.empty() &&
        db_.getCompileCommands(file).empty())
      return "error: no compile command for this file in " + options_.build_dir +
             "/compile_commands.json";
    // ClangTool aborts the process ("Cannot chdir") on a compile command
    // whose directory is gone: say so for this unit instead.
    if (std::string dir = MissingDirectory(db_, file); !dir.empty())
      return "error: the compile command's directory '" + dir +
             "' does not exist (is compile_commands.json stale?)";
    return "";
  }

  void Note(std::string note) {
    std::lock_guard<std::mutex> lock(mu_);
    notes_->push_back(std::move(note));
  }

  // Whether the cache held `key`: then *unit has its results.
  bool FromCache(const std::string& key, UnitResult* unit) {
    CachedUnit hit;
    std::string note;
    bool found = cache_->Lookup(key, &hit, &note);
    if (!note.empty()) Note(std::move(note));
    if (!found) return false;
    unit->findings = std::move(hit.findings);
    unit->facts = std::move(hit.facts);
    unit->suppressed = hit.suppressed;
    unit->model_types = hit.model_types;
    unit->analysed = true;
    return true;
  }

  void CheckUnit(unsigned worker, const std::string& file, UnitResult* unit) {
    if (std::string reason = UnrunnableReason(file); !reason.empty()) {
      unit->failed = true;
      unit->errors.push_back(std::move(reason));
      return;
    }
    std::string inferred = InferredCommandNote(db_, file, options_);
    std::string key;
    if (cache_) {
      key = cache_->UnitKey(file, KeyParts(db_, file, options_));
      if (FromCache(key, unit)) {
        if (!inferred.empty()) unit->notes.push_back(std::move(inferred));
        ++reused_;
        return;
      }
    }
    PhaseTimes times;
    *unit =
        RunUnit(db_, file, options_, model_, cache_ != nullptr, time_phases_ ? &times : nullptr);
    if (!inferred.empty()) unit->notes.insert(unit->notes.begin(), std::move(inferred));
    if (time_phases_) {
      std::lock_guard<std::mutex> lock(mu_);
      PrintPhases(worker, file, times, run_start_);
    }
    ++parsed_;
    std::string error;
    if (cache_ && !unit->failed &&
        !cache_->Store(key, unit->findings, unit->facts, unit->suppressed, unit->model_types,
                       unit->deps, &error))
      Note("cannot write the cache entry: " + error);
  }

  const tooling::CompilationDatabase& db_;
  const std::vector<std::string>& selected_;
  const RunOptions& options_;
  const ApiModel& model_;
  ResultCache* cache_;
  const double run_start_;
  const bool time_phases_;
  std::vector<UnitResult> units_;
  std::vector<std::string>* notes_ = nullptr;
  std::mutex mu_;  // notes_, stderr
  std::atomic<size_t> next_{0};
  std::atomic<unsigned> next_worker_{0};
  std::atomic<unsigned> parsed_{0}, reused_{0};
};

// Folds the units' notes, failures, findings and facts into *result, in file
// order. Returns {TUs analysed, of which declare a model type}.
std::pair<unsigned, unsigned> MergeUnits(const std::vector<std::string>& selected,
                                         std::vector<UnitResult>& units, RunResult* result) {
  unsigned analysed = 0, with_model_types = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    UnitResult& u = units[i];
    for (std::string& n : u.notes) result->notes.push_back(std::move(n));
    if (u.failed) result->summary.failed.push_back({selected[i], u.errors, u.partial});
    if (!u.analysed) continue;
    ++analysed;
    with_model_types += u.model_types;
    for (Finding& f : u.findings) result->summary.findings.push_back(std::move(f));
    result->summary.suppressed += u.suppressed;
    result->facts.Merge(std::move(u.facts));
  }
  return {analysed, with_model_types};
}

// Phase 2: each enabled check's cross-TU half and the may-block summary over
// every TU's facts; then all findings are deduplicated (a header seen by
// several TUs) and attributed.
void ResolveCrossTu(const RunOptions& options, const ApiModel& model, RunResult* result) {
  TuContext whole(model, options.checks);
  whole.max_chain_depth = options.max_chain_depth;
  for (const CheckRegistration& r : CheckRegistry()) {
    if (!whole.Enabled(r.info.name)) continue;
    std::unique_ptr<Check> check = r.make(whole);
    if (!check->UsesFacts()) continue;
    for (Finding& f : check->Finish(result->facts))
      result->summary.findings.push_back(std::move(f));
  }
  // A task or loop whose blocking is in another TU (the may-block summary).
  for (Finding& f : ResolveBlockCandidates(result->facts, kMaxBlockingDepth))
    result->summary.findings.push_back(std::move(f));
  SortAndDedupe(&result->summary.findings);
  AttributeFindings(result->facts, &result->summary.findings);
}

void PrintRunTimes(const Stamp& run_start, const Stamp& db_loaded, const Stamp& units_done,
                   unsigned jobs) {
  const Stamp end = Stamp::Now();
  char line[256];
  std::snprintf(line, sizeof line,
                "tether check: time: run (wall s) load-database %.3f units %.3f with %u jobs "
                "merge-and-resolve %.3f total %.3f\n",
                db_loaded.wall - run_start.wall, units_done.wall - db_loaded.wall, jobs,
                end.wall - units_done.wall, end.wall - run_start.wall);
  std::cerr << line;
}

}  // namespace

RunResult RunChecks(const RunOptions& options, const ApiModel& model) {
  const Stamp run_start = Stamp::Now();
  RunResult result;
  std::unique_ptr<tooling::CompilationDatabase> db = OpenDatabase(options, &result.error);
  if (!db) return result;
  std::vector<std::string> selected = SelectUnits(*db, options, &result.error);
  if (selected.empty()) return result;
  for (const CheckRegistration& r : CheckRegistry())
    if (CheckEnabled(options.checks, r.info.name)) result.summary.enabled_checks.push_back(r.info);

  std::unique_ptr<ResultCache> cache;
  if (!options.cache_dir.empty()) {
    cache = std::make_unique<ResultCache>(options.cache_dir, model, options.checks);
    if (!cache->Prepare(&result.error)) return result;
  }

  const Stamp db_loaded = Stamp::Now();
  UnitPool pool(*db, selected, options, model, cache.get(), run_start.wall);
  std::vector<UnitResult> units = pool.Run(&result.notes);
  const Stamp units_done = Stamp::Now();

  auto [analysed, with_model_types] = MergeUnits(selected, units, &result);
  ResolveCrossTu(options, model, &result);
  if (TimePhasesRequested()) PrintRunTimes(run_start, db_loaded, units_done, pool.Jobs());
  if (analysed > 0 && with_model_types == 0)
    result.notes.push_back("none of the model's types appear in " + std::to_string(analysed) +
                           (analysed == 1 ? " TU" : " TUs") + ": nothing to check; see --model");
  result.summary.units = static_cast<unsigned>(selected.size());
  result.parsed = pool.parsed();
  result.reused = pool.reused();
  return result;
}

}  // namespace tether::check
