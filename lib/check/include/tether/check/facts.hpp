// Per-function facts gathered from every translation unit (phase 1), and the
// candidates the checks leave to be decided from them once all TUs are seen
// (phase 2, each check's Finish): "the callee takes no context but creates a
// root itself, or calls something that does" (tether-context-not-forwarded),
// "the task or loop calls a function of another TU that blocks" (the
// may-block summary: task-ignores-context, loop-without-context).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tether/check/finding.hpp"

namespace tether::check {

// Every struct here (and Finding, Note, Replacement in finding.hpp) is
// serialized completely for the result cache by FactsToJson/FactsFromJson
// (facts.cpp). Each (de)serializer unpacks its struct with a structured
// binding, so a new field does not compile until it is serialized too; then
// bump kFactsSchema (it is part of every cache key).
inline constexpr int kFactsSchema = 2;

struct RootSite {
  std::string file;
  unsigned line = 0, col = 0;
  std::string call;  // "tether::Background"
  bool justified = false;
};

struct CallFact {
  std::string to;       // the callee's id (USR)
  std::string to_name;  // qualified name
  std::string file;
  unsigned line = 0;
  bool passes_context = false;
};

struct FunctionFact {
  std::string id;  // USR: the same in every TU
  std::string name, qualified_name, file;
  unsigned line = 0, end_line = 0;
  bool receives_context = false;  // has a reachable context (param, capture, member, carrier)
  // ...one that its caller gives it (param, capture, carrier), not only a
  // member: a function that holds its context in a member (ctx_) and makes a
  // root still drops the context of whoever called it.
  bool takes_context = false;
  bool returns_context = false;  // a factory, main or a test body: may create roots
  bool entry_point = false;      // main or a test body: never on a chain
  std::vector<RootSite> creates_roots;
  std::vector<CallFact> calls;
  // The may-block summary's leaf: the first call in the body (not in a nested
  // lambda) that blocks without a context ("::read"), or "" when none.
  std::string blocks;
  std::string blocks_file;
  unsigned blocks_line = 0, blocks_col = 0;
};

// A call from a function that has a context to a callee that takes none.
// It becomes a finding only if the callee (transitively) creates a root.
struct ForwardCandidate {
  Finding finding;  // location, message prefix, enclosing function
  std::string callee_id;
  std::string callee_name;
  std::string context_name;  // the context the caller could pass
  // The caller is a method of the callee's class and has a context of its own
  // (a parameter, a capture, a carrier), not only the member it shares with
  // the callee: a callee whose only
  // context is its member still drops the caller's narrower one (the seed's
  // `w.exec(id)` that became `w.exec(gctx, id)`).
  bool caller_has_own_context = false;
};

// A task or loop that blocks only if a function defined in another TU does
// (task-ignores-context, loop-without-context). It becomes a finding when
// the callee reaches, through calls that pass no context, a function whose
// body blocks; the chain is added to the finding's last note.
struct BlockCandidate {
  Finding finding;        // complete, its last note at the call that leads there
  std::string callee_id;  // the callee's id (USR)
  std::string callee_name;
};

struct Facts {
  std::map<std::string, FunctionFact> functions;  // by id
  std::vector<ForwardCandidate> candidates;
  std::vector<BlockCandidate> block_candidates;
  void Merge(Facts&& other);
};

// The cache's form of one TU's facts and findings (JSON text). FromJson
// returns false, with *error set, on anything it does not fully understand.
std::string FactsToJson(const Facts& facts, const std::vector<Finding>& findings);
bool FactsFromJson(std::string_view json_text, Facts* facts, std::vector<Finding>* findings,
                   std::string* error);

// Sets Finding::function, where empty, to the innermost analysed function
// whose body spans the finding.
void AttributeFindings(const Facts& facts, std::vector<Finding>* findings);

// The static context-flow graph (docs/static-graph-format.md).
std::string StaticGraphJson(const Facts& facts, const std::vector<Finding>& findings);

}  // namespace tether::check
