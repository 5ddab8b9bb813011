#include "stop_spin.hpp"

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ast_util.hpp"
#include "blocking.hpp"

namespace tether::check {

using namespace clang;

namespace {

// What a condition is worth once the flag holds the stop's value.
enum class Truth { kTrue, kFalse, kUnknown };

Truth Not(Truth t) {
  return t == Truth::kUnknown ? t : t == Truth::kTrue ? Truth::kFalse : Truth::kTrue;
}

// Evaluates e with the flag stopped: the flag itself (read directly, through
// load() or an operator bool, or returned by a getter of the object) is
// known, !, &&, || and a comparison with a constant combine it, anything else
// is unknown. *mentions says whether the flag took part.
class StoppedValue {
 public:
  StoppedValue(ASTContext& ast, MemberReach& reach, const FieldDecl* flag, bool stop_value)
      : ast_(ast), reach_(reach), flag_(flag), stop_value_(stop_value) {}

  Truth Of(const Expr* e, bool* mentions, unsigned depth = 0) {
    if (!e) return Truth::kUnknown;
    e = e->IgnoreParenImpCasts();
    if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_LNot)
      return Not(Of(u->getSubExpr(), mentions, depth));
    if (const auto* b = dyn_cast<BinaryOperator>(e)) {
      if (b->getOpcode() == BO_LAnd || b->getOpcode() == BO_LOr) {
        const Truth l = Of(b->getLHS(), mentions, depth), r = Of(b->getRHS(), mentions, depth);
        const Truth absorbing = b->getOpcode() == BO_LAnd ? Truth::kFalse : Truth::kTrue;
        if (l == absorbing || r == absorbing) return absorbing;
        return l == r ? l : Truth::kUnknown;
      }
      if (b->isEqualityOp()) {
        // flag == false, flag != true, true == flag...
        for (const auto& [side, other] :
             {std::pair{b->getLHS(), b->getRHS()}, std::pair{b->getRHS(), b->getLHS()}}) {
          bool constant = false;
          if (other->isValueDependent() || !other->EvaluateAsBooleanCondition(constant, ast_))
            continue;
          const Truth t = Of(side, mentions, depth);
          return (b->getOpcode() == BO_EQ) == constant ? t : Not(t);
        }
      }
    }
    if (const auto* me = dyn_cast<MemberExpr>(e); me && MemberOfThis(me) == flag_) {
      *mentions = true;
      return stop_value_ ? Truth::kTrue : Truth::kFalse;
    }
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e); mc && mc->getMethodDecl()) {
      const Expr* object = mc->getImplicitObjectArgument();
      const CXXMethodDecl* method = mc->getMethodDecl();
      if (object && MemberOfThis(object) == flag_ &&
          (method->getNameAsString() == "load" || isa<CXXConversionDecl>(method))) {
        *mentions = true;
        return stop_value_ ? Truth::kTrue : Truth::kFalse;
      }
      // A getter of the object: `bool stopping() const { return stop_; }`.
      const FunctionDecl* def = nullptr;
      if (object && isa<CXXThisExpr>(object->IgnoreParenImpCasts()) && depth < 2 &&
          reach_.Own(method->getParent()) && method->hasBody(def) && def)
        if (const auto* body = dyn_cast_or_null<CompoundStmt>(def->getBody());
            body && body->size() == 1)
          if (const auto* ret = dyn_cast<ReturnStmt>(body->body_front()))
            return Of(ret->getRetValue(), mentions, depth + 1);
    }
    // Anything else: unknown, but say whether it reads the flag.
    Reach r;
    reach_.Walk(e, &r, 0, false);
    if (r.reads.count(flag_)) *mentions = true;
    return Truth::kUnknown;
  }

 private:
  ASTContext& ast_;
  MemberReach& reach_;
  const FieldDecl* flag_;
  bool stop_value_;
};

const Stmt* ParentStmt(ASTContext& ast, const Stmt* s) {
  DynTypedNodeList parents = ast.getParents(*s);
  return parents.empty() ? nullptr : parents[0].get<Stmt>();
}

// The innermost loop around s, when s runs on each of its iterations (no if,
// switch, ?: or short-circuit between them); null otherwise.
const Stmt* LoopRunningEachTime(ASTContext& ast, const Stmt* s) {
  const Stmt* child = s;
  for (const Stmt* p = ParentStmt(ast, s); p; child = p, p = ParentStmt(ast, p)) {
    if (isa<LambdaExpr>(p)) return nullptr;
    if (IsLoop(p)) return p;
    if (const auto* is = dyn_cast<IfStmt>(p); is && child != is->getCond()) return nullptr;
    if (isa<SwitchStmt, ConditionalOperator, BinaryConditionalOperator>(p)) return nullptr;
    if (const auto* b = dyn_cast<BinaryOperator>(p); b && b->isLogicalOp() && child == b->getRHS())
      return nullptr;
  }
  return nullptr;
}

// The continues that go back to loop (not those of a loop inside it).
void ContinuesOf(const Stmt* s, std::vector<const ContinueStmt*>* out) {
  for (const Stmt* child : s->children()) {
    if (!child || IsLoop(child) || isa<LambdaExpr>(child)) continue;
    if (const auto* c = dyn_cast<ContinueStmt>(child)) out->push_back(c);
    ContinuesOf(child, out);
  }
}

// A call that sleeps or blocks: the loop then polls, it does not spin.
bool Blocks(const Stmt* s) {
  static const std::set<std::string> kBlocking = {
      "sleep_for", "sleep_until", "sleep",      "usleep",    "nanosleep", "poll",
      "ppoll",     "select",      "epoll_wait", "read",      "recv",      "accept",
      "join",      "wait",        "wait_for",   "wait_until"};
  if (!s || isa<LambdaExpr>(s)) return false;
  if (const auto* call = dyn_cast<CallExpr>(s))
    if (const FunctionDecl* callee = call->getDirectCallee();
        callee && callee->getDeclName().isIdentifier() && kBlocking.count(callee->getName().str()))
      return true;
  for (const Stmt* child : s->children())
    if (Blocks(child)) return true;
  return false;
}

}  // namespace

std::optional<bool> StoredValue(ASTContext& ast, const Stmt* write) {
  const Stmt* parent = ParentStmt(ast, write);
  while (parent && isa<ImplicitCastExpr, ParenExpr>(parent)) parent = ParentStmt(ast, parent);
  const Expr* value = nullptr;
  if (const auto* bo = dyn_cast_or_null<BinaryOperator>(parent); bo && bo->getOpcode() == BO_Assign)
    value = bo->getRHS();
  else if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(parent);
           op && op->getOperator() == OO_Equal && op->getNumArgs() == 2)
    value = op->getArg(1);
  else if (isa_and_nonnull<MemberExpr>(parent))
    if (const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(ParentStmt(ast, parent));
        call && call->getNumArgs() > 0)
      value = call->getArg(0);
  bool b = false;
  if (!value || value->isValueDependent() || !value->EvaluateAsBooleanCondition(b, ast))
    return std::nullopt;
  return b;
}

std::optional<StopSpin> SpinAfterStop(const Wait& w, const FieldDecl* flag, bool stop_value,
                                      ASTContext& ast, MemberReach& reach) {
  if (!w.predicate) return std::nullopt;
  const SourceManager& sm = ast.getSourceManager();
  StoppedValue stopped(ast, reach, flag, stop_value);
  // The predicate is true once the flag is stopped: the wait returns at once.
  const Expr* predicate = w.predicate;
  if (const LambdaExpr* lambda = PredicateLambda(w.predicate)) {
    const auto* body = dyn_cast_or_null<CompoundStmt>(lambda->getBody());
    const auto* ret =
        body && body->size() == 1 ? dyn_cast<ReturnStmt>(body->body_front()) : nullptr;
    predicate = ret ? ret->getRetValue() : nullptr;
  }
  bool mentions = false;
  if (!predicate || stopped.Of(predicate, &mentions) != Truth::kTrue) return std::nullopt;
  Reach tested;  // what the predicate reads: a change to it may make it false
  reach.Walk(w.predicate, &tested, 0, false);
  if (const LambdaExpr* lambda = PredicateLambda(w.predicate))
    reach.Walk(lambda->getBody(), &tested, 0, false);

  const Stmt* loop = LoopRunningEachTime(ast, w.call);
  if (!loop || isa<CXXForRangeStmt>(loop)) return std::nullopt;
  if (const Expr* cond = LoopCondition(loop)) {
    bool loop_mentions = false;
    stopped.Of(cond, &loop_mentions);
    if (loop_mentions) return std::nullopt;  // a continue re-tests the flag
  }
  const SourceLocation wait_at = sm.getExpansionLoc(w.call->getBeginLoc());
  std::vector<const ContinueStmt*> continues;
  ContinuesOf(loop, &continues);
  for (const ContinueStmt* back : continues) {
    if (!sm.isBeforeInTranslationUnit(wait_at, sm.getExpansionLoc(back->getBeginLoc()))) continue;
    // The way from the top of the iteration to the continue: the statements
    // before it in each block around it, and the conditions of the ifs.
    std::vector<const Stmt*> on_path;
    const Expr* taken = nullptr;
    bool contradicted = false;
    const Stmt* child = back;
    for (const Stmt* p = ParentStmt(ast, back); p && p != loop; child = p, p = ParentStmt(ast, p)) {
      if (const auto* is = dyn_cast<IfStmt>(p)) {
        if (child != is->getThen() && child != is->getElse()) continue;
        bool cond_mentions = false;
        const Truth t = stopped.Of(is->getCond(), &cond_mentions);
        const bool then = child == is->getThen();
        if (t == (then ? Truth::kFalse : Truth::kTrue))
          contradicted = true;
        else if (cond_mentions && !taken)
          taken = is->getCond();
        on_path.push_back(is->getCond());
      } else if (const auto* block = dyn_cast<CompoundStmt>(p)) {
        for (const Stmt* before : block->body()) {
          if (before == child) break;
          on_path.push_back(before);
        }
      }
    }
    if (!taken || contradicted) continue;
    bool changes = false;
    for (const Stmt* s : on_path) {
      Reach r;
      reach.Walk(s, &r, 0, true);
      for (const FieldDecl* f : r.writes) changes |= tested.reads.count(f) > 0;
      for (const Wait& other : r.waits) changes |= other.call != w.call;
      // The wait itself is the one blocking call allowed on the way.
      if (!changes && Blocks(s)) {
        const SourceRange range(sm.getExpansionLoc(s->getBeginLoc()),
                                sm.getExpansionLoc(s->getEndLoc()));
        const bool holds_wait = !sm.isBeforeInTranslationUnit(wait_at, range.getBegin()) &&
                                !sm.isBeforeInTranslationUnit(range.getEnd(), wait_at);
        changes = !holds_wait;
      }
      if (changes) break;
    }
    if (!changes) return StopSpin{back, taken};
  }
  return std::nullopt;
}

namespace {

// The member a container expression names: `queue_` of this, or of a member
// it points to (`impl_->queue_`, `state_.queue_`): the object's own state.
const FieldDecl* OwnedContainer(const Expr* e) {
  const auto* me = dyn_cast<MemberExpr>(e->IgnoreParenImpCasts());
  if (!me) return nullptr;
  const auto* field = dyn_cast<FieldDecl>(me->getMemberDecl());
  const Expr* base = me->getBase()->IgnoreParenImpCasts();
  if (const auto* arrow = dyn_cast<CXXOperatorCallExpr>(base);
      arrow && arrow->getOperator() == OO_Arrow && arrow->getNumArgs() == 1)
    base = arrow->getArg(0)->IgnoreParenImpCasts();
  if (isa<CXXThisExpr>(base) || MemberOfThis(base)) return field;
  return nullptr;
}

// A term that tests a container for entries: `!c.empty()`, `c.size() > 0`,
// `c.size() != 0`, `c.size()`.
const FieldDecl* TestsForEntries(const Expr* term) {
  term = term->IgnoreParenImpCasts();
  auto method = [](const Expr* e, llvm::StringRef name) -> const FieldDecl* {
    const auto* mc = dyn_cast<CXXMemberCallExpr>(e->IgnoreParenImpCasts());
    if (!mc || !mc->getMethodDecl() || mc->getMethodDecl()->getNameAsString() != name)
      return nullptr;
    return OwnedContainer(mc->getImplicitObjectArgument());
  };
  if (const auto* u = dyn_cast<UnaryOperator>(term); u && u->getOpcode() == UO_LNot)
    return method(u->getSubExpr(), "empty");
  if (const auto* b = dyn_cast<BinaryOperator>(term);
      b && (b->getOpcode() == BO_GT || b->getOpcode() == BO_NE))
    if (const auto* zero = dyn_cast<IntegerLiteral>(b->getRHS()->IgnoreParenImpCasts());
        zero && zero->getValue() == 0)
      return method(b->getLHS(), "size");
  return method(term, "size");
}

void Disjuncts(const Expr* e, std::vector<const Expr*>* out) {
  e = e->IgnoreParenImpCasts();
  if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_LOr) {
    Disjuncts(b->getLHS(), out);
    Disjuncts(b->getRHS(), out);
    return;
  }
  out->push_back(e);
}

// A break or return in s that leaves the loop s is the body of (not one of a
// nested loop, switch or lambda).
bool LeavesLoop(const Stmt* s) {
  if (!s || isa<LambdaExpr>(s)) return false;
  if (isa<ReturnStmt, BreakStmt, GotoStmt, CXXThrowExpr>(s)) return true;
  for (const Stmt* c : s->children()) {
    if (c && (IsLoop(c) || isa<SwitchStmt>(c))) {
      // A return or throw inside still leaves; a break does not.
      std::function<bool(const Stmt*)> returns = [&](const Stmt* x) {
        if (!x || isa<LambdaExpr>(x)) return false;
        if (isa<ReturnStmt, CXXThrowExpr>(x)) return true;
        for (const Stmt* y : x->children())
          if (returns(y)) return true;
        return false;
      };
      if (returns(c)) return true;
      continue;
    }
    if (LeavesLoop(c)) return true;
  }
  return false;
}

}  // namespace

std::optional<RefillingDrain> DrainThatRefills(const Stmt* loop, const FieldDecl* flag,
                                               bool stop_value, ASTContext& ast,
                                               MemberReach& reach) {
  const Expr* cond = LoopCondition(loop);
  const Stmt* body = LoopBody(loop);
  if (!cond || !body) return std::nullopt;
  StoppedValue stopped(ast, reach, flag, stop_value);
  std::vector<const Expr*> terms;
  Disjuncts(cond, &terms);
  bool flag_term_ends = false;
  std::vector<std::pair<const Expr*, const FieldDecl*>> drains;
  for (const Expr* term : terms) {
    bool mentions = false;
    const Truth t = stopped.Of(term, &mentions);
    if (t == Truth::kTrue) return std::nullopt;  // the stop keeps it running by design
    if (mentions && t == Truth::kFalse) flag_term_ends = true;
    if (const FieldDecl* c = mentions ? nullptr : TestsForEntries(term))
      drains.emplace_back(term, c);
  }
  if (!flag_term_ends || drains.empty()) return std::nullopt;
  // An exit the stopped flag takes: `if (!running_) break;` (the fix).
  bool exits = false;
  std::function<void(const Stmt*)> exits_on_flag = [&](const Stmt* s) {
    if (!s || isa<LambdaExpr>(s) || exits) return;
    if (const auto* is = dyn_cast<IfStmt>(s)) {
      bool mentions = false;
      const Truth t = stopped.Of(is->getCond(), &mentions);
      if (mentions && ((t != Truth::kFalse && LeavesLoop(is->getThen())) ||
                       (t != Truth::kTrue && LeavesLoop(is->getElse()))))
        exits = true;
    }
    for (const Stmt* c : s->children())
      if (c && !IsLoop(c)) exits_on_flag(c);
  };
  exits_on_flag(body);
  if (exits) return std::nullopt;
  for (const auto& [term, container] : drains) {
    const Stmt* refill = nullptr;
    bool takes = false;
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s || isa<LambdaExpr>(s)) return;
      if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
          mc && mc->getMethodDecl() &&
          OwnedContainer(mc->getImplicitObjectArgument()) == container) {
        const std::string name = mc->getMethodDecl()->getNameAsString();
        if (name.rfind("pop", 0) == 0 || name == "erase" || name == "clear" || name == "extract")
          takes = true;
        if (!refill &&
            (name.rfind("push", 0) == 0 || name.rfind("emplace", 0) == 0 || name == "insert"))
          refill = mc;
      }
      for (const Stmt* c : s->children()) walk(c);
    };
    walk(body);
    if (takes && refill) return RefillingDrain{term, container, refill};
  }
  return std::nullopt;
}

}  // namespace tether::check
