// The facts of one TU (fact_collector.hpp), from a walk of its AST. The
// cross-TU half that reads them is facts.cpp.
#include "fact_collector.hpp"

#include "ast_util.hpp"
#include "blocking.hpp"

namespace tether::check {

using namespace clang;

namespace {

// Per-function facts for the transitive check and the static graph.
class FactCollector : public RecursiveASTVisitor<FactCollector> {
 public:
  FactCollector(TuContext& tu, ASTContext& ctx) : tu_(tu), ctx_(ctx), sm_(ctx.getSourceManager()) {}

  bool TraverseDecl(Decl* d) {
    auto* fn = dyn_cast_or_null<FunctionDecl>(d);
    if (!fn || !fn->doesThisDeclarationHaveABody()) return RecursiveASTVisitor::TraverseDecl(d);
    if (sm_.isInSystemHeader(fn->getLocation())) return true;
    Push(fn);
    bool ok = RecursiveASTVisitor::TraverseDecl(d);
    stack_.pop_back();
    return ok;
  }
  bool TraverseLambdaExpr(LambdaExpr* e) {
    Push(e->getCallOperator());
    bool ok = RecursiveASTVisitor::TraverseLambdaExpr(e);
    stack_.pop_back();
    return ok;
  }
  bool VisitCallExpr(CallExpr* call) {
    if (stack_.empty()) return true;
    FunctionFact& f = *stack_.back();
    if (std::string root = RootName(call, tu_.model()); !root.empty()) AddRoot(f, call, root);
    const FunctionDecl* callee = call->getDirectCallee();
    if (std::string why; f.blocks.empty() && IsBlockingCall(call, tu_.model(), &why)) {
      f.blocks = ChainName(callee);
      Note n = tu_.MakeNote(sm_, call->getBeginLoc(), "");
      f.blocks_file = n.file;
      f.blocks_line = n.line;
      f.blocks_col = n.col;
    }
    if (!callee || IsUnresolvableCall(call) || sm_.isInSystemHeader(callee->getLocation()))
      return true;
    CallFact c;
    c.to = Usr(WrittenFunction(callee));
    c.to_name = DisplayName(callee);
    SetPos(call->getBeginLoc(), &c.file, &c.line);
    for (const Expr* arg : call->arguments())
      c.passes_context |= IsContextType(arg->getType(), tu_.model());
    if (!c.to.empty()) f.calls.push_back(std::move(c));
    return true;
  }
  bool VisitCXXTemporaryObjectExpr(CXXTemporaryObjectExpr* e) {
    if (stack_.empty()) return true;
    if (std::string root = RootName(e, tu_.model()); !root.empty())
      AddRoot(*stack_.back(), e, root);
    return true;
  }

 private:
  void SetPos(SourceLocation loc, std::string* file, unsigned* line) {
    Note n = tu_.MakeNote(sm_, loc, "");
    *file = n.file;
    *line = n.line;
  }
  void Push(const FunctionDecl* fn) {
    std::string id = Usr(fn);
    FunctionFact& f = tu_.facts.functions[id.empty() ? DisplayName(fn) : id];
    f.id = id;
    f.name = fn->getNameAsString();
    f.qualified_name = DisplayName(fn);
    SetPos(fn->getLocation(), &f.file, &f.line);
    std::string end_file;
    SetPos(fn->getEndLoc(), &end_file, &f.end_line);
    std::vector<ReachableContext> reachable = ReachableContexts(fn, tu_.model());
    // A template's parameters of dependent type carry what its instantiations
    // say (HandleLookup<Req>(const Req& req) with req.ctx).
    if (const FunctionTemplateDecl* t = fn->getDescribedFunctionTemplate(); t && reachable.empty())
      for (const FunctionDecl* spec : t->specializations())
        if (reachable.empty()) reachable = ReachableContexts(spec, tu_.model());
    f.receives_context = !reachable.empty();
    f.takes_context = false;
    for (const ReachableContext& r : reachable) f.takes_context |= r.how != "member";
    f.returns_context = MayCreateRoots(fn, tu_.model());
    f.entry_point = f.returns_context && !ReturnsContext(fn, tu_.model());
    f.creates_roots.clear();
    f.calls.clear();
    f.blocks.clear();
    stack_.push_back(&f);
  }
  void AddRoot(FunctionFact& f, const Expr* e, const std::string& root) {
    RootSite r;
    Note n = tu_.MakeNote(sm_, e->getBeginLoc(), "");
    r.file = n.file;
    r.line = n.line;
    r.col = n.col;
    r.call = root;
    r.justified = tu_.Justified(sm_, e->getBeginLoc(), kContextNotForwardedCheckName);
    f.creates_roots.push_back(std::move(r));
  }

  TuContext& tu_;
  ASTContext& ctx_;
  const SourceManager& sm_;
  std::vector<FunctionFact*> stack_;
};

}  // namespace

void CollectFacts(TuContext& tu, ASTContext& ctx) {
  FactCollector(tu, ctx).TraverseDecl(ctx.getTranslationUnitDecl());
}

}  // namespace tether::check
