/// tether-task-ignores-context: a task that is given a context, or can
/// capture one, but never reads it (no Done/Err/Value, never passes it on)
/// while it blocks: the log-copying goroutine of Vela's TailContainer that
/// outlives its build. Docs: docs/checks/task-ignores-context.md
#include "../ast_util.hpp"
#include "../blocking.hpp"
#include "../check_base.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class TaskIgnoresContextCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    std::vector<StringRef> spawns(model().task_spawns.begin(), model().task_spawns.end());
    if (spawns.empty()) return;
    finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(spawns)))).bind("spawn"), this);
    finder->addMatcher(
        cxxConstructExpr(hasDeclaration(functionDecl(hasAnyName(spawns)))).bind("spawn"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* spawn = result.Nodes.getNodeAs<Expr>("spawn");
    if (!spawn || spawn->isValueDependent()) return;
    std::vector<const Expr*> args;
    if (const auto* call = dyn_cast<CallExpr>(spawn))
      args.assign(call->arg_begin(), call->arg_end());
    else if (const auto* ctor = dyn_cast<CXXConstructExpr>(spawn))
      args.assign(ctor->arg_begin(), ctor->arg_end());
    const LambdaExpr* lambda = nullptr;
    std::string given;  // a context handed to the spawn itself: Go(ctx, f), std::thread(f, ctx)
    QualType given_type;
    for (const Expr* arg : args) {
      if (isa<CXXDefaultArgExpr>(arg)) continue;
      if (const LambdaExpr* l = LambdaOf(arg)) {
        if (!lambda) lambda = l;
      } else if (given.empty() && IsContextType(arg->getType(), model())) {
        given = Spelling(arg);
        given_type = arg->getType();
      }
    }
    if (!lambda) return;
    const CXXMethodDecl* op = lambda->getCallOperator();
    if (!op || !op->hasBody()) return;

    // The contexts the task has: its own context parameters, what it
    // captures or can name, and what the spawn hands it.
    std::string ctx_name;
    QualType ctx_type;
    bool has_param = false;
    for (const ParmVarDecl* p : op->parameters()) {
      if (!IsContextType(p->getType(), model())) continue;
      has_param = true;
      if (ctx_type.isNull()) ctx_type = p->getType();
      if (ctx_name.empty() && p->getIdentifier()) ctx_name = p->getNameAsString();
    }
    if (ctx_name.empty()) {
      ctx_name = given;
      if (ctx_type.isNull()) ctx_type = given_type;
    }
    if (ctx_name.empty() && has_param) ctx_name = "the context parameter";
    if (ctx_name.empty()) {
      std::vector<ReachableContext> reachable = ReachableContexts(op, model());
      if (reachable.empty()) return;
      ctx_name = reachable[0].spelling;
      ctx_type = reachable[0].type;
    }
    if (ReadsContext(op->getBody(), model())) return;
    if (!may_block_) may_block_ = std::make_unique<MayBlock>(model(), ast());
    BlockingPath path;
    std::vector<ExternalCall> external;
    const bool blocks = may_block_->Find(op->getBody(), true, &path, &external);
    if (!blocks && external.empty()) return;

    const bool std_words = !ctx_type.isNull() && IsStdContext(ctx_type);
    if (std_words && ctx_name == "the context parameter") ctx_name = "the stop_token parameter";
    const std::string message =
        std_words ? "task started here has stop_token '" + ctx_name +
                        "' but never reads it (no stop_requested(), no stop_callback, never passes "
                        "it on) "
                        "while it blocks; it keeps running after a stop is requested"
                  : "task started here has context '" + ctx_name +
                        "' but never reads it (no Done/Err/Value, never passes it on) "
                        "while it blocks; it keeps running after '" +
                        ctx_name + "' is cancelled";
    if (!blocks) {
      // Whether it blocks is decided from the facts of the callees' TUs.
      for (const ExternalCall& x : external) {
        BlockCandidate c;
        if (!tu().MakeFinding(sm(), name(), SpawnLoc(spawn), message, &c.finding)) return;
        c.finding.notes.push_back(tu().MakeNote(sm(), x.at->getBeginLoc(), "the task blocks here"));
        c.callee_id = Usr(WrittenFunction(x.callee));
        c.callee_name = DisplayName(x.callee);
        if (!c.callee_id.empty()) tu().facts.block_candidates.push_back(std::move(c));
      }
      return;
    }
    Finding* f = diag(SpawnLoc(spawn), message);
    if (!f) return;
    NoteBlocking(f, path, "the task");
  }

  // A task that blocks only through a callee defined in another TU was left
  // as a block candidate; the facts of every TU decide it.
  bool UsesFacts() const override { return true; }
  std::vector<Finding> Finish(const Facts& facts) override {
    return ResolveBlockCandidates(facts, name(), kMaxBlockingDepth);
  }

 private:
  // The lambda an argument is, directly or through a local variable.
  static const LambdaExpr* LambdaOf(const Expr* arg) {
    const Expr* e = arg->IgnoreImplicit();
    if (const auto* ctor = dyn_cast<CXXConstructExpr>(e); ctor && ctor->getNumArgs() == 1)
      e = ctor->getArg(0)->IgnoreImplicit();
    if (const auto* l = dyn_cast<LambdaExpr>(e)) return l;
    if (const auto* dre = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
      if (const auto* v = dyn_cast<VarDecl>(dre->getDecl()); v && v->getInit())
        return dyn_cast<LambdaExpr>(v->getInit()->IgnoreImplicit());
    return nullptr;
  }

  // The note at the call in the task, with the chain down to the primitive,
  // and one at the primitive when it is in a callee.
  void NoteBlocking(Finding* f, const BlockingPath& path, const std::string& who) {
    if (path.chain.size() <= 1) {
      note(f, path.at->getBeginLoc(), who + " blocks here: " + path.why);
      return;
    }
    note(f, path.at->getBeginLoc(),
         who + " blocks here: '" + path.chain.front() + "' blocks without a context (" +
             path.Chain() + ")");
    note(f, path.primitive->getBeginLoc(), path.why);
  }

  std::string Spelling(const Expr* e) {
    CharSourceRange r = CharSourceRange::getTokenRange(e->getSourceRange());
    return std::string(Lexer::getSourceText(r, sm(), ast().getLangOpts()));
  }

  static SourceLocation SpawnLoc(const Expr* spawn) {
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(spawn))
      if (const auto* me = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens()))
        return me->getMemberLoc();
    if (const auto* call = dyn_cast<CallExpr>(spawn))
      if (const auto* dre = dyn_cast<DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts()))
        return dre->getBeginLoc();
    return spawn->getBeginLoc();
  }

  std::unique_ptr<MayBlock> may_block_;
};

}  // namespace

CheckRegistration TaskIgnoresContextCheckRegistration() {
  return RegisterCheck<TaskIgnoresContextCheck>(
      {"tether-task-ignores-context", "A task has a context but never reads it while it blocks.",
       "A task (TaskGroup::Go, tether::Go, AfterFunc, a std::thread or std::jthread lambda) is "
       "given a context or can capture one, but neither its body nor the same-TU functions it "
       "calls read it (no Done/Err/Value, never passed on), while it blocks: it reads a pipe or "
       "stream, waits, sleeps or loops without a bound. Cancelling the context does not stop it: "
       "the log goroutine of Vela's TailContainer.",
       "Read the context in the task: pass it to the blocking call, wait on ctx.Done() together "
       "with the other source (tether::Select), or check ctx.Err() in the loop.",
       "medium"});
}

}  // namespace tether::check
