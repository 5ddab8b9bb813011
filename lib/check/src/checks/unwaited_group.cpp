/// tether-unwaited-group: a task group that spawns on some path but is not
/// waited for on every path out of its scope (CFG-based; see obligation.hpp
/// for what counts as an escape). Docs: docs/checks/unwaited-group.md
#include <memory>
#include <set>

#include "../ast_util.hpp"
#include "../check_base.hpp"
#include "../may_throw.hpp"
#include "../obligation.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class UnwaitedGroupCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    if (model().task_groups.empty()) return;
    finder->addMatcher(functionDecl(isDefinition()).bind("fn"), this);
    finder->addMatcher(lambdaExpr().bind("lambda"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const FunctionDecl* fn = result.Nodes.getNodeAs<FunctionDecl>("fn");
    if (const auto* lambda = result.Nodes.getNodeAs<LambdaExpr>("lambda"))
      fn = lambda->getCallOperator();
    // A template is analysed in its definition (as written, so a member of a
    // class template is checked even if nothing instantiates it) and in each
    // instantiation (where dependent derivations and default captures are
    // resolved); a leak is reported once, at its spelling location.
    if (!fn || !fn->hasBody() || !done_.insert(fn).second) return;
    if (sm().isInSystemHeader(fn->getLocation())) return;
    std::vector<Obligation> groups = CollectObligations(fn, model(), true, false);
    if (groups.empty()) return;
    if (!throws_) throws_ = std::make_unique<ThrowSummary>(sm(), false);
    for (const Leak& leak : FindLeaks(fn, ast(), groups, throws_.get())) {
      const Obligation& o = groups[leak.obligation];
      Finding* f =
          diag(leak.armed_at.isValid() ? leak.armed_at : o.decl->getLocation(), Message(o));
      if (!f) continue;
      f->function = DisplayName(fn);  // the function that starts it, not its lambda
      const std::string var = o.Name();
      const std::string& join = o.group->join.front();
      std::string exit_note;
      if (!leak.thrower.empty() && o.frame_tasks)
        exit_note = leak.thrower + " here: the exception leaves this function before '" + var +
                    "' is waited for, while " + (o.container ? "its tasks" : "its task") +
                    " may still run";
      else if (!leak.thrower.empty())
        exit_note = leak.thrower + " here: the exception leaves '" + var + "' without " + join +
                    "()" + (o.IsThread() ? " (destroyed joinable: std::terminate)" : "");
      else if (leak.by_throw)
        exit_note = "a throw here leaves '" + var + "' without " + join + "()";
      else
        exit_note = "'" + var + "' may reach the end of its scope here without " + join + "()";
      note(f, leak.exit_at, exit_note);
    }
  }

 private:
  // std's words for std's threads, libtether's for task groups.
  static std::string Message(const Obligation& o) {
    const std::string var = o.Name();
    const std::string& join = o.group->join.front();
    if (o.frame_tasks)
      return std::string(o.container ? "a task put into '" + var + "' here uses "
                                     : "the task of future '" + var + "' uses ") +
             o.task_use +
             ", which this function does not own, and is waited for on some paths only: a "
             "future's destructor does not wait, so the task may run on after the function has "
             "left; wait on every path (a scope guard that waits covers the throws)";
    if (o.container)
      return "a thread put into '" + var +
             "' here is not joined on every path (a joinable thread destroyed with it calls "
             "std::terminate); " +
             join + " each one (for (auto& t : " + var + ") t." + join + "();) before '" + var +
             "' goes out of scope";
    if (o.IsThread()) {
      const std::string call = var + (o.pointer ? "->" : ".") + join + "()";
      return "thread '" + var +
             "' is not joined on every path (a joinable std::thread destroyed at the end of its "
             "scope calls std::terminate); call " +
             call + " on every path, or detach it with a tether:detached(<why>) reason";
    }
    return "task group '" + var +
           "' starts a task here but is not waited for on every path; call " + var + "." + join +
           "() before it goes out of scope";
  }

  std::set<const FunctionDecl*> done_;
  std::unique_ptr<ThrowSummary> throws_;  // made with the first match's SourceManager
};

}  // namespace

CheckRegistration UnwaitedGroupCheckRegistration() {
  return RegisterCheck<UnwaitedGroupCheck>(
      {"tether-unwaited-group", "A task group spawns a task but is not waited for on every path.",
       "A TaskGroup (or another modelled group) that spawns on some path is not joined on every "
       "path out of its scope (early returns and throws included). Its tasks outlive the code "
       "that owns them. A group that escapes (returned, moved, passed on, captured by a lambda) "
       "is its new owner's responsibility.",
       "Call Wait() on every path, for example once after the last spawn and before any return.",
       "medium"});
}

}  // namespace tether::check
