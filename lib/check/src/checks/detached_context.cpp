/// tether-detached-context: a root context created where a context is
/// reachable (parameter, captured variable, member, request-like carrier),
/// or inside a lambda that is returned from a function that has a context
/// (the lambda runs on that function's behalf; it should capture the context).
/// Docs: docs/checks/detached-context.md
#include <functional>

#include "../ast_util.hpp"
#include "../check_base.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class DetachedContextCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    std::vector<StringRef> roots(model().root_factories.begin(), model().root_factories.end());
    auto in_function = forCallable(functionDecl().bind("fn"));
    if (!roots.empty())
      finder->addMatcher(
          callExpr(callee(functionDecl(hasAnyName(roots))), in_function).bind("root"), this);
    if (model().default_constructed_context_is_root)
      finder->addMatcher(cxxTemporaryObjectExpr(argumentCountIs(0), in_function).bind("root"),
                         this);
    std::vector<StringRef> sources(model().root_sources.begin(), model().root_sources.end());
    sources.insert(sources.end(), model().root_spawns.begin(), model().root_spawns.end());
    if (!sources.empty())
      finder->addMatcher(varDecl(hasLocalStorage(), unless(parmVarDecl()),
                                 hasType(hasUnqualifiedDesugaredType(recordType(
                                     hasDeclaration(cxxRecordDecl(hasAnyName(sources)))))))
                             .bind("source"),
                         this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    if (const auto* source = result.Nodes.getNodeAs<VarDecl>("source")) {
      CheckRootSource(source);
      return;
    }
    const auto* root = result.Nodes.getNodeAs<Expr>("root");
    const auto* fn = result.Nodes.getNodeAs<FunctionDecl>("fn");
    if (!root || !fn) return;
    std::string name = RootName(root, model());
    if (name.empty() || MayCreateRoots(fn, model()) || InsideSanctionedDetach(root) ||
        RootLinked(root, fn))
      return;
    std::string shown = name.back() == '}' ? name : name + "()";
    std::vector<ReachableContext> reachable = ReachableContexts(fn, model());
    if (reachable.empty()) {
      ReportReturnedLambda(root, fn, shown);
      return;
    }
    std::string msg = "root context '" + shown + "' created in '" + DisplayName(fn) +
                      "', which can reach context '" + reachable[0].spelling + "'";
    if (reachable.size() > 1) msg += " (and " + std::to_string(reachable.size() - 1) + " more)";
    msg += IsStdContext(root->getType())
               ? "; pass it on, or say why it must not stop with a tether:detached(<why>) comment"
               : "; pass it on, or detach visibly with WithoutCancel and a tether:detached(<why>) "
                 "comment";
    Finding* f = diag(root->getBeginLoc(), msg);
    if (!f) return;
    for (const ReachableContext& r : reachable)
      note(f, r.where, "context '" + r.spelling + "' is reachable here (" + r.how + ")");
    // A function that owns a scope (tether::Scope) runs its work in the
    // scope's context: the fix takes that one, so the scope's end (and the
    // tracer) still covers what the root's users start.
    if (const VarDecl* scope = ScopeInForce(fn, root)) {
      const std::string spelling = scope->getNameAsString() + ".context()";
      note(f, scope->getLocation(),
           "'" + scope->getNameAsString() + "' owns a scope here: pass on '" + spelling + "'");
      replace(f, root->getSourceRange(), spelling);
    } else if (reachable.size() == 1) {
      replace(f, root->getSourceRange(), reachable[0].spelling);
    }
  }

 private:
  // A local object of fn, declared before root in a block that holds root,
  // whose class gives out a context of root's type by context(): a scope the
  // function owns (tether::Scope), or a project's own of the same shape.
  const VarDecl* ScopeInForce(const FunctionDecl* fn, const Expr* root) {
    const std::string context_type = RecordName(root->getType());
    const SourceLocation at = sm().getExpansionLoc(root->getBeginLoc());
    const VarDecl* found = nullptr;
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s || isa<LambdaExpr>(s)) return;
      if (const auto* block = dyn_cast<CompoundStmt>(s)) {
        const SourceRange range(sm().getExpansionLoc(block->getBeginLoc()),
                                sm().getExpansionLoc(block->getEndLoc()));
        if (!sm().isBeforeInTranslationUnit(range.getBegin(), at) ||
            !sm().isBeforeInTranslationUnit(at, range.getEnd()))
          return;
        for (const Stmt* child : block->body())
          if (const auto* ds = dyn_cast<DeclStmt>(child))
            for (const Decl* d : ds->decls())
              if (const auto* v = dyn_cast<VarDecl>(d);
                  v && sm().isBeforeInTranslationUnit(sm().getExpansionLoc(v->getEndLoc()), at) &&
                  GivesContext(v->getType(), context_type))
                found = v;
      }
      for (const Stmt* child : s->children()) walk(child);
    };
    walk(fn->getBody());
    return found;
  }

  static bool GivesContext(QualType t, const std::string& context_type) {
    const CXXRecordDecl* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
    if (!rd || !rd->hasDefinition() || context_type.empty()) return false;
    for (const CXXMethodDecl* m : rd->getDefinition()->methods())
      if (m->getNameAsString() == "context" && m->getNumParams() == 0 &&
          RecordName(m->getReturnType().getNonReferenceType()) == context_type)
        return true;
    return false;
  }

  // The std form: a local stop_source, or a jthread started with a callable
  // that the function joins, has a stop state of its own. Where the function
  // can reach a context and no link object (std::stop_callback) built in the
  // function names the new object, a stop requested on that context never
  // reaches it.
  void CheckRootSource(const VarDecl* v) {
    const auto* fn = dyn_cast<FunctionDecl>(v->getDeclContext());
    if (!fn || !fn->hasBody() || MayCreateRoots(fn, model()) || InTemplateInstantiation(fn)) return;
    const auto* ctor =
        v->getInit() ? dyn_cast<CXXConstructExpr>(v->getInit()->IgnoreImplicit()) : nullptr;
    if (!ctor) return;
    unsigned args = 0;
    for (const Expr* a : ctor->arguments()) args += !isa<CXXDefaultArgExpr>(a);
    const std::string type = RecordName(v->getType());
    const bool source = ApiModel::Contains(model().root_sources, type) && args == 0;
    const bool spawn = ApiModel::Contains(model().root_spawns, type) && args > 0 &&
                       RecordName(ctor->getArg(0)->getType()) != type;
    // A thread's own stop state is requested by its destructor at scope exit;
    // it matters when the function waits for the thread first (join).
    if (!source && !(spawn && Joins(v, fn))) return;
    std::vector<ReachableContext> reachable = ReachableContexts(fn, model());
    if (reachable.empty() || Linked(v, fn)) return;
    const std::string name = v->getNameAsString();
    const std::string link = model().link_types.empty() ? "a stop callback" : model().link_types[0];
    const std::string what = source ? "stop source '" + name + "'" : "thread '" + name + "'";
    Finding* f =
        diag(v->getLocation(),
             what + " in '" + DisplayName(fn) +
                 "' has a stop state of its own, not linked to context '" + reachable[0].spelling +
                 "': a stop requested on '" + reachable[0].spelling +
                 "' never reaches it; link them with " + link + " (a callback that calls " + name +
                 ".request_stop()), or say why with a tether:detached(<why>) comment");
    if (!f) return;
    for (const ReachableContext& r : reachable)
      note(f, r.where, "context '" + r.spelling + "' is reachable here (" + r.how + ")");
  }

  // fn calls v.join().
  bool Joins(const VarDecl* v, const FunctionDecl* fn) {
    auto joins =
        match(stmt(forEachDescendant(cxxMemberCallExpr(on(declRefExpr(to(varDecl(equalsNode(v))))),
                                                       callee(cxxMethodDecl(hasName("join"))))
                                         .bind("j"))),
              *fn->getBody(), ast());
    return !joins.empty();
  }

  // A link object (model link_types) constructed in fn names v in its
  // arguments or in the callback it is given.
  bool Linked(const ValueDecl* v, const FunctionDecl* fn) {
    std::function<bool(const Stmt*)> names_v = [&](const Stmt* s) {
      if (!s) return false;
      if (const auto* ref = dyn_cast<DeclRefExpr>(s); ref && ref->getDecl() == v) return true;
      if (const auto* lambda = dyn_cast<LambdaExpr>(s)) return names_v(lambda->getBody());
      for (const Stmt* child : s->children())
        if (names_v(child)) return true;
      return false;
    };
    std::function<bool(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s) return false;
      if (const auto* c = dyn_cast<CXXConstructExpr>(s);
          c && ApiModel::Contains(model().link_types, RecordName(c->getType())))
        for (const Expr* a : c->arguments())
          if (names_v(a)) return true;
      if (const auto* lambda = dyn_cast<LambdaExpr>(s)) return walk(lambda->getBody());
      for (const Stmt* child : s->children())
        if (walk(child)) return true;
      return false;
    };
    return walk(fn->getBody());
  }

  // The root feeds a derivation whose result a link object built in fn
  // names: `auto [c, cancel] = WithCancel(Background()); std::stop_callback
  // cb(st, [&] { cancel(); });` ends c when st is stopped, so c is linked to
  // the reachable token, not detached from it.
  bool RootLinked(const Expr* root, const FunctionDecl* fn) {
    if (model().link_types.empty() || !fn->getBody()) return false;
    DynTypedNodeList parents = ast().getParents(*root);
    for (int depth = 0; depth < 12 && !parents.empty(); ++depth) {
      if (const auto* v = parents[0].get<VarDecl>()) {
        if (Linked(v, fn)) return true;
        if (const auto* dd = dyn_cast<DecompositionDecl>(v))
          for (const BindingDecl* b : dd->bindings())
            if (Linked(b, fn)) return true;
        return false;
      }
      const Expr* e = parents[0].get<Expr>();
      if (!e) return false;
      if (const auto* call = dyn_cast<CallExpr>(e);
          call &&
          !(call->getDirectCallee() &&
            ApiModel::Contains(model().derivations, QualifiedName(call->getDirectCallee()))))
        return false;
      parents = ast().getParents(*e);
    }
    return false;
  }

  // fn is the body of a lambda that its enclosing function returns (through
  // any number of returned lambdas): the function that has a context hands
  // out work that makes its own root (contextcheck's "f16$1" case).
  void ReportReturnedLambda(const Expr* root, const FunctionDecl* fn, const std::string& shown) {
    const FunctionDecl* owner = fn;
    std::vector<ReachableContext> reachable;
    for (int depth = 0; depth < 4 && reachable.empty(); ++depth) {
      const auto* md = dyn_cast<CXXMethodDecl>(owner);
      if (!md || !md->getParent()->isLambda() || !ReturnedLambda(md->getParent())) return;
      owner = dyn_cast_or_null<FunctionDecl>(md->getParent()->getDeclContext());
      if (!owner || MayCreateRoots(owner, model())) return;
      reachable = ReachableContexts(owner, model());
    }
    if (reachable.empty()) return;
    Finding* f =
        diag(root->getBeginLoc(), "root context '" + shown + "' created in '" + DisplayName(fn) +
                                      "', a lambda returned from '" + DisplayName(owner) +
                                      "', which has context '" + reachable[0].spelling +
                                      "'; capture it and pass it on, or detach visibly "
                                      "with WithoutCancel and a tether:detached(<why>) comment");
    if (!f) return;
    for (const ReachableContext& r : reachable)
      note(f, r.where,
           "context '" + r.spelling + "' is reachable here (" + r.how + " of '" +
               DisplayName(owner) + "')");
  }

  // Is the lambda whose closure type is closure the operand of a return?
  bool ReturnedLambda(const CXXRecordDecl* closure) {
    const LambdaExpr* lambda = nullptr;
    for (const auto& p : ast().getParents(*closure))
      if ((lambda = p.get<LambdaExpr>())) break;
    if (!lambda) return false;
    DynTypedNodeList parents = ast().getParents(*lambda);
    for (int depth = 0; depth < 8 && !parents.empty(); ++depth) {
      if (parents[0].get<ReturnStmt>()) return true;
      const Expr* e = parents[0].get<Expr>();
      if (!e || !(isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
                      ExprWithCleanups, CXXConstructExpr, CXXFunctionalCastExpr, ParenExpr>(e)))
        return false;
      parents = ast().getParents(*e);
    }
    return false;
  }

  // WithoutCancel(Background()) is odd but explicit; leave it alone.
  bool InsideSanctionedDetach(const Expr* root) {
    auto parents = ast().getParents(*root);
    for (int depth = 0; depth < 4 && !parents.empty(); ++depth) {
      if (const auto* call = parents[0].get<CallExpr>()) {
        if (const FunctionDecl* callee = call->getDirectCallee())
          return ApiModel::Contains(model().sanctioned_detaches, QualifiedName(callee));
        return false;
      }
      parents = ast().getParents(parents[0]);
    }
    return false;
  }
};

}  // namespace

CheckRegistration DetachedContextCheckRegistration() {
  return RegisterCheck<DetachedContextCheck>(
      {"tether-detached-context", "A root context is created where a context is already reachable.",
       "A function that can reach a context (a parameter, a captured variable, a member, or a "
       "context carried by a request-like object) creates a fresh root (Background(), TODO(), a "
       "default-constructed context) instead. Work started with it is not cancelled with the "
       "caller's work: the zombie tasks of the Vela worker issue.",
       "Pass the reachable context on. If the work must outlive the caller, detach visibly with "
       "WithoutCancel(ctx) and say why in a // tether:detached(<why>) comment.",
       "high"});
}

}  // namespace tether::check
