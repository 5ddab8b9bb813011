/// tether-ignored-stop-flag: real code stops its threads with a flag (an
/// std::atomic<bool> or a bool under a mutex) that the thread's loop reads,
/// and a condition variable the thread waits on. That flag is the thread's
/// cancellation, and it has the context checks' failure modes: a stop that
/// sets the flag but never notifies the condition variable the thread sleeps
/// on (the shutdown hang), a wait whose predicate ignores the flag, a thread
/// loop that never reads it, a stop that leaves it spinning, a thread that
/// erases the stop's wake-up, a drain that refills itself. Docs:
/// docs/checks/ignored-stop-flag.md
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "../ast_util.hpp"
#include "../blocking.hpp"
#include "../check_base.hpp"
#include "../erased_wake.hpp"
#include "../member_reach.hpp"
#include "../obligation.hpp"
#include "../pool_tasks.hpp"
#include "../stop_spin.hpp"
#include "../unlocked_start.hpp"
#include "../wait_sees.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// A method of the class (not a constructor, not a thread entry) and what it
// does with the members.
struct MethodReach {
  const CXXMethodDecl* decl = nullptr;  // as declared (its access)
  const FunctionDecl* def = nullptr;    // its definition
  Reach reach;
};

class IgnoredStopFlagCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    if (ModelsThreads(model()))
      finder->addMatcher(cxxRecordDecl(isDefinition()).bind("class"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* rd = result.Nodes.getNodeAs<CXXRecordDecl>("class");
    if (!rd || rd->isLambda() || sm().isInSystemHeader(rd->getLocation()) ||
        !done_.insert(rd).second)
      return;
    if (const auto* spec = dyn_cast<ClassTemplateSpecializationDecl>(rd);
        spec && spec->getSpecializationKind() == TSK_ImplicitInstantiation)
      return;
    rd_ = rd;
    reach_.emplace(ast(), rd);
    std::vector<const FunctionDecl*> entries = ThreadEntries(rd, model());
    // What each method other than the thread's own does with the members,
    // walked once for every rule below.
    std::vector<MethodReach> methods;
    for (const CXXMethodDecl* m : rd->methods()) {
      const FunctionDecl* def = nullptr;
      if (!m->hasBody(def) || !def || !def->getBody() || isa<CXXConstructorDecl>(def) ||
          std::find(entries.begin(), entries.end(), def) != entries.end())
        continue;
      MethodReach method{m, def, {}};
      reach_->Walk(def->getBody(), &method.reach, 0, false);
      methods.push_back(std::move(method));
    }
    CheckStartAfterStop(methods);
    for (const UnlockedStart& s : UnlockedStarts(rd, ast(), model(), *reach_))
      ReportUnlockedStart(s);
    for (const PollingTask& t : PollingTasks(rd, ast(), model())) ReportPollingTask(t);
    if (entries.empty()) return CheckStopWithoutWait(methods);
    // The setters: methods that set a flag. The stoppers among them: the
    // destructor, and methods that set a flag and join.
    // A base's methods stop the object too (Stockfish's ~Thread stops the
    // TimerThread whose override its thread runs).
    std::vector<MethodReach> inherited;
    rd->forallBases([&](const CXXRecordDecl* base) {
      for (const CXXMethodDecl* m : base->methods())
        if (const FunctionDecl* def = nullptr;
            m->hasBody(def) && def && def->getBody() && !isa<CXXConstructorDecl>(def)) {
          inherited.push_back({m, def, {}});
          reach_->Walk(def->getBody(), &inherited.back().reach, 0, false);
        }
      return true;
    });
    std::vector<std::pair<const FunctionDecl*, Reach>> setters, stoppers;
    const FunctionDecl* dtor = nullptr;
    Reach at_destruction;
    for (const std::vector<MethodReach>* of : {&methods, &inherited})
      for (const MethodReach& method : *of) {
        const FunctionDecl* def = method.def;
        const Reach& r = method.reach;
        if (isa<CXXDestructorDecl>(def) && !dtor) dtor = def, at_destruction = r;
        if (r.flag_writes.empty()) continue;
        if (r.joins || isa<CXXDestructorDecl>(def)) stoppers.emplace_back(def, r);
        setters.emplace_back(def, r);
      }
    // A stop that joins speaks for the flag before a setter that may only
    // initialise it (srt's construct() sets m_bClosing = false).
    std::stable_partition(setters.begin(), setters.end(), [](const auto& setter) {
      return setter.second.joins || isa<CXXDestructorDecl>(setter.first);
    });
    for (const FunctionDecl* entry : entries) {
      for (const std::vector<MethodReach>* of : {&methods, &inherited})
        for (const MethodReach& method : *of)
          if (method.reach.joins || isa<CXXDestructorDecl>(method.def))
            CheckRefillingDrain(entry, method.def, method.reach);
      Reach thread;
      reach_->Walk(entry->getBody(), &thread, 0, true);
      if (dtor && at_destruction.join) CheckStartSignal(rd, thread, dtor, at_destruction);
      if (setters.empty()) continue;
      for (const Wait& w : thread.waits) CheckUnguardedWait(w, setters);
      if (!stoppers.empty()) CheckEntry(entry, thread, stoppers);
    }
  }

 private:
  void CheckEntry(const FunctionDecl* entry, const Reach& thread,
                  const std::vector<std::pair<const FunctionDecl*, Reach>>& stoppers) {
    bool reads_a_stop_flag = false;
    for (const auto& [stopper, stop] : stoppers) {
      for (const auto& [flag, write] : stop.flag_writes) {
        if (!thread.reads.count(flag)) continue;
        reads_a_stop_flag = true;
        const std::string flag_name = flag->getNameAsString();
        for (const Wait& w : thread.waits) {
          if (!w.cv) continue;
          const std::string cv = w.cv->getNameAsString();
          // The shutdown hang: the thread sleeps on cv, the stop never wakes it.
          if (!w.timed && !stop.notifies.count(w.cv) && GuardsWait(*reach_, ast(), w, flag) &&
              reported_.insert(write).second) {
            Finding* f = diag(write->getBeginLoc(),
                              "'" + stopper->getNameAsString() + "' sets stop flag '" + flag_name +
                                  "' but never notifies '" + cv +
                                  "', which the thread waits on: the thread sleeps through the "
                                  "stop and its join hangs; call " +
                                  WakeAll(w) + " after setting '" + flag_name + "'");
            attribute(f, write);
            if (f) note(f, w.call->getExprLoc(), "the thread waits on '" + cv + "' here");
          }
          // The lost wake-up: the flag is written without the mutex the thread
          // holds while it tests the flag and goes to sleep, so the notify can
          // fall between the test and the wait.
          if (w.mutex && stop.notifies.count(w.cv) && !reach_->HeldAt(write, w.mutex) &&
              !NotifiesUnder(*reach_, stop, w.cv, w.mutex) && !PostsUnder(*reach_, stop, w) &&
              GuardsWait(*reach_, ast(), w, flag) && reported_.insert(write).second) {
            const std::string mu = w.mutex->getNameAsString();
            Finding* f = diag(
                write->getBeginLoc(),
                "'" + stopper->getNameAsString() + "' sets stop flag '" + flag_name +
                    "' without holding '" + mu + "', the mutex the thread holds while it tests '" +
                    flag_name + "' and waits on '" + cv +
                    "': a notify that comes between its test and its wait is lost and the "
                    "thread sleeps through the stop" +
                    (w.timed ? " until its timeout" : " (its join hangs)") + "; set '" + flag_name +
                    "' while holding '" + mu + "'");
            attribute(f, write);
            if (f) note(f, w.call->getExprLoc(), "the thread waits on '" + cv + "' here");
          }
          // A predicate that the stop cannot make true.
          if (w.predicate && !PredicateSees(*reach_, w.predicate, flag, stop) &&
              reported_.insert(w.call).second) {
            Finding* f = diag(w.call->getExprLoc(),
                              "the wait on '" + cv + "' does not check stop flag '" + flag_name +
                                  "': when '" + stopper->getNameAsString() +
                                  "' sets it and wakes "
                                  "the thread, the predicate is still false and the thread waits "
                                  "on; make the predicate return true once '" +
                                  flag_name + "' is set");
            attribute(f, w.call);
            if (f) note(f, write->getBeginLoc(), "'" + flag_name + "' is set here");
          }
          if (w.predicate && !reported_.count(w.call))
            if (std::optional<bool> stopped = StoredValue(ast(), write))
              if (std::optional<StopSpin> spin = SpinAfterStop(w, flag, *stopped, ast(), *reach_))
                ReportSpin(*spin, w, stopper, flag, write);
        }
        if (std::optional<ErasedWake> erased = ErasedWakeUp(thread, stop, flag, ast(), *reach_))
          ReportErasedWake(*erased, stopper, flag, write);
      }
    }
    if (reads_a_stop_flag) return CheckSpinningLoop(entry, thread, stoppers);
    // A thread loop that never reads the flag its stop sets before the join.
    for (const auto& [stopper, stop] : stoppers) {
      if (!stop.joins) continue;
      const Stmt* loop = reach_->EndlessThreadLoop(entry);
      if (!loop || !reported_.insert(loop).second) return;
      const FieldDecl* flag = stop.flag_writes.front().first;
      Finding* f = diag(loop->getBeginLoc(),
                        "the thread's loop never reads stop flag '" + flag->getNameAsString() +
                            "', which '" + stopper->getNameAsString() +
                            "' sets before joining it: the loop has no way out and the join "
                            "waits forever; test '" +
                            flag->getNameAsString() + "' in the loop");
      attribute(f, loop);
      if (f)
        note(f, stop.flag_writes.front().second->getBeginLoc(),
             "'" + flag->getNameAsString() + "' is set here");
      return;
    }
  }

  // Rule 10 without a continue: the thread reads the stop flag only in the
  // predicate of its wait, and its loop has no way out. The stop wakes it,
  // the wait returns at once from then on, and nothing leaves the loop: the
  // thread spins and the join waits forever.
  void CheckSpinningLoop(const FunctionDecl* entry, const Reach& thread,
                         const std::vector<std::pair<const FunctionDecl*, Reach>>& stoppers) {
    std::set<const FieldDecl*> read_outside_waits;
    for (const auto& [f, at] : reach_->MemberReads(entry->getBody())) read_outside_waits.insert(f);
    for (const auto& [stopper, stop] : stoppers) {
      if (!stop.joins) continue;
      for (const auto& [flag, write] : stop.flag_writes) {
        if (read_outside_waits.count(flag)) continue;
        const Wait* wait = nullptr;
        for (const Wait& w : thread.waits)
          if (!wait && w.predicate && GuardsWait(*reach_, ast(), w, flag)) wait = &w;
        const Stmt* loop = wait ? reach_->EndlessThreadLoop(entry) : nullptr;
        if (!loop || !reported_.insert(loop).second) continue;
        const std::string name = flag->getNameAsString(), s = stopper->getNameAsString();
        Finding* f =
            diag(loop->getBeginLoc(),
                 "the thread's loop reads stop flag '" + name +
                     "' only in the predicate of its wait on '" + wait->cv_name + "': once '" + s +
                     "' sets it, the wait returns at once and nothing leaves the loop: "
                     "the thread spins and the join waits forever; leave the loop when '" +
                     name + "' is set");
        attribute(f, loop);
        if (!f) return;
        note(f, wait->call->getExprLoc(), "the wait returns at once while '" + name + "' is set");
        note(f, write->getBeginLoc(), "'" + name + "' is set here");
        return;
      }
    }
  }

  // A stop that makes the thread spin instead of leaving (stop_spin.hpp).
  void ReportSpin(const StopSpin& spin, const Wait& w, const FunctionDecl* stopper,
                  const FieldDecl* flag, const Stmt* write) {
    if (!reported_.insert(spin.back).second) return;
    const std::string name = flag->getNameAsString(), s = stopper->getNameAsString();
    Finding* f = diag(spin.back->getBeginLoc(),
                      "once '" + s + "' sets stop flag '" + name + "', the wait on '" + w.cv_name +
                          "' returns at once (its predicate tests '" + name +
                          "'), and this continue goes back to it without leaving the loop or "
                          "changing anything the predicate tests: the thread spins instead of "
                          "stopping, and '" +
                          s + "' waits for a thread that burns a core; leave the loop on this " +
                          "path once '" + name + "' is set");
    attribute(f, spin.back);
    if (!f) return;
    note(f, w.call->getExprLoc(), "the wait returns at once while '" + name + "' is set");
    note(f, spin.taken->getBeginLoc(), "this path is taken with '" + name + "' set");
    note(f, write->getBeginLoc(), "'" + name + "' is set here");
  }

  // A drain that refills itself (stop_spin.hpp): the stop's constant write of
  // a member the thread's loop condition reads, a flag of any type (LabSound's
  // `std::atomic<int> updateThreadShouldRun`).
  void CheckRefillingDrain(const FunctionDecl* entry, const FunctionDecl* stopper,
                           const Reach& stop) {
    for (const auto& [flag, write] : stop.write_sites) {
      const std::optional<bool> stopped = StoredValue(ast(), write);
      const Stmt* loop = nullptr;
      for (const Stmt* body : stopped ? reach_->ThreadBodies(entry) : std::vector<const Stmt*>{})
        if (!loop) loop = MemberReach::LoopOn(body, flag);
      const std::optional<RefillingDrain> d =
          loop ? DrainThatRefills(loop, flag, *stopped, ast(), *reach_) : std::nullopt;
      if (!d || !reported_.insert(d->term).second) continue;
      const std::string name = flag->getNameAsString(), s = stopper->getNameAsString();
      const std::string c = d->container->getNameAsString();
      Finding* f = diag(d->term->getBeginLoc(),
                        "once '" + s + "' sets '" + name + "', this loop goes on while '" + c +
                            "' has entries, and the loop itself puts entries back into '" + c +
                            "': an entry it keeps re-queueing holds the thread here and '" + s +
                            "' waits for it; leave the loop once '" + name +
                            "' is set, or stop re-queueing after it");
      attribute(f, d->term);
      if (!f) return;
      note(f, d->refill->getBeginLoc(), "the loop puts entries back into '" + c + "' here");
      note(f, write->getBeginLoc(), "'" + name + "' is set here");
    }
  }

  // A thread that erases the stop's wake-up (erased_wake.hpp).
  void ReportErasedWake(const ErasedWake& e, const FunctionDecl* stopper, const FieldDecl* flag,
                        const Stmt* write) {
    if (!reported_.insert(e.erase).second) return;
    // The stop is named by the function that writes the member: the
    // destructor that calls stop_and_join() is not where the wake-up is.
    const std::string name = flag->getNameAsString(), mu = e.mutex->getNameAsString();
    const std::string s = (e.poster ? e.poster : stopper)->getNameAsString();
    const std::string member = e.signal->getNameAsString();
    Finding* f = diag(e.erase->getBeginLoc(),
                      "the thread overwrites '" + member + "' under '" + mu +
                          "' without testing stop flag '" + name + "': a '" + s +
                          "' that runs after the thread's last test of '" + name + "' writes '" +
                          member + "' to wake it, this write erases that, and " +
                          "the thread goes back to sleep while '" + s + "' waits for it; test '" +
                          name + "' under '" + mu + "' before overwriting '" + member + "'");
    attribute(f, e.erase);
    if (!f) return;
    note(f, e.posted->getBeginLoc(), "'" + s + "' writes '" + member + "' here to wake the thread");
    note(f, e.sleep->getBeginLoc(), "the thread then sleeps here without testing '" + name + "'");
    note(f, write->getBeginLoc(), "'" + name + "' is set here");
  }

  // A start after the stop: a public method starts a thread on each call (a
  // local thread it detaches, or one it adds to a member container) and tests
  // nothing the class's stop changes, while the stop waits for the threads
  // (joins them, or loops until a member they change says they are done). A
  // thread started once the stop has waited is never waited for (oatpp's
  // HttpConnectionHandler spawned connection threads after stop(), 28b71c7).
  void CheckStartAfterStop(const std::vector<MethodReach>& methods) {
    std::vector<const MethodReach*> stops;
    std::vector<std::pair<const MethodReach*, SourceLocation>> starts;
    for (const MethodReach& method : methods) {
      if (method.reach.joins || DrainLoop(method.def->getBody(), model(), *reach_))
        stops.push_back(&method);
      if (SourceLocation start = StartEachCall(method.def->getBody(), model());
          start.isValid() && method.decl->getAccess() == AS_public &&
          !isa<CXXDestructorDecl>(method.def))
        starts.emplace_back(&method, start);
    }
    for (const auto& [starting, start] : starts) {
      const FunctionDecl* starter = starting->def;
      const Reach& r = starting->reach;
      for (const MethodReach* stopping : stops) {
        const FunctionDecl* stopper = stopping->def;
        const Reach& stop = stopping->reach;
        if (stopper == starter || reported_.count(start.getPtrEncoding())) continue;
        bool tests_stop = false;
        for (const FieldDecl* f : r.reads) tests_stop |= stop.writes.count(f) > 0;
        if (tests_stop) continue;
        reported_.insert(start.getPtrEncoding());
        const std::string s = stopper->getNameAsString();
        Finding* f =
            diag(start, "'" + starter->getNameAsString() + "' starts a thread on each call " +
                            "without testing whether '" + s + "' has run: '" + s +
                            "' waits only for the threads already running, and one started " +
                            "after it is never waited for; have '" + s +
                            "' set a flag and test it here before starting");
        if (f) f->function = DisplayName(starter);
        if (f)
          note(f, stopper->getLocation(),
               "'" + s + "' waits for the threads here, and changes nothing '" +
                   starter->getNameAsString() + "' tests");
      }
    }
  }

  // A start that races the stop's join (unlocked_start.hpp).
  void ReportUnlockedStart(const UnlockedStart& s) {
    if (!reported_.insert(s.start).second) return;
    const std::string thread = s.thread->getNameAsString(), mu = s.mutex->getNameAsString();
    const std::string starter = s.starter->getNameAsString();
    const std::string stopper = s.stopper->getNameAsString();
    Finding* f =
        diag(s.start->getBeginLoc(),
             "'" + starter + "' starts thread member '" + thread + "'" +
                 (s.through.empty() ? "" : " through '" + s.through + "'") + " without holding '" +
                 mu + "', which '" + stopper + "' holds while it joins '" + thread +
                 "': a start that runs while '" + stopper +
                 "' joins, or after it, races that join and leaves a thread nobody joins; start it "
                 "while holding '" +
                 mu + "', after testing there that the stop has not begun");
    attribute(f, s.start);
    if (f)
      note(f, s.join->getBeginLoc(),
           "'" + stopper + "' joins '" + thread + "' here, holding '" + mu + "'");
  }

  // Rule 9, a stop that does not wait for its loop. The class starts no
  // thread: a method loops until a flag member changes (an event loop, run by
  // whichever thread calls it), and the destructor sets that flag and wakes
  // the loop (a notify, a write to a wake-up descriptor). The wake says the
  // loop may be running on another thread; the destructor then returns
  // without waiting for it to leave, and the loop runs on in a destroyed
  // object. Waiting is a join, a wait, or a loop on something the loop's
  // method writes (`while (looping_) sleep`). Real fix: trantor's EventLoop
  // (4d0f72e, "Wait for loop to exit in EventLoop destructor").
  void CheckStopWithoutWait(const std::vector<MethodReach>& methods) {
    const MethodReach* dtor = nullptr;
    for (const MethodReach& m : methods)
      if (isa<CXXDestructorDecl>(m.def)) dtor = &m;
    if (!dtor || dtor->reach.flag_writes.empty() || !dtor->reach.wake || dtor->reach.joins) return;
    for (const MethodReach& m : methods) {
      if (&m == dtor || m.decl->isStatic()) continue;
      for (const auto& [flag, write] : dtor->reach.flag_writes) {
        const Stmt* loop = reach_->LoopOn(m.def->getBody(), flag);
        if (!loop) continue;
        if (Waits(dtor->def->getBody(), m.reach.writes, 0)) return;
        const std::string name = flag->getNameAsString();
        const std::string run = m.def->getNameAsString();
        Finding* f = diag(dtor->def->getLocation(),
                          "the destructor of '" + rd_->getNameAsString() + "' stops the loop in '" +
                              run + "' (it sets '" + name +
                              "' and wakes it) but does not wait for it to leave: a loop still "
                              "running on another thread goes on using the object after it is "
                              "destroyed; wait until '" +
                              run +
                              "' has returned (a flag it clears after its loop) before "
                              "the destructor returns");
        attribute(f, dtor->def->getBody());
        if (!f) return;
        note(f, loop->getBeginLoc(), "'" + run + "' loops until '" + name + "' changes");
        note(f, write->getBeginLoc(), "'" + name + "' is set here");
        note(f, dtor->reach.wake->getBeginLoc(), "the loop is woken here");
        return;
      }
    }
  }
  // s (with the methods it calls on this, two deep) joins, waits, or loops
  // on a member in loop_writes.
  bool Waits(const Stmt* s, const std::set<const FieldDecl*>& loop_writes, unsigned depth) {
    if (!s || isa<LambdaExpr>(s)) return false;
    if (const Expr* cond = LoopCondition(s)) {
      Reach tested;
      reach_->Walk(cond, &tested, 2, false);
      for (const auto* members : {&tested.reads, &tested.writes})
        for (const FieldDecl* f : *members)
          if (loop_writes.count(f)) return true;
    }
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
      const std::string name = mc->getMethodDecl()->getNameAsString();
      if (name == "join" || name == "wait" || name == "wait_for" || name == "wait_until")
        return true;
      const FunctionDecl* def = nullptr;
      if (isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts()) && depth < 2 &&
          mc->getMethodDecl()->getParent() == rd_ && mc->getMethodDecl()->hasBody(def) && def &&
          Waits(def->getBody(), loop_writes, depth + 1))
        return true;
    }
    for (const Stmt* child : s->children())
      if (Waits(child, loop_writes, depth)) return true;
    return false;
  }

  // A pool task that polls through a stop (PollingTasks): the stop waits for
  // the task, and the task waits for the class's own code, which is in the stop.
  void ReportPollingTask(const PollingTask& t) {
    const std::string pool = Spelled(t.pool), polled = Spelled(t.polled);
    const std::string stopper = t.stopper->getNameAsString();
    const std::string changer = t.changer->getNameAsString();
    Finding* f = diag(
        t.loop->getBeginLoc(),
        "a task handed to '" + pool + "' waits in this loop until '" + polled +
            "' changes and tests no stop: '" + stopper + "' stops '" + pool +
            "' (it waits for the running tasks) without changing anything the loop tests, and '" +
            polled + "' is changed by the class's own code ('" + changer +
            "'), so a stop made while the task waits can wait for it forever; have '" + stopper +
            "' set a flag that the loop tests");
    attribute(f, t.loop);
    if (!f) return;
    note(f, t.polled_at, "the loop tests '" + polled + "' here");
    note(f, t.stop->getExprLoc(), "'" + stopper + "' stops '" + pool + "' here");
  }

  // The start-signal hang: the thread waits on a promise of the class (a
  // start signal that a method such as run() fulfils) and the destructor
  // joins it without fulfilling the promise: an object destroyed before the
  // signal waits forever in its destructor (trantor's EventLoopThread). A
  // promise a constructor fulfils, or nothing in the class does, is not judged.
  void CheckStartSignal(const CXXRecordDecl* rd, const Reach& thread, const FunctionDecl* dtor,
                        const Reach& at_destruction) {
    for (const PromiseWait& w : thread.promise_waits) {
      if (reported_.count(w.call) || reach_->Fulfils(dtor->getBody(), w.promise)) continue;
      std::string fulfiller;
      bool always = false;
      for (const CXXMethodDecl* m : rd->methods()) {
        const FunctionDecl* def = nullptr;
        if (!m->hasBody(def) || !def || !reach_->Fulfils(def->getBody(), w.promise)) continue;
        always |= isa<CXXConstructorDecl>(def);
        if (fulfiller.empty()) fulfiller = def->getNameAsString();
      }
      if (always || fulfiller.empty()) continue;
      reported_.insert(w.call);
      const std::string promise = w.promise->getNameAsString();
      Finding* f = diag(
          at_destruction.join->getBeginLoc(),
          "'" + dtor->getNameAsString() + "' joins the thread, which may still be waiting on '" +
              promise + "' that only '" + fulfiller + "' fulfils: an object destroyed before '" +
              fulfiller + "' is called waits here forever; fulfil '" + promise + "' (or call '" +
              fulfiller + "') before the join");
      attribute(f, at_destruction.join);
      if (f) note(f, w.call->getExprLoc(), "the thread waits on '" + promise + "' here");
    }
  }

  // The waiter's side of a lost wake-up: a wait with no predicate, in a loop
  // that tests the stop flag only outside the lock it waits with. A stop that
  // sets the flag and notifies between that test and the wait is lost however
  // the stopper locks (kokko's JobWorker): nothing tests the flag again
  // before the thread sleeps.
  void CheckUnguardedWait(const Wait& w,
                          const std::vector<std::pair<const FunctionDecl*, Reach>>& setters) {
    if (w.timed || w.predicate || (!w.lock && !w.direct) || reported_.count(w.call)) return;
    const SourceLocation wait_at = sm().getExpansionLoc(w.call->getBeginLoc());
    const Stmt* released = nullptr;
    const SourceLocation locked_at = reach_->LockPoint(w, wait_at, &released);
    const std::string lock = (w.lock ? w.lock->getName() : w.mutex->getName()).str();
    if (locked_at.isInvalid()) return;
    const Stmt* loop = reach_->LoopAround(w.call, locked_at);
    if (!loop) return;
    std::vector<std::pair<const FieldDecl*, SourceLocation>> reads = reach_->MemberReads(loop);
    auto tested = [&](const FieldDecl* f, bool under_lock) -> const SourceLocation* {
      for (const auto& [read, at] : reads)
        if (read == f && under_lock == (sm().isBeforeInTranslationUnit(locked_at, at) &&
                                        sm().isBeforeInTranslationUnit(at, wait_at)))
          return &at;
      return nullptr;
    };
    for (const auto& [setter, stop] : setters) {
      for (const auto& [flag, write] : stop.flag_writes) {
        const SourceLocation* test = tested(flag, false);
        if (!test || tested(flag, true)) continue;
        // Under the lock the thread tests something the stop changes (a
        // sentinel pushed into its queue): it sees the stop there.
        bool sees_stop = false;
        for (const FieldDecl* f : stop.writes) sees_stop |= tested(f, true) != nullptr;
        if (sees_stop) continue;
        const std::string flag_name = flag->getNameAsString();
        reported_.insert(w.call);
        Finding* f = diag(
            w.call->getExprLoc(),
            "the thread waits on '" + w.cv_name + "' with no predicate, and tests stop flag '" +
                flag_name + "' only outside '" + lock + "': a stop that sets '" + flag_name +
                "' and notifies before this wait is lost, and the thread sleeps through it "
                "(its join hangs); wait with a predicate that tests '" +
                flag_name + "'");
        attribute(f, w.call);
        if (f) {
          note(f, *test, "'" + flag_name + "' is tested here, without '" + lock + "'");
          if (released)
            note(f, released->getBeginLoc(),
                 "'" + lock + "' is released here and taken again at the end of the block, " +
                     "after that test");
          note(f, write->getBeginLoc(),
               "'" + setter->getNameAsString() + "' sets '" + flag_name + "' here");
        }
        return;
      }
    }
  }

  // How to wake every waiter of w's condition variable, as its type spells it.
  static std::string WakeAll(const Wait& w) {
    const std::string cv = w.cv->getNameAsString();
    if (!isa<CXXMemberCallExpr>(w.call)) return "pthread_cond_broadcast(&" + cv + ")";
    const CXXRecordDecl* rd = w.cv->getType()->getAsCXXRecordDecl();
    std::string all = "notify_all";
    for (const char* name : {"notify_all", "notifyAll", "broadcast"})
      if (rd && std::any_of(rd->method_begin(), rd->method_end(), [&](const CXXMethodDecl* m) {
            return m->getDeclName().isIdentifier() && m->getName() == name;
          })) {
        all = name;
        break;
      }
    return cv + "." + all + "()";
  }

  const CXXRecordDecl* rd_ = nullptr;
  std::set<const CXXRecordDecl*> done_;
  std::set<const void*> reported_;
  std::optional<MemberReach> reach_;
};

}  // namespace

CheckRegistration IgnoredStopFlagCheckRegistration() {
  return RegisterCheck<IgnoredStopFlagCheck>(
      {"tether-ignored-stop-flag",
       "A thread's stop flag does not reach it: a stop that never notifies the condition "
       "variable the thread waits on, a wait predicate that ignores the flag, a loop that never "
       "reads it, a stop that makes it spin, a thread that erases the stop's wake-up, a drain "
       "that refills itself.",
       "A class that stops its thread by setting a flag (std::atomic<bool>, or a bool under a "
       "mutex) and joining it relies on the thread seeing the flag. If the thread sleeps on a "
       "condition variable that the stop never notifies, or waits with a predicate the stop "
       "cannot make true, or loops without reading the flag, the join waits forever.",
       "Set the flag, then notify_all() the condition variable the thread waits on; make the "
       "wait's predicate true once the flag is set; test the flag in the thread's loop.",
       "high"});
}

}  // namespace tether::check
