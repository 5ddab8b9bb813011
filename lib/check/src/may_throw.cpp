// The may-throw summary of may_throw.hpp.
#include "may_throw.hpp"

#include "ast_util.hpp"

namespace tether::check {

using namespace clang;

namespace {

bool IsNoexcept(const FunctionDecl* fn) {
  const auto* proto = fn->getType()->getAs<FunctionProtoType>();
  return proto && proto->isNothrow();
}

}  // namespace

// Library calls documented to throw on their ordinary failure paths (not
// std::bad_alloc, which every allocation shares and no project handles
// around a thread's start). Matched on the name without template arguments.
bool ThrowSummary::KnownThrowing(const FunctionDecl* fn) const {
  static const char* const kNames[] = {
      "std::stoi",
      "std::stol",
      "std::stoll",
      "std::stoul",
      "std::stoull",
      "std::stof",
      "std::stod",
      "std::stold",
      "std::any_cast",
      "std::rethrow_exception",
      "std::future::get",
      "std::shared_future::get",
      "std::optional::value",
      "std::basic_regex::basic_regex",
      "std::function::operator()",
      "std::vector::at",
      "std::basic_string::at",
      "std::map::at",
      "std::unordered_map::at",
      "std::deque::at",
      "std::array::at",
      "std::bitset::to_ulong",
      "std::promise::set_value",
      "std::promise::get_future",
      "std::locale::locale",
  };
  std::string q = PlainQualifiedName(fn);
  for (const char* n : kNames)
    if (q == n) return true;
  // std::filesystem's overloads without a std::error_code report by throwing.
  if (q.rfind("std::filesystem::", 0) == 0) {
    for (const ParmVarDecl* p : fn->parameters())
      if (RecordName(p->getType()) == "std::error_code") return false;
    return !isa<CXXMethodDecl>(fn) || q.find("::path::") == std::string::npos;
  }
  if (!thread_starts_) return false;
  if (q == "std::thread::thread") return !cast<CXXConstructorDecl>(fn)->isCopyOrMoveConstructor();
  // A thread started into a container (emplace_back/push_back/emplace of a
  // std::thread element) throws std::system_error when no thread can be made.
  if (const auto* md = dyn_cast<CXXMethodDecl>(fn)) {
    std::string name = md->getNameAsString();
    if (name == "emplace_back" || name == "emplace" || name == "emplace_front") {
      if (const auto* spec = dyn_cast<ClassTemplateSpecializationDecl>(md->getParent());
          spec && spec->getTemplateArgs().size() > 0 &&
          spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
          RecordName(spec->getTemplateArgs()[0].getAsType()) == "std::thread")
        return true;
    }
  }
  return false;
}

bool InsideTry(ASTContext& ctx, const Stmt* s) {
  DynTypedNodeList parents = ctx.getParents(*s);
  const Stmt* child = s;
  while (!parents.empty()) {
    if (parents[0].get<FunctionDecl>() || parents[0].get<LambdaExpr>()) return false;
    if (const auto* t = parents[0].get<CXXTryStmt>(); t && t->getTryBlock() == child) return true;
    child = parents[0].get<Stmt>();
    if (!child) return false;
    parents = ctx.getParents(parents[0]);
  }
  return false;
}

bool ThrowSummary::BodyMayThrow(const Stmt* s, unsigned depth) {
  if (!s || isa<LambdaExpr>(s)) return false;
  if (const auto* t = dyn_cast<CXXTryStmt>(s)) {
    // What the try block throws is handled; a handler may throw again.
    for (unsigned i = 0; i < t->getNumHandlers(); ++i)
      if (BodyMayThrow(t->getHandler(i)->getHandlerBlock(), depth)) return true;
    return false;
  }
  if (const auto* th = dyn_cast<CXXThrowExpr>(s)) return th->getSubExpr() != nullptr;
  if (isa<CallExpr, CXXConstructExpr>(s) && MayThrow(cast<Expr>(s)) && depth < 4) return true;
  for (const Stmt* child : s->children())
    if (BodyMayThrow(child, depth)) return true;
  return false;
}

bool ThrowSummary::FunctionMayThrow(const FunctionDecl* fn, unsigned depth) {
  if (!fn) return false;
  fn = fn->getCanonicalDecl();
  if (IsNoexcept(fn) || isa<CXXDestructorDecl>(fn)) return false;
  if (KnownThrowing(fn)) return true;
  auto it = memo_.find(fn);
  if (it != memo_.end()) return it->second;
  memo_[fn] = false;  // a recursive call adds nothing
  const FunctionDecl* def = nullptr;
  bool result = false;
  if (depth < 4 && fn->hasBody(def) && def && !sm_.isInSystemHeader(def->getLocation()))
    result = BodyMayThrow(def->getBody(), depth + 1);
  return memo_[fn] = result;
}

bool ThrowSummary::MayThrow(const Expr* call, std::string* why) {
  const FunctionDecl* fn = nullptr;
  if (const auto* c = dyn_cast<CallExpr>(call)) {
    fn = c->getDirectCallee();
  } else if (const auto* c = dyn_cast<CXXConstructExpr>(call)) {
    fn = c->getConstructor();
  }
  if (!fn || !FunctionMayThrow(fn)) return false;
  if (why) {
    std::string name = isa<CXXConstructorDecl>(fn) ? RecordName(call->getType()) : DisplayName(fn);
    *why = "'" + name + "' may throw";
  }
  return true;
}

}  // namespace tether::check
