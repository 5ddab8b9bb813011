/// tether-detached-task: tether::Go or std::thread::detach without a
/// justification. Docs: docs/checks/detached-task.md
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
    finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(spawns)).bind("spawn"))).bind("call"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("call");
    const auto* spawn = result.Nodes.getNodeAs<FunctionDecl>("spawn");
    if (!call || !spawn) return;
    SourceLocation loc = call->getBeginLoc();
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call))
      if (const auto* me = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens())) loc = me->getMemberLoc();
    diag(loc, "detached task: '" + QualifiedName(spawn) +
                  "' starts work that nobody waits for; give it an owner (a task group that is "
                  "waited for) or say why with a tether:detached(<why>) comment");
  }
};

}  // namespace

std::unique_ptr<Check> MakeDetachedTaskCheck(TuContext& tu) {
  return std::make_unique<DetachedTaskCheck>("tether-detached-task", tu);
}

}  // namespace tether::check
