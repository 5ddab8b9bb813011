// The may-block summary, the primitives it ends in, and its phase 2 over
// every TU's facts (blocking.hpp).
#include "blocking.hpp"

#include <functional>
#include <set>

#include "ast_util.hpp"

namespace tether::check {

using namespace clang;

namespace {

std::string Text(const Expr* e, ASTContext& ast) {
  const SourceManager& sm = ast.getSourceManager();
  CharSourceRange r = sm.getExpansionRange(e->getSourceRange());
  return std::string(Lexer::getSourceText(r, sm, ast.getLangOpts()));
}

bool SaysNonBlocking(const std::string& text) {
  return text.find("NONBLOCK") != std::string::npos || text.find("WNOHANG") != std::string::npos;
}

// The variable an argument names: fd, watch.fd, fds[0].
const VarDecl* VariableOf(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (const auto* me = dyn_cast<MemberExpr>(e)) e = me->getBase()->IgnoreParenImpCasts();
  if (const auto* sub = dyn_cast<ArraySubscriptExpr>(e)) e = sub->getBase()->IgnoreParenImpCasts();
  const auto* ref = dyn_cast<DeclRefExpr>(e);
  return ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
}

bool NamesVariable(const Stmt* s, const VarDecl* v) {
  if (!s) return false;
  if (const auto* ref = dyn_cast<DeclRefExpr>(s); ref && ref->getDecl() == v) return true;
  for (const Stmt* child : s->children())
    if (NamesVariable(child, v)) return true;
  return false;
}

// fd was made non-blocking where it is declared (inotify_init1(IN_NONBLOCK))
// or by a call in its function that names it (pipe2(fds, O_NONBLOCK),
// fcntl(fd, F_SETFL, O_NONBLOCK)).
bool MadeNonBlocking(const VarDecl* v, ASTContext& ast, int depth = 0) {
  if (depth > 3) return false;
  if (const Expr* init = v->getInit()) {
    if (SaysNonBlocking(Text(init, ast))) return true;
    // const int fd = signals.fd: what signals holds.
    if (const VarDecl* from = VariableOf(init);
        from && from != v && MadeNonBlocking(from, ast, depth + 1))
      return true;
  }
  // An object that makes its descriptor in its constructor (a SignalFd or
  // Socket wrapper): the constructor says how.
  if (const CXXRecordDecl* rd = v->getType().getNonReferenceType()->getAsCXXRecordDecl();
      rd && rd->hasDefinition() && !ast.getSourceManager().isInSystemHeader(rd->getLocation()))
    for (const CXXConstructorDecl* ctor : rd->ctors())
      if (const FunctionDecl* def = nullptr; ctor->hasBody(def) && def && def->getBody()) {
        const SourceManager& sm = ast.getSourceManager();
        CharSourceRange r = sm.getExpansionRange(def->getSourceRange());
        if (SaysNonBlocking(std::string(Lexer::getSourceText(r, sm, ast.getLangOpts()))))
          return true;
      }
  const auto* fn = dyn_cast_or_null<FunctionDecl>(v->getParentFunctionOrMethod());
  if (!fn || !fn->getBody()) return false;
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || found) return;
    if (const auto* call = dyn_cast<CallExpr>(s)) {
      for (const Expr* arg : call->arguments())
        if (NamesVariable(arg, v) && SaysNonBlocking(Text(call, ast))) found = true;
    }
    for (const Stmt* child : s->children()) walk(child);
  };
  walk(fn->getBody());
  return found;
}

bool CalledNonBlocking(const CallExpr* call, ASTContext& ast) {
  for (const Expr* arg : call->arguments()) {
    if (isa<CXXDefaultArgExpr>(arg)) continue;
    if (SaysNonBlocking(Text(arg, ast))) return true;
    if (const VarDecl* v = VariableOf(arg); v && MadeNonBlocking(v, ast)) return true;
  }
  return false;
}

bool Modifies(const Stmt* s, const VarDecl* v) {
  if (!s) return false;
  auto is_v = [v](const Expr* e) {
    const auto* dre = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return dre && dre->getDecl() == v;
  };
  if (const auto* u = dyn_cast<UnaryOperator>(s);
      u && u->isIncrementDecrementOp() && is_v(u->getSubExpr()))
    return true;
  if (const auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp() && is_v(b->getLHS()))
    return true;
  for (const Stmt* child : s->children())
    if (Modifies(child, v)) return true;
  return false;
}

}  // namespace

std::string ChainName(const FunctionDecl* fn) {
  std::string name = PlainQualifiedName(fn);
  if (fn->getDeclContext()->getRedeclContext()->isTranslationUnit()) return "::" + name;
  return name;
}

std::string BlockingPath::Chain() const {
  std::string out;
  for (const std::string& link : chain) out += (out.empty() ? "" : " -> ") + link;
  return out;
}

bool IsBlockingCall(const CallExpr* call, const ApiModel& m, std::string* why) {
  const FunctionDecl* callee = call->getDirectCallee();
  if (!callee || isa<CXXOperatorCallExpr>(call) || PassesContext(call, m)) return false;
  std::string name = PlainQualifiedName(callee);
  if (ApiModel::MatchesPattern(m.blocking_calls, name, callee->getNameAsString())) {
    if (CalledNonBlocking(call, callee->getASTContext())) return false;
    *why = "'" + ChainName(callee) + "' blocks without a context";
    return true;
  }
  if (const FunctionDecl* sibling = FindContextSibling(callee, m)) {
    *why = sibling->getName() == callee->getName()
               ? "'" + name + "' ignores the context; an overload of it takes one"
               : "'" + name + "' ignores the context; its sibling '" + sibling->getNameAsString() +
                     "' takes one";
    return true;
  }
  return false;
}

namespace {

// A counter compared to an integer constant; in a conjunction (`!done && i <
// 100`) one bounded term bounds the whole condition.
bool BoundedCondition(const Expr* cond, const Stmt* inc, const Stmt* body, ASTContext& ast) {
  const auto* cmp = dyn_cast<BinaryOperator>(cond->IgnoreParenImpCasts());
  if (!cmp) return false;
  if (cmp->getOpcode() == BO_LAnd)
    return BoundedCondition(cmp->getLHS(), inc, body, ast) ||
           BoundedCondition(cmp->getRHS(), inc, body, ast);
  if (!cmp->isComparisonOp()) return false;
  for (auto [counter, bound] :
       {std::pair{cmp->getLHS(), cmp->getRHS()}, std::pair{cmp->getRHS(), cmp->getLHS()}}) {
    if (bound->isValueDependent() || !bound->isIntegerConstantExpr(ast)) continue;
    const Expr* c = counter->IgnoreParenImpCasts();
    bool in_cond = false;
    if (const auto* u = dyn_cast<UnaryOperator>(c); u && u->isIncrementDecrementOp()) {
      c = u->getSubExpr()->IgnoreParenImpCasts();
      in_cond = true;
    }
    const auto* dre = dyn_cast<DeclRefExpr>(c);
    const auto* var = dre ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
    if (!var || !var->getType()->isIntegerType()) continue;
    if (in_cond || Modifies(inc, var) || Modifies(body, var)) return true;
  }
  return false;
}

}  // namespace

bool IsLoop(const Stmt* s) { return isa<WhileStmt, ForStmt, DoStmt, CXXForRangeStmt>(s); }

bool IsBoundedLoop(const Stmt* loop, ASTContext& ast) {
  if (isa<CXXForRangeStmt>(loop)) return true;
  const Expr* cond = nullptr;
  const Stmt* inc = nullptr;
  const Stmt* body = nullptr;
  if (const auto* f = dyn_cast<ForStmt>(loop)) {
    cond = f->getCond();
    inc = f->getInc();
    body = f->getBody();
  } else if (const auto* w = dyn_cast<WhileStmt>(loop)) {
    cond = w->getCond();
    body = w->getBody();
  } else if (const auto* d = dyn_cast<DoStmt>(loop)) {
    cond = d->getCond();
    body = d->getBody();
  }
  if (!cond || cond->isValueDependent()) return false;
  bool value = false;
  if (cond->EvaluateAsBooleanCondition(value, ast)) return !value;
  return BoundedCondition(cond, inc, body, ast);
}

// ---- The may-block summary -------------------------------------------------

bool MayBlock::Find(const Stmt* s, bool loops, BlockingPath* out,
                    std::vector<ExternalCall>* external) {
  return FindIn(s, loops, out, external);
}

const BlockingPath* MayBlock::Function(const FunctionDecl* def) {
  const Entry& e = Summarise(def);
  return e.blocks ? &e.path : nullptr;
}

const MayBlock::Entry& MayBlock::Summarise(const FunctionDecl* def) {
  auto it = memo_.find(def);
  if (it != memo_.end()) return it->second;
  memo_.emplace(def, Entry{});  // a recursive call sees "does not block" meanwhile
  Entry e;
  std::vector<ExternalCall> external;
  // Only primitives count inside a callee: its own loops are its own (and
  // loop-without-context's) business.
  e.blocks = FindIn(def->getBody(), false, &e.path, &external);
  for (const ExternalCall& x : external) e.external.push_back(x.callee);
  return memo_[def] = std::move(e);
}

bool MayBlock::FindIn(const Stmt* s, bool loops, BlockingPath* out,
                      std::vector<ExternalCall>* external) {
  if (!s || isa<LambdaExpr>(s)) return false;
  if (const auto* call = dyn_cast<CallExpr>(s)) {
    std::string why;
    if (IsBlockingCall(call, m_, &why)) {
      *out = BlockingPath{call, call, why, {}, false};
      if (const FunctionDecl* callee = call->getDirectCallee()) out->chain = {ChainName(callee)};
      return true;
    }
    const FunctionDecl* callee = call->getDirectCallee();
    const SourceManager& sm = ast_.getSourceManager();
    if (callee && !PassesContext(call, m_) && !IsUnresolvableCall(call) &&
        !sm.isInSystemHeader(callee->getLocation())) {
      const FunctionDecl* def = nullptr;
      if (callee->hasBody(def) && def && def->getBody()) {
        if (!sm.isInSystemHeader(def->getLocation())) {
          const Entry& e = Summarise(def);
          if (e.blocks) {
            *out = e.path;
            out->at = call;
            out->loop = false;
            out->chain.insert(out->chain.begin(), DisplayName(def));
            return true;
          }
          if (external)
            for (const FunctionDecl* x : e.external) external->push_back({call, x});
        }
      } else if (external && !HasParamOfContextType(callee, m_)) {
        external->push_back({call, callee});
      }
    }
  }
  if (loops && IsLoop(s) && !IsBoundedLoop(s, ast_)) {
    for (const Stmt* child : s->children())
      if (FindIn(child, false, out, external)) return true;
    *out = BlockingPath{s, s, "it loops without a bound", {}, true};
    return true;
  }
  for (const Stmt* child : s->children())
    if (FindIn(child, loops, out, external)) return true;
  return false;
}

std::vector<Finding> ResolveBlockCandidates(const Facts& facts, const std::string& check,
                                            unsigned max_depth) {
  std::vector<Finding> out;
  for (const BlockCandidate& c : facts.block_candidates) {
    if (c.finding.check != check) continue;
    // Breadth-first from the callee, through calls that pass no context:
    // the shortest chain to a function whose own body blocks.
    std::vector<std::vector<const FunctionFact*>> frontier;
    std::set<std::string> seen{c.callee_id};
    if (auto it = facts.functions.find(c.callee_id); it != facts.functions.end())
      frontier.push_back({&it->second});
    std::vector<const FunctionFact*> chain;
    for (unsigned depth = 1; depth <= max_depth && !frontier.empty() && chain.empty(); ++depth) {
      std::vector<std::vector<const FunctionFact*>> next;
      for (const auto& path : frontier) {
        const FunctionFact& f = *path.back();
        if (!f.blocks.empty()) {
          chain = path;
          break;
        }
        for (const CallFact& call : f.calls) {
          if (call.passes_context || !seen.insert(call.to).second) continue;
          if (auto it = facts.functions.find(call.to); it != facts.functions.end()) {
            next.push_back(path);
            next.back().push_back(&it->second);
          }
        }
      }
      frontier = std::move(next);
    }
    if (chain.empty()) continue;
    Finding f = c.finding;
    const FunctionFact& leaf = *chain.back();
    std::string path;
    for (const FunctionFact* fn : chain) path += fn->qualified_name + " -> ";
    path += leaf.blocks;
    if (!f.notes.empty())
      f.notes.back().message += ": '" + c.callee_name + "' blocks without a context (" + path + ")";
    Note at_leaf;
    at_leaf.file = leaf.blocks_file;
    at_leaf.line = leaf.blocks_line;
    at_leaf.col = leaf.blocks_col;
    at_leaf.message = "'" + leaf.blocks + "' blocks here, in '" + leaf.qualified_name + "'";
    f.notes.push_back(std::move(at_leaf));
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tether::check
