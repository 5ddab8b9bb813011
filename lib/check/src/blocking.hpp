// What blocks: the model's blocking primitives, the loops that cannot run for
// ever, and the may-block summary of a TU's functions (a function blocks when
// it calls, without passing a context, a primitive or a function that blocks).
// task-ignores-context and loop-without-context ask it; the facts carry each
// function's own primitive to phase 2 (ResolveBlockCandidates, each of the two
// checks' Finish), so a chain can cross TUs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "clang_pch.hpp"
#include "tether/check/facts.hpp"
#include "tether/check/model.hpp"

namespace tether::check {

// The call blocks and passes no context: a model-listed blocking call, or a
// function with a context-taking sibling. *why says which (for a note). A
// primitive given a non-blocking flag (an argument spelled with NONBLOCK or
// WNOHANG, or a descriptor made with one in the same function) does not block.
bool IsBlockingCall(const clang::CallExpr* call, const ApiModel& m, std::string* why);
// "::read", "std::condition_variable::wait": as a chain shows the callee.
std::string ChainName(const clang::FunctionDecl* fn);
// A loop that cannot run forever: a range-for, a constant false condition, or
// a counter (modified in the loop) compared to an integer constant.
bool IsBoundedLoop(const clang::Stmt* loop, clang::ASTContext& ast);
bool IsLoop(const clang::Stmt* s);

// How many calls deep phase 2 follows a chain into other TUs.
inline constexpr unsigned kMaxBlockingDepth = 4;

// Phase 2 of the may-block summary, the Finish of the checks that record
// block candidates: check's candidates whose callee reaches, through calls
// that pass no context and within max_depth calls, a function whose own body
// blocks. Each becomes its finding, the chain added to its last note and a
// note at the primitive. Another check's candidates are that check's to
// resolve, so a disabled check reports none.
std::vector<Finding> ResolveBlockCandidates(const Facts& facts, const std::string& check,
                                            unsigned max_depth);

// Where something blocks, down to the primitive.
struct BlockingPath {
  const clang::Stmt* at = nullptr;         // the call (or loop) in the searched code
  const clang::Stmt* primitive = nullptr;  // the blocking call at the end of the chain
  std::string why;                         // "'::read' blocks without a context"
  std::vector<std::string> chain;          // "StdCopy", "ReadSome", "::read" (empty: at is it)
  bool loop = false;                       // at is a loop without a bound
  std::string Chain() const;               // "StdCopy -> ReadSome -> ::read"
};

// A call, without a context, of a function whose body is in no analysed part
// of this TU: whether it blocks is for the facts of its own TU to say.
struct ExternalCall {
  const clang::CallExpr* at = nullptr;  // the call in the searched code that leads there
  const clang::FunctionDecl* callee = nullptr;
};

// The may-block summary of one TU's functions, computed on demand and kept.
class MayBlock {
 public:
  MayBlock(const ApiModel& m, clang::ASTContext& ast) : m_(m), ast_(ast) {}
  // The first place in s that blocks: a blocking call, a call of a function
  // that blocks (through any number of same-TU calls that pass no context),
  // or, with loops, a loop without a bound in s itself. Nested lambdas are
  // other tasks and are not entered. Calls into bodies not in the TU are
  // added to *external (when given) for the cross-TU facts.
  bool Find(const clang::Stmt* s, bool loops, BlockingPath* out,
            std::vector<ExternalCall>* external);
  // Calling fn's definition blocks (null: not as far as this TU can tell).
  const BlockingPath* Function(const clang::FunctionDecl* def);

 private:
  struct Entry {
    bool blocks = false;
    BlockingPath path;
    std::vector<const clang::FunctionDecl*> external;
  };
  bool FindIn(const clang::Stmt* s, bool loops, BlockingPath* out,
              std::vector<ExternalCall>* external);
  const Entry& Summarise(const clang::FunctionDecl* def);

  const ApiModel& m_;
  clang::ASTContext& ast_;
  std::map<const clang::FunctionDecl*, Entry>
      memo_;  // an entry in progress reads as "does not block"
};

}  // namespace tether::check
