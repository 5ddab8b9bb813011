// What each check is, for --list-checks, SARIF rules and the docs' index.
// The names here are the names the check classes register under (registry.cpp).
#include "tether/check/writers.hpp"

namespace tether::check {

const std::vector<CheckInfo>& AllCheckInfos() {
  static const std::vector<CheckInfo> infos = {
      {"tether-detached-context",
       "A root context is created where a context is already reachable.",
       "A function that can reach a context (a parameter, a captured variable, a member, or a "
       "context carried by a request-like object) creates a fresh root (Background(), TODO(), a "
       "default-constructed context) instead. Work started with it is not cancelled with the "
       "caller's work: the zombie tasks of the Vela worker issue.",
       "Pass the reachable context on. If the work must outlive the caller, detach visibly with "
       "WithoutCancel(ctx) and say why in a // tether:detached(<why>) comment.",
       "high"},
      {"tether-context-not-forwarded",
       "A call drops the context the caller has.",
       "The callee has an overload or a sibling (X / XWithContext) that takes a context, or it "
       "takes none but creates a root context itself (directly or through the functions it "
       "calls, up to a bounded depth). The callee's work cannot be cancelled by the caller.",
       "Call the overload that takes the context, or give the callee a context parameter and "
       "pass it on.",
       "medium"},
      {"tether-unwaited-group",
       "A task group spawns a task but is not waited for on every path.",
       "A TaskGroup (or another modelled group) that spawns on some path is not joined on every "
       "path out of its scope (early returns and throws included). Its tasks outlive the code "
       "that owns them. A group that escapes (returned, moved, passed on, captured by a lambda) "
       "is its new owner's responsibility.",
       "Call Wait() on every path, for example once after the last spawn and before any return.",
       "medium"},
      {"tether-lost-cancel",
       "A cancel function is not called on every path.",
       "The CancelFunc returned by WithCancel/WithTimeout/WithDeadline is not used on every path "
       "to the end of its scope (go vet's lostcancel). Until it is called, the derived context "
       "and its timer stay attached to the parent.",
       "Call the cancel function on every path, usually with a scope guard right after the "
       "derivation.",
       "medium"},
      {"tether-detached-task",
       "A detached task is started without a justification.",
       "tether::Go or std::thread::detach starts work that nobody joins. That is sometimes right, "
       "but it must be a visible, explained decision.",
       "Give the task an owner (a TaskGroup that is waited for), or justify the detach with "
       "// tether:detached(<why>) on the line or the line above.",
       "high"},
      {"tether-task-ignores-context",
       "A task has a context but never reads it while it blocks.",
       "A task (TaskGroup::Go, tether::Go, AfterFunc, a std::thread or std::jthread lambda) is "
       "given a context or can capture one, but neither its body nor the same-TU functions it "
       "calls read it (no Done/Err/Value, never passed on), while it blocks: it reads a pipe or "
       "stream, waits, sleeps or loops without a bound. Cancelling the context does not stop it: "
       "the log goroutine of Vela's TailContainer.",
       "Read the context in the task: pass it to the blocking call, wait on ctx.Done() together "
       "with the other source (tether::Select), or check ctx.Err() in the loop.",
       "medium"},
      {"tether-loop-without-context",
       "A loop blocks without a bound and never reads the context it has.",
       "A loop with a blocking call that passes no context (a sleep, a condition-variable wait, "
       "Recv without a context, a model-listed blocking call, or the context-less X of an "
       "X/XWithContext pair), in a function that can reach a context, where nothing in the loop "
       "reads the context and the loop has no constant bound. Cancelling the context does not "
       "end it: Go's wait.ExponentialBackoff where ExponentialBackoffWithContext was meant.",
       "Check ctx.Err() in the loop, pass the context to the blocking call (or call its "
       "context-taking sibling), or wait on ctx.Done() together with the timer (tether::Select).",
       "medium"},
      {"tether-cleanup-on-cancellable-context",
       "Cleanup runs on a context that a timeout or cancel may already have ended.",
       "A cleanup call (a model cleanup_calls name: Destroy*, Cleanup*, Close*, Remove*, ...; or "
       "any call in a scope guard or a destructor) is passed a context derived by WithTimeout, "
       "WithDeadline, WithCancel or TaskGroup::WithContext in the same function, or in a caller "
       "in the same TU. When the deadline passes or the cancel runs, the cleanup fails at once or "
       "is cut short: Vela's DestroyBuild after the build timeout.",
       "Run cleanup on WithoutCancel(ctx) with a deadline of its own: "
       "WithTimeout(WithoutCancel(ctx), d), justified with // tether:detached(<why>).",
       "medium"},
      {"tether-justification",
       "A suppression or detach marker gives no reason.",
       "A tether:detached() marker or a NOLINT(tether-...) suppression with an empty reason "
       "silences a check without explaining why.",
       "Write the reason inside tether:detached(<why>) or after the NOLINT(...) marker.",
       "very-high"},
  };
  return infos;
}

}  // namespace tether::check
