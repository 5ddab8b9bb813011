/// tether-thread-member-order: a member that joins its threads only when it
/// is destroyed (std::jthread, a container of them, a project's own
/// auto-joining thread) is declared before members those threads use.
/// Members are destroyed in reverse order of declaration, so the mutex,
/// condition variable or queue the threads use is destroyed first, while
/// they may still run. Docs: docs/checks/thread-member-order.md
#include <functional>
#include <map>
#include <set>

#include "../ast_util.hpp"
#include "../check_base.hpp"
#include "../obligation.hpp"

namespace tether::check {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// A member whose destruction matters to a thread still using it: not a
// scalar or pointer, and not trivially destroyed (a mutex is named: its
// destructor is trivial in libstdc++, but a thread inside lock() or a
// unique_lock's destructor touches it).
bool DestructionMatters(QualType t) {
  t = t.getCanonicalType();
  if (t->isReferenceType() || t->isScalarType()) return false;
  const std::string name = RecordName(t);
  if (name == "std::mutex" || name == "std::recursive_mutex" || name == "std::shared_mutex" ||
      name == "std::timed_mutex")
    return true;
  return t.isDestructedType() != QualType::DK_none;
}

class ThreadMemberOrderCheck : public Check {
 public:
  using Check::Check;

  void registerMatchers(MatchFinder* finder) override {
    if (ModelsThreads(model()))
      finder->addMatcher(cxxRecordDecl(isDefinition()).bind("class"), this);
  }

  void check(const MatchFinder::MatchResult& result) override {
    const auto* rd = result.Nodes.getNodeAs<CXXRecordDecl>("class");
    if (!IsClassAsWritten(rd, sm()) || !done_.insert(rd).second) return;
    std::vector<const FieldDecl*> fields(rd->field_begin(), rd->field_end());
    std::vector<size_t> threads;
    for (size_t i = 0; i < fields.size(); ++i)
      if (JoinsOnDestruction(fields[i]->getType())) threads.push_back(i);
    if (threads.empty()) return;
    std::vector<const FunctionDecl*> entries = ThreadEntries(rd, model());
    if (entries.empty()) return;
    rd_ = rd;
    std::map<const FieldDecl*, SourceLocation> used;  // by the threads, first use
    std::set<const FunctionDecl*> seen;
    for (const FunctionDecl* entry : entries) Uses(entry->getBody(), 0, &seen, &used);
    const CXXDestructorDecl* dtor = rd->getDestructor();
    const FunctionDecl* dtor_def = nullptr;
    if (dtor && dtor->isUserProvided() && !dtor->hasBody(dtor_def))
      return;  // defined in another TU: it may join them
    for (size_t i : threads) {
      const FieldDecl* member = fields[i];
      if (dtor_def && JoinedIn(dtor_def->getBody(), member, 0)) continue;
      std::vector<const FieldDecl*> later;
      for (size_t j = i + 1; j < fields.size(); ++j)
        if (used.count(fields[j]) && !JoinsOnDestruction(fields[j]->getType()) &&
            DestructionMatters(fields[j]->getType()))
          later.push_back(fields[j]);
      if (later.empty()) continue;
      Report(rd, member, later, used, dtor_def);
    }
  }

 private:
  void Report(const CXXRecordDecl* rd, const FieldDecl* member,
              const std::vector<const FieldDecl*>& later,
              const std::map<const FieldDecl*, SourceLocation>& used, const FunctionDecl* dtor) {
    std::string names;
    for (size_t k = 0; k < later.size() && k < 3; ++k)
      names += (k ? (k + 1 == later.size() || k == 2 ? "' and '" : "', '") : "'") +
               later[k]->getNameAsString();
    names += "'";
    if (later.size() > 3) names += " (and " + std::to_string(later.size() - 3) + " more)";
    const std::string name = member->getNameAsString();
    const bool one = later.size() == 1;
    Finding* f =
        diag(member->getLocation(),
             "'" + name + "' joins its threads only when it is destroyed, but it is " +
                 "declared before " + names + ", which the threads use: members are " +
                 "destroyed in reverse order of declaration, so " + (one ? "it is" : "they are") +
                 " destroyed while the threads may still run; declare '" + name +
                 "' after the members its threads use, or join its threads in the "
                 "destructor of '" +
                 rd->getNameAsString() + "'");
    if (!f) return;
    f->function = rd->getNameAsString();
    note(f, used.at(later.front()),
         "a thread uses '" + later.front()->getNameAsString() + "' here");
    note(f, dtor ? dtor->getLocation() : rd->getLocation(),
         dtor ? "the destructor ends without joining '" + name + "'"
              : "'" + rd->getNameAsString() + "' has no destructor of its own");
  }

  // The members a thread's code uses (through this), following calls of the
  // class's own methods on this two deep.
  void Uses(const Stmt* s, unsigned depth, std::set<const FunctionDecl*>* seen,
            std::map<const FieldDecl*, SourceLocation>* used) {
    if (!s || isa<LambdaExpr>(s)) return;
    if (const auto* me = dyn_cast<MemberExpr>(s)) {
      if (const FieldDecl* f = MemberOfThis(me)) used->try_emplace(f, me->getExprLoc());
    } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s)) {
      const FunctionDecl* def = nullptr;
      if (isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts()) && depth < 2 &&
          mc->getMethodDecl() && mc->getMethodDecl()->getParent() == rd_ &&
          mc->getMethodDecl()->hasBody(def) && def && seen->insert(def).second)
        Uses(def->getBody(), depth + 1, seen, used);
    }
    for (const Stmt* child : s->children()) Uses(child, depth, seen, used);
  }

  // The destructor joins member's threads before it ends: join() on it (or
  // on each element), or clear()/reset() that destroys them there; in a
  // method of the class it calls on this, two deep.
  bool JoinedIn(const Stmt* s, const FieldDecl* member, unsigned depth) {
    if (!s || isa<LambdaExpr>(s)) return false;
    if (const auto* loop = dyn_cast<CXXForRangeStmt>(s);
        loop && MemberOfThis(loop->getRangeInit()) == member && JoinsEach(loop, {"join"}))
      return true;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
      static const std::set<std::string> ends = {"join",     "clear",  "reset",
                                                 "pop_back", "resize", "erase"};
      if (MemberOfThis(mc->getImplicitObjectArgument()) == member &&
          ends.count(mc->getMethodDecl()->getNameAsString()))
        return true;
      const FunctionDecl* def = nullptr;
      if (isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts()) && depth < 2 &&
          mc->getMethodDecl()->getParent() == rd_ && mc->getMethodDecl()->hasBody(def) && def &&
          JoinedIn(def->getBody(), member, depth + 1))
        return true;
    }
    for (const Stmt* child : s->children())
      if (JoinedIn(child, member, depth)) return true;
    return false;
  }

  const CXXRecordDecl* rd_ = nullptr;
  std::set<const CXXRecordDecl*> done_;
};

}  // namespace

CheckRegistration ThreadMemberOrderCheckRegistration() {
  return RegisterCheck<ThreadMemberOrderCheck>(
      {"tether-thread-member-order",
       "A member that joins its threads on destruction (std::jthread) is declared before "
       "members the threads use: they are destroyed first, while the threads run.",
       "Members are destroyed in reverse order of declaration. A std::jthread (or a container of "
       "them, or an auto-joining thread class) declared before the mutex, condition variable or "
       "queue its thread uses joins only after those are destroyed: the thread, still running, "
       "uses destroyed objects.",
       "Declare the thread member after the members its thread uses, or join it in the "
       "destructor.",
       "high"});
}

}  // namespace tether::check
