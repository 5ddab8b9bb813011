// Phase 1 over every unit, a distinct compile command of a selected file
// (compdb.hpp; worker threads, one ClangTool and one parse each): parse, run
// the enabled checks, gather per-function facts. Phase 2: merge the units of
// each file, then everything in file order, and resolve the cross-TU
// candidates.
#include "tether/check/runner.hpp"

#include <algorithm>
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
#include "cache.hpp"
#include "check_base.hpp"
#include "compdb.hpp"
#include "fact_collector.hpp"
#include "phase_times.hpp"

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

// The one compile command of a unit, already adjusted (compdb.cpp), as the
// database its ClangTool runs: one ClangTool, one parse. A file the database
// lists twice is two units, each with a TuContext of its own: a TuContext
// keeps views into its parse's source buffers (TuContext::Info), which a
// second parse by the same tool would free under it.
class UnitDatabase : public tooling::CompilationDatabase {
 public:
  explicit UnitDatabase(tooling::CompileCommand command) : command_(std::move(command)) {}
  std::vector<tooling::CompileCommand> getCompileCommands(StringRef) const override {
    return {command_};
  }

 private:
  tooling::CompileCommand command_;
};

UnitResult RunUnit(const Unit& unit, const ApiModel& model, const std::string& checks,
                   bool record_deps, PhaseTimes* times) {
  if (times) times->start = Stamp::Now();
  UnitResult out;
  TuContext tu(model, checks);
  UnitDatabase db(unit.command);
  IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs(llvm::vfs::createPhysicalFileSystem().release());
  tooling::ClangTool tool(db, {unit.key.file}, std::make_shared<PCHContainerOperations>(), fs);
  // The command is run as it is: its adjusters were applied when the units
  // were selected, the same ones whatever the unit (CheckerAdjuster).
  tool.clearArgumentsAdjusters();
  tool.setPrintErrorMessage(false);
  ErrorCollector errors;
  tool.setDiagnosticConsumer(&errors);
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

// What, besides the files it reads, decides a unit's results: its command as
// it is run (directory and adjusted arguments: the extra arguments and the
// resource directory are in them), cache.hpp.
std::vector<std::string> KeyParts(const Unit& unit) {
  std::vector<std::string> parts = {"directory", unit.key.directory, "arguments"};
  parts.insert(parts.end(), unit.key.arguments.begin(), unit.key.arguments.end());
  return parts;
}

// Phase 1: every unit on `jobs` threads, each read from the cache when it
// holds the unit's key, else parsed and checked (and stored).
class UnitPool {
 public:
  UnitPool(const std::vector<Unit>& units, const RunOptions& options, const ApiModel& model,
           ResultCache* cache, double run_start)
      : units_(units),
        options_(options),
        model_(model),
        cache_(cache),
        run_start_(run_start),
        time_phases_(TimePhasesRequested()),
        results_(units.size()) {}

  unsigned Jobs() const {
    return std::max(1u, std::min<unsigned>(options_.jobs, units_.size() ? units_.size() : 1));
  }

  // The units' results in `units` order; cache notes go to *notes.
  std::vector<UnitResult> Run(std::vector<std::string>* notes) {
    notes_ = notes;
    std::vector<std::thread> workers;
    for (unsigned j = 1; j < Jobs(); ++j) workers.emplace_back([this] { Work(); });
    Work();
    for (auto& t : workers) t.join();
    return std::move(results_);
  }

  unsigned parsed() const { return parsed_; }
  unsigned reused() const { return reused_; }

 private:
  void Work() {
    const unsigned worker = next_worker_++;
    for (size_t i = next_++; i < units_.size(); i = next_++) {
      const Unit& u = units_[i];
      if (options_.progress) {
        std::lock_guard<std::mutex> lock(mu_);
        std::cerr << "[" << (i + 1) << "/" << units_.size() << "] " << u.key.file;
        if (u.count > 1) std::cerr << " (compile command " << u.index << " of " << u.count << ")";
        std::cerr << "\n";
      }
      CheckUnit(worker, u, &results_[i]);
    }
  }

  void Note(std::string note) {
    std::lock_guard<std::mutex> lock(mu_);
    notes_->push_back(std::move(note));
  }

  // Whether the cache held `key`: then *result has its results.
  bool FromCache(const std::string& key, UnitResult* result) {
    CachedUnit hit;
    std::string note;
    bool found = cache_->Lookup(key, &hit, &note);
    if (!note.empty()) Note(std::move(note));
    if (!found) return false;
    result->findings = std::move(hit.findings);
    result->facts = std::move(hit.facts);
    result->suppressed = hit.suppressed;
    result->model_types = hit.model_types;
    result->analysed = true;
    return true;
  }

  void CheckUnit(unsigned worker, const Unit& unit, UnitResult* result) {
    if (!unit.error.empty()) {
      result->failed = true;
      result->errors.push_back(unit.error);
      return;
    }
    std::string key;
    if (cache_) {
      key = cache_->UnitKey(unit.key.file, KeyParts(unit));
      if (FromCache(key, result)) {
        if (!unit.note.empty()) result->notes.push_back(unit.note);
        if (!unit.system_note.empty()) result->notes.push_back(unit.system_note);
        ++reused_;
        return;
      }
    }
    PhaseTimes times;
    *result =
        RunUnit(unit, model_, options_.checks, cache_ != nullptr, time_phases_ ? &times : nullptr);
    if (!unit.note.empty()) result->notes.insert(result->notes.begin(), unit.note);
    if (!unit.system_note.empty()) result->notes.push_back(unit.system_note);
    if (time_phases_) {
      std::lock_guard<std::mutex> lock(mu_);
      PrintPhases(worker, unit.key.file, times, run_start_);
    }
    ++parsed_;
    std::string error;
    if (cache_ && !result->failed &&
        !cache_->Store(key, result->findings, result->facts, result->suppressed,
                       result->model_types, result->deps, &error))
      Note("cannot write the cache entry: " + error);
  }

  const std::vector<Unit>& units_;
  const RunOptions& options_;
  const ApiModel& model_;
  ResultCache* cache_;
  const double run_start_;
  const bool time_phases_;
  std::vector<UnitResult> results_;
  std::vector<std::string>* notes_ = nullptr;
  std::mutex mu_;  // notes_, stderr
  std::atomic<size_t> next_{0};
  std::atomic<unsigned> next_worker_{0};
  std::atomic<unsigned> parsed_{0}, reused_{0};
};

// Folds the units' notes, failures, findings and facts into *result, in file
// order, the units of one file merged first (MergeFileUnits). Returns {units
// analysed, of which declare a model type}.
std::pair<unsigned, unsigned> MergeUnits(const std::vector<Unit>& units,
                                         std::vector<UnitResult>& results, RunResult* result) {
  unsigned analysed = 0, with_model_types = 0;
  for (size_t i = 0; i < results.size();) {
    std::vector<UnitResult> same_file;
    size_t end = i;
    for (; end < results.size() && units[end].key.file == units[i].key.file; ++end) {
      analysed += results[end].analysed;
      with_model_types += results[end].analysed && results[end].model_types;
      same_file.push_back(std::move(results[end]));
    }
    UnitResult u = MergeFileUnits(std::move(same_file));
    for (std::string& n : u.notes)
      if (std::find(result->notes.begin(), result->notes.end(), n) == result->notes.end())
        result->notes.push_back(std::move(n));
    if (u.failed) result->summary.failed.push_back({units[i].key.file, u.errors, u.partial});
    i = end;
    if (!u.analysed) continue;
    for (Finding& f : u.findings) result->summary.findings.push_back(std::move(f));
    result->summary.suppressed += u.suppressed;
    result->facts.Merge(std::move(u.facts));
  }
  return {analysed, with_model_types};
}

// Phase 2: each enabled check's cross-TU half (Finish) over every TU's facts;
// then all findings are deduplicated (a header seen by several TUs) and
// attributed.
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
  SortAndDedupe(&result->summary.findings);
  AttributeFindings(result->facts, &result->summary.findings);
}

// The unit's main file as findings name it: absolute, symbolic links resolved.
std::string RealPath(const Unit& u) {
  llvm::SmallString<256> path(u.key.file);
  if (!u.key.directory.empty()) llvm::sys::fs::make_absolute(u.key.directory, path);
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real)) return std::string(path.str());
  return std::string(real.str());
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
  std::string source;
  std::unique_ptr<tooling::CompilationDatabase> db = OpenDatabase(options, &result.error, &source);
  if (!db) return result;
  const std::vector<Unit> units = SelectUnits(*db, options, &result.error);
  if (units.empty()) return result;
  // A stale database is an error of the database, before any parse.
  result.error = StaleDirectoryError(units, source);
  if (!result.error.empty()) return result;
  for (const CheckRegistration& r : CheckRegistry())
    if (CheckEnabled(options.checks, r.info.name)) result.summary.enabled_checks.push_back(r.info);
  for (const Unit& u : units) result.unit_files.push_back(RealPath(u));

  std::unique_ptr<ResultCache> cache;
  if (!options.cache_dir.empty()) {
    cache = std::make_unique<ResultCache>(options.cache_dir, model, options.checks);
    if (!cache->Prepare(&result.error)) return result;
  }

  const Stamp db_loaded = Stamp::Now();
  UnitPool pool(units, options, model, cache.get(), run_start.wall);
  std::vector<UnitResult> results = pool.Run(&result.notes);
  const Stamp units_done = Stamp::Now();

  auto [analysed, with_model_types] = MergeUnits(units, results, &result);
  ResolveCrossTu(options, model, &result);
  if (TimePhasesRequested()) PrintRunTimes(run_start, db_loaded, units_done, pool.Jobs());
  if (analysed > 0 && with_model_types == 0)
    result.notes.push_back("none of the model's types appear in " + std::to_string(analysed) +
                           (analysed == 1 ? " TU" : " TUs") + ": nothing to check; see --model");
  result.summary.units = static_cast<unsigned>(units.size());
  result.parsed = pool.parsed();
  result.reused = pool.reused();
  return result;
}

}  // namespace tether::check
