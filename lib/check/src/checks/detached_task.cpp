/// tether-detached-task: tether::Go or std::thread::detach without a
/// justification. Docs: docs/checks/detached-task.md
#include <functional>
#include <map>

#include "../ast_util.hpp"
#include "../check_base.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class DetachedTaskCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    std::vector<StringRef> spawns(model().detached_spawns.begin(), model().detached_spawns.end());
    if (spawns.empty()) return;
    finder->addMatcher(
        callExpr(callee(functionDecl(hasAnyName(spawns)).bind("spawn"))).bind("call"), this);
    // The detached starts of C and of coroutine libraries: pthread_create
    // with a PTHREAD_CREATE_DETACHED attribute, co_spawn(..., detached).
    if (ModelsThreads(model())) {
      finder->addMatcher(
          callExpr(callee(functionDecl(hasName("::pthread_create")))).bind("pthread"), this);
      finder->addMatcher(callExpr(callee(functionDecl(hasName("co_spawn")))).bind("co_spawn"),
                         this);
    }
    // A call of a method that may be a detach wrapper (decided in check()).
    finder->addMatcher(
        cxxMemberCallExpr(callee(cxxMethodDecl(unless(isStaticStorageClass())).bind("method")))
            .bind("member_call"),
        this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    if (const auto* mc = result.Nodes.getNodeAs<CXXMemberCallExpr>("member_call")) {
      const auto* method = result.Nodes.getNodeAs<CXXMethodDecl>("method");
      if (const CallExpr* inner = WrapperDetach(method)) ReportWrapperCall(mc, method, inner);
      return;
    }
    if (const auto* pc = result.Nodes.getNodeAs<CallExpr>("pthread")) {
      if (CreatesDetached(pc))
        attribute(diag(pc->getBeginLoc(),
                       "detached thread: 'pthread_create' with a PTHREAD_CREATE_DETACHED "
                       "attribute starts a thread that nobody joins; create it joinable and "
                       "pthread_join it, or say why with a tether:detached(<why>) comment"),
                  pc);
      return;
    }
    if (const auto* cs = result.Nodes.getNodeAs<CallExpr>("co_spawn")) {
      if (cs->getNumArgs() > 0 &&
          StringRef(RecordName(cs->getArg(cs->getNumArgs() - 1)->getType())).endswith("detached_t"))
        attribute(diag(cs->getBeginLoc(),
                       "detached coroutine: 'co_spawn' with the 'detached' completion token "
                       "starts work that nobody waits for; co_await it (use_awaitable), keep its "
                       "future, or say why with a tether:detached(<why>) comment"),
                  cs);
      return;
    }
    const auto* call = result.Nodes.getNodeAs<CallExpr>("call");
    const auto* spawn = result.Nodes.getNodeAs<FunctionDecl>("spawn");
    if (!call || !spawn) return;
    // A wrapper detaches on its caller's behalf: each call of it is the
    // decision, and is reported there instead.
    if (IsWrappersOwn(call)) return;
    attribute(diag(NameLoc(call), "detached task: '" + QualifiedName(spawn) +
                                      "' starts work that nobody waits for; " + Remedy(spawn)),
              call);
  }

 private:
  // The remedy in the code's own API: a join for a thread the model builds
  // on construction (std::thread), a task group for libtether's tasks.
  std::string Remedy(const FunctionDecl* spawn) const {
    if (spawn->getName().startswith("pthread_"))
      return "keep the thread joinable and pthread_join it, or say why with a "
             "tether:detached(<why>) comment";
    const auto* md = dyn_cast_or_null<CXXMethodDecl>(spawn);
    const TaskGroupModel* g = md ? model().FindGroup(QualifiedName(md->getParent())) : nullptr;
    return g && g->spawn_on_construct
               ? "join it, or say why with a tether:detached(<why>) comment"
               : "give it an owner (a task group that is waited for) or say why with a "
                 "tether:detached(<why>) comment";
  }

  // The function that calls pthread_create(&id, &attr, ...) also makes that
  // attribute detached: pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED).
  bool CreatesDetached(const CallExpr* create) {
    const Stmt* body = nullptr;
    DynTypedNodeList parents = ast().getParents(*create);
    while (!parents.empty() && !body) {
      if (const auto* fn = parents[0].get<FunctionDecl>()) body = fn->getBody();
      if (const auto* lambda = parents[0].get<LambdaExpr>()) body = lambda->getBody();
      parents = ast().getParents(parents[0]);
    }
    // The attribute variable behind `&attr`.
    auto attribute_of = [](const Expr* e) -> const Decl* {
      e = e->IgnoreParenImpCasts();
      if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
        e = u->getSubExpr()->IgnoreParenImpCasts();
      const auto* ref = dyn_cast<DeclRefExpr>(e);
      return ref ? ref->getDecl() : nullptr;
    };
    const Decl* attr = create->getNumArgs() > 1 ? attribute_of(create->getArg(1)) : nullptr;
    if (!attr) return false;
    std::function<bool(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s) return false;
      if (const auto* call = dyn_cast<CallExpr>(s);
          call && call->getDirectCallee() && call->getNumArgs() == 2 &&
          call->getDirectCallee()->getName() == "pthread_attr_setdetachstate" &&
          attribute_of(call->getArg(0)) == attr)
        if (const auto* ref = dyn_cast<DeclRefExpr>(call->getArg(1)->IgnoreParenImpCasts()))
          return ref->getDecl()->getName() == "PTHREAD_CREATE_DETACHED";
      for (const Stmt* child : s->children())
        if (walk(child)) return true;
      return false;
    };
    return walk(body);
  }

  static SourceLocation NameLoc(const CallExpr* call) {
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call))
      if (const auto* me = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens()))
        return me->getMemberLoc();
    return call->getBeginLoc();
  }

  const FunctionDecl* EnclosingFunction(const Stmt* s) {
    DynTypedNodeList parents = ast().getParents(*s);
    while (!parents.empty()) {
      if (const auto* f = parents[0].get<FunctionDecl>()) return f;
      if (parents[0].get<LambdaExpr>()) return nullptr;
      parents = ast().getParents(parents[0]);
    }
    return nullptr;
  }

  // call detaches (or forwards the detach of) a member of this inside a
  // detach wrapper: the wrapper's callers decide, not the wrapper.
  bool IsWrappersOwn(const CallExpr* call) {
    const auto* mc = dyn_cast<CXXMemberCallExpr>(call);
    const auto* fn = dyn_cast_or_null<CXXMethodDecl>(EnclosingFunction(call));
    return mc && fn && WrapperDetach(fn) && MemberOfThis(mc->getImplicitObjectArgument());
  }

  // A detach wrapper: a public instance method (not a constructor or
  // destructor: those decide for the object itself) whose own body (not a
  // nested lambda) detaches a thread the object holds in a member
  // (`if (t_.joinable()) t_.detach();`), or forwards to a member's own detach
  // wrapper (`void Server::detach() { exec_->detach(); }`), transitively.
  // Returns that detach or forwarding call.
  const CallExpr* WrapperDetach(const CXXMethodDecl* method, unsigned depth = 0) {
    if (!method || depth > 4) return nullptr;
    method = cast<CXXMethodDecl>(method->getCanonicalDecl());
    auto [it, inserted] = wrappers_.try_emplace(method, nullptr);
    if (!inserted) return it->second;  // known, or being decided (a cycle: no)
    const FunctionDecl* def = nullptr;
    if (method->isStatic() || isa<CXXDestructorDecl>(method) || isa<CXXConstructorDecl>(method) ||
        method->getAccess() == AS_private || method->getParent()->isLambda() ||
        !method->hasBody(def) || !def || !def->getBody() ||
        sm().isInSystemHeader(def->getLocation()))
      return nullptr;
    const CallExpr* found = nullptr;
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s || found || isa<LambdaExpr>(s)) return;
      if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s)) {
        const FunctionDecl* callee = mc->getDirectCallee();
        if (callee && MemberOfThis(mc->getImplicitObjectArgument())) {
          if (ApiModel::Contains(model().detached_spawns, QualifiedName(callee)))
            found = mc;
          else if (WrapperDetach(dyn_cast<CXXMethodDecl>(callee), depth + 1))
            found = mc;
        }
      }
      for (const Stmt* child : s->children()) walk(child);
    };
    walk(def->getBody());
    return wrappers_[method] = found;
  }

  void ReportWrapperCall(const CXXMemberCallExpr* call, const CXXMethodDecl* method,
                         const CallExpr* inner) {
    // The wrapper's own calls of itself or of its class's methods (a
    // destructor calling detach()) answer for the object, not for a caller;
    // a wrapper forwarding to its members' wrappers is not the decision either.
    if (isa<CXXThisExpr>(call->getImplicitObjectArgument()->IgnoreParenImpCasts())) return;
    if (IsWrappersOwn(call)) return;
    // The remedy in the words of the detach at the end of a chain of wrappers.
    const CallExpr* last = inner;
    for (int hops = 0; hops < 4; ++hops) {
      const CallExpr* next =
          WrapperDetach(dyn_cast_or_null<CXXMethodDecl>(last->getDirectCallee()));
      if (!next) break;
      last = next;
    }
    Finding* f = diag(NameLoc(call), "detached task: '" + QualifiedName(method) +
                                         "' detaches the thread its object owns, on this caller's "
                                         "behalf; nobody waits for it: " +
                                         Remedy(last->getDirectCallee()));
    if (!f) return;
    attribute(f, call);
    note(f, NameLoc(inner), "'" + QualifiedName(method) + "' detaches it here");
  }

  std::map<const CXXMethodDecl*, const CallExpr*> wrappers_;
};

}  // namespace

CheckRegistration DetachedTaskCheckRegistration() {
  return RegisterCheck<DetachedTaskCheck>(
      {"tether-detached-task", "A detached task is started without a justification.",
       "tether::Go or std::thread::detach starts work that nobody joins. That is sometimes right, "
       "but it must be a visible, explained decision.",
       "Give the task an owner (a TaskGroup that is waited for), or justify the detach with "
       "// tether:detached(<why>) on the line or the line above.",
       "high"});
}

}  // namespace tether::check
