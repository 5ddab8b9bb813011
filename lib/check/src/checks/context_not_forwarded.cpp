/// tether-context-not-forwarded: a call that drops the caller's context.
/// Local form: the callee has an overload or a sibling (X / XWithContext)
/// that takes a context. Transitive form: the callee takes none but creates a
/// root (itself or through its callees: one that holds a context only in a
/// member, or a factory that takes none); that needs every TU's facts, so
/// here it only records a candidate that Finish resolves from the facts of all
/// TUs (ResolveForwardCandidates, below).
/// Docs: docs/checks/context-not-forwarded.md
#include <map>
#include <set>

#include "../ast_util.hpp"
#include "../check_base.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// A path from a callee down to a function that creates an unjustified root.
struct Chain {
  std::vector<const FunctionFact*> functions;  // callee first
  const RootSite* root = nullptr;
};

const RootSite* FirstUnjustifiedRoot(const FunctionFact& f) {
  for (const RootSite& r : f.creates_roots)
    if (!r.justified) return &r;
  return nullptr;
}

// Breadth-first, so the reported chain is the shortest one.
bool FindChain(const Facts& facts, const std::string& callee, unsigned max_depth, Chain* out,
               bool caller_has_own_context = false) {
  struct Item {
    std::vector<const FunctionFact*> path;
  };
  std::vector<Item> frontier;
  std::set<std::string> seen;
  if (auto it = facts.functions.find(callee); it != facts.functions.end()) {
    frontier.push_back({{&it->second}});
    seen.insert(callee);
  }
  for (unsigned depth = 1; depth <= max_depth && !frontier.empty(); ++depth) {
    std::vector<Item> next;
    for (const Item& item : frontier) {
      const FunctionFact& f = *item.path.back();
      // A function that has a context of its own (a parameter, a carrier, a
      // member) answers for its roots itself: they are its
      // tether-detached-context findings, fixed there, and the caller is not
      // wrong for not passing one. A factory that takes none
      // (NewBuildContext()) does not: its root is what its caller gets
      // instead of the caller's context. main and test bodies are never on a
      // chain.
      // The callee itself, when its only context is a member, does not
      // answer for a caller that holds a narrower context of its own.
      const bool member_only = f.receives_context && !f.takes_context;
      if (f.entry_point ||
          (f.receives_context && !(member_only && caller_has_own_context && depth == 1)))
        continue;
      if (const RootSite* root = FirstUnjustifiedRoot(f)) {
        out->functions = item.path;
        out->root = root;
        return true;
      }
      for (const CallFact& call : f.calls) {
        if (call.passes_context || !seen.insert(call.to).second) continue;
        auto it = facts.functions.find(call.to);
        if (it == facts.functions.end()) continue;
        Item longer = item;
        longer.path.push_back(&it->second);
        next.push_back(std::move(longer));
      }
    }
    frontier = std::move(next);
  }
  return false;
}

// Phase 2 of the transitive form: a candidate whose callee reaches an
// unjustified root within max_depth calls (1 = only the callee itself) becomes
// a finding, with the chain in a note at each of the last function's roots.
std::vector<Finding> ResolveForwardCandidates(const Facts& facts, unsigned max_depth) {
  std::vector<Finding> out;
  for (const ForwardCandidate& c : facts.candidates) {
    Chain chain;
    if (!FindChain(facts, c.callee_id, max_depth, &chain, c.caller_has_own_context)) continue;
    Finding f = c.finding;
    f.message = "call to '" + c.callee_name + "' drops the context: '" + c.callee_name +
                "' takes no context but " +
                (chain.functions.size() == 1 ? "creates a root context itself"
                                             : "reaches a function that creates a root context") +
                "; give it a context parameter and pass '" + c.context_name + "'";
    std::string path;
    for (const FunctionFact* fn : chain.functions)
      path += (path.empty() ? "" : " -> ") + fn->qualified_name;
    // Every unjustified root of the function at the end of the chain, the
    // first (the one that made the chain) first: each one is to be fixed.
    std::vector<const RootSite*> roots{chain.root};
    for (const RootSite& r : chain.functions.back()->creates_roots)
      if (!r.justified && &r != chain.root) roots.push_back(&r);
    for (const RootSite* root : roots) {
      Note note;
      note.file = root->file;
      note.line = root->line;
      note.col = root->col;
      note.message = "root context '" + root->call + "()' created here, via " + path;
      f.notes.push_back(note);
    }
    out.push_back(std::move(f));
  }
  return out;
}

class ContextNotForwardedCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    finder->addMatcher(
        callExpr(callee(functionDecl().bind("callee")), forCallable(functionDecl().bind("fn")))
            .bind("call"),
        this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("call");
    const auto* callee = result.Nodes.getNodeAs<FunctionDecl>("callee");
    const auto* fn = result.Nodes.getNodeAs<FunctionDecl>("fn");
    if (!call || !callee || !fn || isa<CXXOperatorCallExpr>(call)) return;
    if (callee->isOverloadedOperator() || isa<CXXConversionDecl>(callee)) return;
    if (const auto* md = dyn_cast<CXXMethodDecl>(callee); md && md->getParent()->isLambda()) return;
    if (sm().isInSystemHeader(callee->getLocation()) || !callee->getIdentifier()) return;
    if (HasParamOfContextType(callee, model())) return;
    // The model's own roots, derivations and detaches are other checks' business.
    std::string qualified = QualifiedName(callee);
    if (ApiModel::Contains(model().root_factories, qualified) ||
        ApiModel::Contains(model().derivations, qualified) ||
        ApiModel::Contains(model().sanctioned_detaches, qualified))
      return;
    if (MayCreateRoots(fn, model())) return;
    const std::vector<ReachableContext>& reachable = Reachable(fn);
    if (reachable.empty()) return;

    if (const FunctionDecl* sibling = FindSibling(callee)) {
      ReportSibling(call, callee, sibling, reachable);
      return;
    }
    if (IsUnresolvableCall(call)) return;  // we cannot know what runs
    ForwardCandidate c;
    if (!tu().MakeFinding(sm(), name(), CalleeNameLoc(call), "", &c.finding)) return;
    c.finding.function = DisplayName(fn);
    // A class template's member is one function whatever it is instantiated
    // with: its facts are the template's (the definition may be in another TU).
    c.callee_id = Usr(WrittenFunction(callee));
    c.callee_name = DisplayName(callee);
    c.context_name = reachable[0].spelling;
    // Narrower: a method of the callee's own class (it shares the callee's
    // member context) that holds another context of its own, most often one
    // derived for this piece of work (the seed's gctx).
    const auto* caller_method = dyn_cast<CXXMethodDecl>(fn);
    const auto* callee_method = dyn_cast<CXXMethodDecl>(callee);
    const bool same_class = caller_method && callee_method &&
                            caller_method->getParent()->getCanonicalDecl() ==
                                callee_method->getParent()->getCanonicalDecl();
    for (const ReachableContext& r : reachable)
      if (same_class && r.how != "member" && !c.caller_has_own_context) {
        c.caller_has_own_context = true;
        c.context_name = r.spelling;
      }
    if (!c.callee_id.empty()) tu().facts.candidates.push_back(std::move(c));
  }

  // The transitive form: a candidate whose callee creates a root, through at
  // most max_chain_depth calls, becomes a finding with the chain.
  bool UsesFacts() const override { return true; }
  std::vector<Finding> Finish(const Facts& facts) override {
    return ResolveForwardCandidates(facts, tu().max_chain_depth);
  }

 private:
  const std::vector<ReachableContext>& Reachable(const FunctionDecl* fn) {
    auto it = reachable_.find(fn);
    if (it == reachable_.end()) it = reachable_.emplace(fn, ReachableContexts(fn, model())).first;
    return it->second;
  }

  static SourceLocation CalleeNameLoc(const CallExpr* call) {
    const Expr* callee = call->getCallee()->IgnoreParenImpCasts();
    if (const auto* me = dyn_cast<MemberExpr>(callee)) return me->getMemberLoc();
    if (const auto* dre = dyn_cast<DeclRefExpr>(callee)) return dre->getLocation();
    return call->getBeginLoc();
  }

  // An overload of callee, or callee+suffix, in the same scope that takes a context.
  // The same call with a context added (ast_util: FindContextSibling).
  const FunctionDecl* FindSibling(const FunctionDecl* callee) {
    return FindContextSibling(callee, model());
  }

  void ReportSibling(const CallExpr* call, const FunctionDecl* callee, const FunctionDecl* sibling,
                     const std::vector<ReachableContext>& reachable) {
    std::string sib = sibling->getNameAsString();
    Finding* f = diag(CalleeNameLoc(call),
                      "call to '" + callee->getNameAsString() + "' drops the context: '" + sib +
                          "' takes one; call it with '" + reachable[0].spelling + "'");
    if (!f) return;
    note(f, sibling->getLocation(), "'" + sib + "' that takes a context is declared here");
    // Fix-it only when it is unambiguous: one context, and the sibling takes
    // it first followed by exactly the callee's parameters.
    if (reachable.size() != 1 || sibling->getNumParams() != callee->getNumParams() + 1 ||
        !IsContextType(sibling->getParamDecl(0)->getType(), model()))
      return;
    if (sib != callee->getNameAsString()) replace(f, SourceRange(CalleeNameLoc(call)), sib);
    if (call->getNumArgs() > 0 && !isa<CXXDefaultArgExpr>(call->getArg(0)))
      insert(f, call->getArg(0)->getBeginLoc(), reachable[0].spelling + ", ");
    else
      insert(f, call->getRParenLoc(), reachable[0].spelling);
  }

  std::map<const FunctionDecl*, std::vector<ReachableContext>> reachable_;
};

}  // namespace

extern const char kContextNotForwardedCheckName[] = "tether-context-not-forwarded";

CheckRegistration ContextNotForwardedCheckRegistration() {
  return RegisterCheck<ContextNotForwardedCheck>(
      {kContextNotForwardedCheckName, "A call drops the context the caller has.",
       "The callee has an overload or a sibling (X / XWithContext) that takes a context, or it "
       "takes none but creates a root context itself (directly or through the functions it "
       "calls, up to a bounded depth). The callee's work cannot be cancelled by the caller.",
       "Call the overload that takes the context, or give the callee a context parameter and "
       "pass it on.",
       "medium"});
}

}  // namespace tether::check
