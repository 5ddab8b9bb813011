// Threads and their owners as the std-stop-token model's spawn_on_construct
// groups (std::thread) describe them: how a thread is started, held (a
// container, a unique_ptr, an optional), tested and joined, and which
// functions a class's threads run. Declared in obligation.hpp.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "ast_util.hpp"
#include "blocking.hpp"
#include "obligation.hpp"

namespace tether::check {

using namespace clang;

QualType SequenceElement(QualType t) {
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl());
  if (!spec || spec->getTemplateArgs().size() == 0 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return {};
  const std::string name = QualifiedName(spec->getSpecializedTemplate());
  if (name != "std::vector" && name != "std::deque" && name != "std::list") return {};
  return spec->getTemplateArgs()[0].getAsType();
}

// std::vector/std::deque/std::list of a group type built by construction
// (std::thread): the container's own model, one per element model and
// thread (checks run on several threads), kept for the thread's life.
const TaskGroupModel* ContainerOfThreads(QualType t, const ApiModel& m) {
  const QualType element_type = SequenceElement(t);
  if (element_type.isNull()) return nullptr;
  const std::string name = QualifiedName(
      cast<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl())->getSpecializedTemplate());
  const TaskGroupModel* element = GroupOf(element_type, m);
  if (!element || !element->spawn_on_construct) return nullptr;
  thread_local std::map<const TaskGroupModel*, TaskGroupModel> containers;
  auto [it, added] = containers.try_emplace(element);
  if (added) {
    it->second.type = name + "<" + element->type + ">";
    it->second.spawn = {"emplace_back", "push_back", "emplace", "emplace_front", "push_front"};
    it->second.join = element->join;
    it->second.neutral = {"size", "empty", "reserve", "capacity"};
  }
  return &it->second;
}

// e builds a started thread of group g: the constructor of g with a callable
// however it is spelled (`std::thread t(f)`, `auto t = std::thread(f)`,
// `T t = T{f}`, `std::thread(f)` as an assignment's right side), `new T(f)`
// or `std::make_unique<T>(f)` for a pointer owner.
bool StartsThread(const Expr* e, const TaskGroupModel& g) {
  while (e) {
    e = e->IgnoreImplicit()->IgnoreParens();
    if (const auto* ewc = dyn_cast<ExprWithCleanups>(e)) {
      e = ewc->getSubExpr();
    } else if (const auto* cast = dyn_cast<CastExpr>(e)) {
      e = cast->getSubExpr();
    } else if (const auto* list = dyn_cast<InitListExpr>(e); list && list->getNumInits() == 1) {
      e = list->getInit(0);
    } else if (const auto* mte = dyn_cast<MaterializeTemporaryExpr>(e)) {
      e = mte->getSubExpr();
    } else if (const auto* bind = dyn_cast<CXXBindTemporaryExpr>(e)) {
      e = bind->getSubExpr();
    } else if (const auto* ne = dyn_cast<CXXNewExpr>(e)) {
      e = ne->getInitializer();
    } else if (const auto* cons = dyn_cast<CXXConstructExpr>(e)) {
      if (RecordName(cons->getType()) != g.type) return false;
      if (cons->getConstructor()->isCopyOrMoveConstructor() && cons->getNumArgs() == 1) {
        e = cons->getArg(0);  // a copy elided or not: what it moves from
        continue;
      }
      return cons->getNumArgs() > 0 && !cons->getConstructor()->isCopyOrMoveConstructor();
    } else if (const auto* call = dyn_cast<CallExpr>(e)) {
      // std::make_unique<std::thread>(f) / std::make_shared<std::thread>(f)
      // or std::move(other): the running thread of another owner
      const FunctionDecl* fn = call->getDirectCallee();
      if (!fn || call->getNumArgs() == 0) return false;
      std::string q = QualifiedName(fn);
      if (q == "std::move") return RecordName(call->getType()) == g.type;
      if (q != "std::make_unique" && q != "std::make_shared") return false;
      const auto* args = fn->getTemplateSpecializationArgs();
      return args && args->size() >= 1 && args->get(0).getKind() == TemplateArgument::Type &&
             RecordName(args->get(0).getAsType()) == g.type;
    } else {
      return false;
    }
  }
  return false;
}

// The owned element type of std::unique_ptr<T> (null otherwise).
const TaskGroupModel* PointerToThread(QualType t, const ApiModel& m) {
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl());
  if (!spec ||
      (QualifiedName(spec->getSpecializedTemplate()) != "std::unique_ptr" &&
       QualifiedName(spec->getSpecializedTemplate()) != "std::optional") ||
      spec->getTemplateArgs().size() == 0 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return nullptr;
  const TaskGroupModel* g = GroupOf(spec->getTemplateArgs()[0].getAsType(), m);
  return g && g->spawn_on_construct ? g : nullptr;
}

bool JoinsEach(const CXXForRangeStmt* loop, const std::vector<std::string>& join) {
  const VarDecl* element = loop->getLoopVariable();
  std::function<bool(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return false;
    if (const auto* call = dyn_cast<CXXMemberCallExpr>(s))
      if (const auto* ref =
              dyn_cast<DeclRefExpr>(call->getImplicitObjectArgument()->IgnoreParenImpCasts());
          ref && ref->getDecl() == element && call->getMethodDecl() &&
          ApiModel::Contains(join, call->getMethodDecl()->getNameAsString()))
        return true;
    for (const Stmt* child : s->children())
      if (walk(child)) return true;
    return false;
  };
  return walk(loop->getBody());
}

// The thread variable a branch condition tests: `t.joinable()`,
// `!t.joinable()`, `!ts.empty()` for a container, `p && p->joinable()`'s parts, `p` / `p !=
// nullptr` for a pointer. *running is the successor (0 = true) on which it may still run.
const ValueDecl* TestedThread(const Expr* cond, unsigned* running) {
  if (!cond) return nullptr;
  cond = cond->IgnoreParenImpCasts();
  bool negated = false;
  if (const auto* u = dyn_cast<UnaryOperator>(cond); u && u->getOpcode() == UO_LNot) {
    negated = true;
    cond = u->getSubExpr()->IgnoreParenImpCasts();
  }
  const Expr* object = cond;
  if (const auto* call = dyn_cast<CXXMemberCallExpr>(cond)) {
    const CXXMethodDecl* m = call->getMethodDecl();
    if (!m || !(m->getNameAsString() == "joinable" || m->getNameAsString() == "empty" ||
                isa<CXXConversionDecl>(m)))
      return nullptr;
    if (m->getNameAsString() == "empty") negated = !negated;  // a container: empty() holds none
    object = call->getImplicitObjectArgument()->IgnoreParenImpCasts();
    if (const auto* arrow = dyn_cast<CXXOperatorCallExpr>(object);
        arrow && arrow->getOperator() == OO_Arrow)
      object = arrow->getArg(0)->IgnoreParenImpCasts();
  } else if (const auto* op = dyn_cast<CXXOperatorCallExpr>(cond);
             op && op->getNumArgs() == 2 &&
             (op->getOperator() == OO_ExclaimEqual || op->getOperator() == OO_EqualEqual)) {
    object = op->getArg(0)->IgnoreParenImpCasts();
    if (op->getOperator() == OO_EqualEqual) negated = !negated;
  }
  const ValueDecl* d = nullptr;
  if (const auto* ref = dyn_cast<DeclRefExpr>(object)) d = ref->getDecl();
  if (const auto* me = dyn_cast<MemberExpr>(object);
      me && isa<CXXThisExpr>(me->getBase()->IgnoreParenImpCasts()))
    d = me->getMemberDecl();
  if (d) *running = negated ? 1 : 0;
  return d;
}

namespace {

bool IsStdContainer(const std::string& name) {
  return name == "std::vector" || name == "std::deque" || name == "std::list" ||
         name == "std::array" || name == "std::unique_ptr" || name == "std::optional";
}

// The member an object is reached through: `threads_[i]`, `threads_.back()`,
// `timer_`, or a range-for's variable over a member.
const FieldDecl* MemberBehind(const Expr* e,
                              const std::map<const VarDecl*, const FieldDecl*>& loop_vars) {
  e = e->IgnoreParenImpCasts();
  if (const auto* sub = dyn_cast<ArraySubscriptExpr>(e))
    return MemberBehind(sub->getBase(), loop_vars);
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e); op && op->getNumArgs() > 0)
    return MemberBehind(op->getArg(0), loop_vars);
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e))
    return MemberBehind(mc->getImplicitObjectArgument(), loop_vars);
  if (const auto* ref = dyn_cast<DeclRefExpr>(e))
    if (const auto* var = dyn_cast<VarDecl>(ref->getDecl()); var && loop_vars.count(var))
      return loop_vars.at(var);
  return MemberOfThis(e);
}

// The members through which def, a method of rd, joins rd's threads: join()
// on a std::thread member, or on each of a member container of them (a pool:
// `for (auto& t : threads_) t.join();`), pthread_join of a member, or the
// delete of an object whose destructor joins (Stockfish's `delete
// threads[i]`), directly or in a method of rd it calls on this, two deep
// (PDAL's `~ThreadPool() { join(); }`). `classes` guards the recursion.
std::set<const FieldDecl*> JoinedThrough(const CXXRecordDecl* rd, const FunctionDecl* def,
                                         std::vector<const CXXRecordDecl*>* classes) {
  std::set<const FieldDecl*> out;
  if (!def || !def->getBody() || std::find(classes->begin(), classes->end(), rd) != classes->end())
    return out;
  classes->push_back(rd);
  std::set<const FunctionDecl*> seen;
  std::map<const VarDecl*, const FieldDecl*> loop_vars;
  std::function<void(const Stmt*, unsigned)> walk = [&](const Stmt* s, unsigned depth) {
    if (!s || isa<LambdaExpr>(s)) return;
    if (const auto* loop = dyn_cast<CXXForRangeStmt>(s)) {
      if (const FieldDecl* f = MemberOfThis(loop->getRangeInit())) {
        loop_vars[loop->getLoopVariable()] = f;
        if (RecordName(f->getType()) != "std::thread" && JoinsEach(loop, {"join"})) out.insert(f);
      }
    } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl()) {
      if (mc->getMethodDecl()->getNameAsString() == "join")
        if (const FieldDecl* f = MemberOfThis(mc->getImplicitObjectArgument());
            f && RecordName(f->getType()) == "std::thread")
          out.insert(f);
      const FunctionDecl* callee = nullptr;
      if (depth < 2 && isa<CXXThisExpr>(mc->getImplicitObjectArgument()->IgnoreParenImpCasts()) &&
          mc->getMethodDecl()->getParent() == rd && mc->getMethodDecl()->hasBody(callee) &&
          callee && seen.insert(callee).second)
        walk(callee->getBody(), depth + 1);
    } else if (const auto* call = dyn_cast<CallExpr>(s);
               call && call->getNumArgs() > 0 && CFunctionName(call) == "pthread_join") {
      if (const FieldDecl* f = MemberOfThis(call->getArg(0))) out.insert(f);
    } else if (const auto* del = dyn_cast<CXXDeleteExpr>(s)) {
      const CXXRecordDecl* deleted = del->getDestroyedType()->getAsCXXRecordDecl();
      const FunctionDecl* dtor = nullptr;
      if (deleted && deleted->hasDefinition() && deleted->getDefinition()->getDestructor() &&
          deleted->getDefinition()->getDestructor()->hasBody(dtor) &&
          !JoinedThrough(deleted->getDefinition(), dtor, classes).empty())
        out.insert(MemberBehind(del->getArgument(), loop_vars));
    }
    for (const Stmt* child : s->children()) walk(child, depth);
  };
  walk(def->getBody(), 0);
  classes->pop_back();
  return out;
}

bool DestructorJoinsMember(const CXXRecordDecl* rd) {
  const CXXDestructorDecl* dtor = rd->getDestructor();
  const FunctionDecl* def = nullptr;
  if (!dtor || !dtor->isUserProvided() || !dtor->hasBody(def) || !def) return false;
  std::vector<const CXXRecordDecl*> classes;
  return !JoinedThrough(rd, def, &classes).empty();
}

}  // namespace

std::set<const FieldDecl*> JoinedMembers(const CXXRecordDecl* rd, const FunctionDecl* def) {
  std::vector<const CXXRecordDecl*> classes;
  return JoinedThrough(rd, def, &classes);
}

bool JoinsOnDestruction(QualType t) {
  t = t.getNonReferenceType().getCanonicalType();
  if (const auto* array = dyn_cast<ConstantArrayType>(t.getTypePtr()))
    return JoinsOnDestruction(array->getElementType());
  const CXXRecordDecl* rd = t->getAsCXXRecordDecl();
  if (!rd) return false;
  const std::string name = QualifiedName(rd);
  if (name == "std::jthread") return true;
  if (const auto* spec = dyn_cast<ClassTemplateSpecializationDecl>(rd)) {
    const std::string tmpl = QualifiedName(spec->getSpecializedTemplate());
    if (IsStdContainer(tmpl))
      return spec->getTemplateArgs().size() > 0 &&
             spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
             JoinsOnDestruction(spec->getTemplateArgs()[0].getAsType());
  }
  if (name.rfind("std::", 0) == 0 || !rd->hasDefinition()) return false;
  return DestructorJoinsMember(rd->getDefinition());
}

namespace {

// The function a thread runs, from the callable given to its constructor
// (as declared: its definition may be elsewhere).
const FunctionDecl* Callable(const Expr* e, const CXXRecordDecl* rd) {
  e = e->IgnoreImplicit()->IgnoreParenImpCasts();
  if (const auto* mte = dyn_cast<MaterializeTemporaryExpr>(e))
    e = mte->getSubExpr()->IgnoreImplicit();
  if (const auto* lambda = dyn_cast<LambdaExpr>(e)) return lambda->getCallOperator();
  // std::bind(&Class::Method, this, ...): the method.
  if (const auto* bind = dyn_cast<CallExpr>(e->IgnoreImplicit());
      bind && bind->getDirectCallee() && bind->getNumArgs() > 0 &&
      QualifiedName(bind->getDirectCallee()) == "std::bind")
    return Callable(bind->getArg(0), rd);
  if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
    e = u->getSubExpr()->IgnoreParenImpCasts();
  if (const auto* ref = dyn_cast<DeclRefExpr>(e))
    if (const auto* m = dyn_cast<CXXMethodDecl>(ref->getDecl()); m && m->getParent() == rd)
      return m;  // its definition may be in another TU (an override's need not)
  return nullptr;
}

// A loop anywhere in s (not in a lambda).
bool ContainsLoop(const Stmt* s) {
  if (!s || isa<LambdaExpr>(s)) return false;
  if (IsLoop(s)) return true;
  for (const Stmt* c : s->children())
    if (ContainsLoop(c)) return true;
  return false;
}

// A thread handle member: a pthread_t, or an object with join() (std::thread,
// boost::thread, a project's own thread class).
bool IsThreadHandle(const Expr* arg) {
  const Expr* e = arg->IgnoreParenImpCasts();
  if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
    e = u->getSubExpr()->IgnoreParenImpCasts();
  const FieldDecl* f = MemberOfThis(e);
  if (!f) return false;
  QualType t = f->getType();
  // Through the project's own names for it (Stockfish's `typedef pthread_t NativeHandle`).
  while (const auto* td = t->getAs<TypedefType>()) {
    if (td->getDecl()->getName() == "pthread_t") return true;
    t = td->desugar();
  }
  const CXXRecordDecl* rd = t->getAsCXXRecordDecl();
  if (!rd || !rd->hasDefinition()) return false;
  for (const CXXMethodDecl* m : rd->getDefinition()->methods())
    if (m->getDeclName().isIdentifier() && m->getName() == "join") return true;
  return false;
}

// A thread started with a C start routine and `this` as its argument, into
// a thread handle member: pthread_create(&t_, nullptr, &C::Run, this), or a
// project's launcher of the same shape, seen or not (srt's
// `StartThread(m_RcvTsbPdThread, CUDT::tsbpd, this, name)`): a parameter that
// takes a function of one pointer, given the routine. A callback registered
// with `this` and no thread handle is not a start.
const Expr* RoutineGivenThis(const CallExpr* call) {
  const FunctionDecl* fn = call->getDirectCallee();
  if (!fn) return nullptr;
  bool given_this = false, given_handle = false;
  for (const Expr* arg : call->arguments()) {
    given_this |= isa<CXXThisExpr>(arg->IgnoreParenCasts());
    given_handle |= IsThreadHandle(arg);
  }
  if (!given_this || !given_handle) return nullptr;
  for (unsigned i = 0; i < call->getNumArgs() && i < fn->getNumParams(); ++i) {
    QualType t = fn->getParamDecl(i)->getType().getNonReferenceType();
    if (t->isPointerType()) t = t->getPointeeType();
    const auto* proto = t->getAs<FunctionProtoType>();
    if (proto && proto->getNumParams() == 1 && proto->getParamType(0)->isPointerType())
      return call->getArg(i);
  }
  return nullptr;
}

// The method a pthread start routine runs on its argument:
// `static void* Run(void* p) { static_cast<Worker*>(p)->Loop(); return nullptr; }`,
// or Stockfish's `long start_routine(Thread* th) { th->idle_loop(); return 0; }`.
const FunctionDecl* TrampolineTarget(const Expr* routine, const CXXRecordDecl* owner) {
  routine = routine->IgnoreParenCasts();
  if (const auto* u = dyn_cast<UnaryOperator>(routine); u && u->getOpcode() == UO_AddrOf)
    routine = u->getSubExpr()->IgnoreParenCasts();
  const auto* ref = dyn_cast<DeclRefExpr>(routine);
  const auto* fn = ref ? dyn_cast<FunctionDecl>(ref->getDecl()) : nullptr;
  const FunctionDecl* def = nullptr;
  if (!fn || !fn->hasBody(def) || !def || def->getNumParams() != 1) return nullptr;
  // A static method of the class that loops itself, through `self`
  // (`auto* self = static_cast<C*>(arg); while (!self->quit_) ...`: srt's
  // CUDT::tsbpd), is the entry: the methods it calls on self are its helpers.
  const auto* method = dyn_cast<CXXMethodDecl>(def);
  const bool own_static =
      method && method->isStatic() &&
      (method->getParent() == owner || owner->isDerivedFrom(method->getParent()));
  if (own_static && ContainsLoop(def->getBody())) return def;
  std::set<const VarDecl*> arg{def->getParamDecl(0)};  // the argument, and locals made from it
  auto is_arg = [&](const Expr* e) {
    const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenCasts());
    return r && arg.count(dyn_cast<VarDecl>(r->getDecl()));
  };
  const FunctionDecl* target = nullptr;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || target || isa<LambdaExpr>(s)) return;
    if (const auto* ds = dyn_cast<DeclStmt>(s); ds && ds->isSingleDecl())
      if (const auto* v = dyn_cast<VarDecl>(ds->getSingleDecl());
          v && v->getInit() && is_arg(v->getInit()))
        arg.insert(v);
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
        mc && mc->getMethodDecl() && is_arg(mc->getImplicitObjectArgument())) {
      const CXXRecordDecl* parent = mc->getMethodDecl()->getParent();
      if (parent == owner || owner->isDerivedFrom(parent)) target = mc->getMethodDecl();
      return;
    }
    for (const Stmt* child : s->children()) walk(child);
  };
  walk(def->getBody());
  // A static method that calls nothing on its argument does the work itself.
  if (!target && own_static) target = def;
  return target;
}

// The functions the threads started in owner's methods run: the callable
// given to a std::thread (or a container of them), or the method a
// pthread_create start routine calls on `this`.
void EntriesStartedIn(const CXXRecordDecl* owner, const ApiModel& model,
                      const std::function<void(const FunctionDecl*)>& found) {
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    const FunctionDecl* entry = nullptr;
    if (const auto* ce = dyn_cast<CXXConstructExpr>(s);
        ce && ce->getNumArgs() > 0 && !ce->getConstructor()->isCopyOrMoveConstructor() &&
        (RecordName(ce->getType()) == "std::thread" || JoinsOnDestruction(ce->getType()))) {
      entry = Callable(ce->getArg(0), owner);
    } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s);
               mc && mc->getNumArgs() > 0 && mc->getMethodDecl() &&
               (mc->getMethodDecl()->getNameAsString() == "emplace_back" ||
                mc->getMethodDecl()->getNameAsString() == "emplace") &&
               (ContainerOfThreads(mc->getImplicitObjectArgument()->getType(), model) ||
                PointerToThread(mc->getImplicitObjectArgument()->getType(), model) ||
                JoinsOnDestruction(mc->getImplicitObjectArgument()->getType()))) {
      entry = Callable(mc->getArg(0), owner);
    } else if (const auto* call = dyn_cast<CallExpr>(s); call && !isa<CXXMemberCallExpr>(call)) {
      if (const Expr* routine = RoutineGivenThis(call)) entry = TrampolineTarget(routine, owner);
    }
    if (entry) found(entry);
    for (const Stmt* child : s->children()) walk(child);
  };
  for (const CXXMethodDecl* m : owner->methods()) {
    const FunctionDecl* def = nullptr;
    if (!m->hasBody(def) || !def) continue;
    if (const auto* ctor = dyn_cast<CXXConstructorDecl>(def))
      for (const CXXCtorInitializer* init : ctor->inits())
        if (init->isWritten()) walk(init->getInit());
    walk(def->getBody());
  }
}

}  // namespace

std::vector<const FunctionDecl*> ThreadEntries(const CXXRecordDecl* rd, const ApiModel& model) {
  std::vector<const FunctionDecl*> out;
  std::set<const FunctionDecl*> seen;
  auto add = [&](const FunctionDecl* entry) {
    const FunctionDecl* def = nullptr;
    if (entry && entry->hasBody(def) && def && def->getBody() && seen.insert(def).second)
      out.push_back(def);
  };
  EntriesStartedIn(rd, model, add);
  // A base that starts its thread on a virtual method runs the class's
  // override of it (Stockfish's Thread() starts idle_loop, which TimerThread
  // overrides).
  rd->forallBases([&](const CXXRecordDecl* base) {
    EntriesStartedIn(base, model, [&](const FunctionDecl* entry) {
      const auto* method = dyn_cast<CXXMethodDecl>(entry);
      if (!method || !method->isVirtual()) return;
      const CXXMethodDecl* over = method->getCorrespondingMethodInClass(rd, false);
      if (over && over->getParent() == rd) add(over);
    });
    return true;
  });
  return out;
}

}  // namespace tether::check
