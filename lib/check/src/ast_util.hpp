// What the checks ask about the AST, in the model's vocabulary: is this a
// context, a root, a group; which contexts can this function reach.
#pragma once

#include <string>
#include <vector>

#include "clang_pch.hpp"
#include "tether/check/model.hpp"

namespace tether::check {

std::string QualifiedName(const clang::NamedDecl* d);
// "exec", "Client::Run", "exec::<lambda@42>" — for messages and the graph.
std::string DisplayName(const clang::FunctionDecl* fn);
// The qualified name of the record behind t (references, cv and typedefs removed).
std::string RecordName(clang::QualType t);

bool IsContextType(clang::QualType t, const ApiModel& m);
bool IsCancelType(clang::QualType t, const ApiModel& m);
const TaskGroupModel* GroupOf(clang::QualType t, const ApiModel& m);
bool HasParamOfContextType(const clang::FunctionDecl* fn, const ApiModel& m);
bool ReturnsContext(const clang::FunctionDecl* fn, const ApiModel& m);

// A root context expression: a call to a root factory, or (if the model says
// so) an explicitly default-constructed context temporary. Returns the name
// to show ("tether::Background", "tether::Context{}") or "".
std::string RootName(const clang::Expr* e, const ApiModel& m);

// A context the function can name: spelling is what a fix-it would write.
struct ReachableContext {
  std::string spelling;         // "ctx", "ctx_", "req.ctx", "c->Context()"
  clang::SourceLocation where;  // its declaration
  std::string how;              // "parameter", "captured variable", "member", "carried by"
  clang::QualType type;         // the context's type (messages speak its API's words)
};
std::vector<ReachableContext> ReachableContexts(const clang::FunctionDecl* fn, const ApiModel& m);

// Messages speak the code's own API: a context of a std type
// (std::stop_token) gets std's words, any other the libtether words.
bool IsStdContext(clang::QualType t);
// "read ctx.Err()" or "check st.stop_requested()".
std::string HowToReadContext(const std::string& spelling, clang::QualType t);

// main, a GoogleTest body, or a factory (returns a context): roots are fine.
bool MayCreateRoots(const clang::FunctionDecl* fn, const ApiModel& m);

// The call cannot be resolved statically (virtual dispatch, pointer, std::function).
bool IsUnresolvableCall(const clang::CallExpr* call);

std::string Usr(const clang::Decl* d);
// The function as written: for a member of a class template specialization
// or a function template specialization, the template's own declaration (one
// id for every instantiation, the same as the definition's in another TU).
const clang::FunctionDecl* WrittenFunction(const clang::FunctionDecl* fn);

// fn is (or is inside) an instantiation of a template: the checks that walk
// bodies analyse the template's definition instead, once.
bool InTemplateInstantiation(const clang::FunctionDecl* fn);

// ---- Reading and passing contexts (blocking.hpp has what blocks)

// "std::basic_istream::read": the qualified name without template arguments
// or inline namespaces, as model name patterns are written.
std::string PlainQualifiedName(const clang::NamedDecl* d);
// An overload of callee, or callee + a model sibling suffix, in the same scope
// that takes a context; null if none.
const clang::FunctionDecl* FindContextSibling(const clang::FunctionDecl* callee, const ApiModel& m);
// s names a context: a variable, member or accessor of a context type (not a
// root factory). Up to depth levels into methods called on the same object
// (with an implicit or explicit this), a member context read there counts too.
bool ReadsContext(const clang::Stmt* s, const ApiModel& m, unsigned depth = 2);
// An argument or the object of call reads a context.
bool PassesContext(const clang::CallExpr* call, const ApiModel& m);

// ---- Classes that own threads

// The model has a thread type (a spawn_on_construct group: std::thread).
bool ModelsThreads(const ApiModel& m);
// The member of this that e names (`t_`, `this->t_`, `p_->` through a smart
// pointer's operator->), or null. In a C-style thread entry the object is
// `self`, a local cast from the entry's `void*` argument (`static void*
// Run(void* arg) { auto* self = static_cast<C*>(arg); self->stop_ ... }`):
// its members are the object's too.
const clang::FieldDecl* MemberOfThis(const clang::Expr* e);
bool IsSelfPointer(const clang::Expr* e);
// The name of the C function (not a method) a call names directly:
// "pthread_join" for pthread_join(t_, nullptr); empty otherwise.
llvm::StringRef CFunctionName(const clang::CallExpr* call);
// A class the checks of classes look at: written in the project (not a
// lambda, not in a system header), as written for a template (not each
// implicit instantiation).
bool IsClassAsWritten(const clang::CXXRecordDecl* rd, const clang::SourceManager& sm);

// What a type or a name is to synchronisation (the stop-flag and member
// thread checks).
// bool, or std::atomic<bool>.
bool IsFlagType(clang::QualType t);
// A type with lock() and unlock(): std::mutex, a unique_lock, a project's
// own mutex wrapper.
bool IsLockable(clang::QualType t);
// A class whose constructor unlocks and whose destructor locks again (srt's
// InvertedLock): the mutex it is given is free for its scope.
bool IsRaiiUnlocker(const clang::CXXRecordDecl* rd);
// `std::unique_lock<std::mutex> lk(mu, std::defer_lock)` does not lock.
bool DefersLock(const clang::CXXConstructExpr* guard);
// fn's body notifies its parameter at index (`c.notify_all()`), or takes it
// (a guard made of it, `m.lock()`): srt's `CSync::lock_notify_one(cond, m)`.
bool NotifiesParameter(const clang::FunctionDecl* fn, unsigned index);
bool LocksParameter(const clang::FunctionDecl* fn, unsigned index);
// std's and boost's condition variables, and a project's own: a class whose
// wait takes a lockable (the mutex it releases while it sleeps, which an
// event or a semaphore does not take) and that has a notify (Stockfish's
// `struct ConditionVariable { void wait(Mutex&); void notify_one(); }` over
// pthread_cond_t).
bool IsConditionVariable(clang::QualType t);
bool IsNotifyName(llvm::StringRef name);
bool IsWaitName(llvm::StringRef name);
// A timeout that may be no bound at all: a branch of it is INT_MAX or more
// (`wait_for(m, ms ? ms : INT_MAX)`), or a chrono max().
bool MayBeUnbounded(const clang::Expr* timeout, clang::ASTContext& ast);
// The lambda a wait's predicate argument holds (before C++17 a copy of it).
const clang::LambdaExpr* PredicateLambda(const clang::Expr* e);
}  // namespace tether::check
