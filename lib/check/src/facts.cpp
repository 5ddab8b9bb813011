// The facts' serialization for the result cache, their merge, and what is
// read from every TU's facts besides the checks' own phase 2: the function a
// finding is in and the static context-flow graph.
#include "tether/check/facts.hpp"

#include <nlohmann/json.hpp>

namespace tether::check {

// ---- Serialization for the result cache -----------------------------------
// Each struct is unpacked with a structured binding: adding a field to it
// breaks the build here until the field is written and read (and
// kFactsSchema is bumped).

// Reads a JSON array into the fields, in order (j.at throws when it is short).
template <typename... Fields>
void ReadArray(const nlohmann::json& j, Fields&... fields) {
  std::size_t i = 0;
  (j.at(i++).get_to(fields), ...);
}

void to_json(nlohmann::json& j, const Replacement& r) {
  const auto& [file, offset, length, text] = r;
  j = {file, offset, length, text};
}
void from_json(const nlohmann::json& j, Replacement& r) {
  auto& [file, offset, length, text] = r;
  ReadArray(j, file, offset, length, text);
}
void to_json(nlohmann::json& j, const Note& n) {
  const auto& [file, line, col, message, line_text] = n;
  j = {file, line, col, message, line_text};
}
void from_json(const nlohmann::json& j, Note& n) {
  auto& [file, line, col, message, line_text] = n;
  ReadArray(j, file, line, col, message, line_text);
}
void to_json(nlohmann::json& j, const Finding& f) {
  const auto& [check, file, line, col, offset, message, line_text, function, notes, fixes,
               fingerprint] = f;
  j = {check, file, line, col, offset, message, line_text, function, notes, fixes, fingerprint};
}
void from_json(const nlohmann::json& j, Finding& f) {
  auto& [check, file, line, col, offset, message, line_text, function, notes, fixes, fingerprint] =
      f;
  ReadArray(j, check, file, line, col, offset, message, line_text, function, notes, fixes,
            fingerprint);
}
void to_json(nlohmann::json& j, const RootSite& r) {
  const auto& [file, line, col, call, justified] = r;
  j = {file, line, col, call, justified};
}
void from_json(const nlohmann::json& j, RootSite& r) {
  auto& [file, line, col, call, justified] = r;
  ReadArray(j, file, line, col, call, justified);
}
void to_json(nlohmann::json& j, const CallFact& c) {
  const auto& [to, to_name, file, line, passes_context] = c;
  j = {to, to_name, file, line, passes_context};
}
void from_json(const nlohmann::json& j, CallFact& c) {
  auto& [to, to_name, file, line, passes_context] = c;
  ReadArray(j, to, to_name, file, line, passes_context);
}
void to_json(nlohmann::json& j, const FunctionFact& f) {
  const auto& [id, name, qualified_name, file, line, end_line, receives_context, takes_context,
               returns_context, entry_point, creates_roots, calls, blocks, blocks_file, blocks_line,
               blocks_col] = f;
  j = {id,
       name,
       qualified_name,
       file,
       line,
       end_line,
       receives_context,
       takes_context,
       returns_context,
       entry_point,
       creates_roots,
       calls,
       blocks,
       blocks_file,
       blocks_line,
       blocks_col};
}
void from_json(const nlohmann::json& j, FunctionFact& f) {
  auto& [id, name, qualified_name, file, line, end_line, receives_context, takes_context,
         returns_context, entry_point, creates_roots, calls, blocks, blocks_file, blocks_line,
         blocks_col] = f;
  ReadArray(j, id, name, qualified_name, file, line, end_line, receives_context, takes_context,
            returns_context, entry_point, creates_roots, calls, blocks, blocks_file, blocks_line,
            blocks_col);
}
void to_json(nlohmann::json& j, const BlockCandidate& c) {
  const auto& [finding, callee_id, callee_name] = c;
  j = {finding, callee_id, callee_name};
}
void from_json(const nlohmann::json& j, BlockCandidate& c) {
  auto& [finding, callee_id, callee_name] = c;
  ReadArray(j, finding, callee_id, callee_name);
}
void to_json(nlohmann::json& j, const ForwardCandidate& c) {
  const auto& [finding, callee_id, callee_name, context_name, caller_has_own_context] = c;
  j = {finding, callee_id, callee_name, context_name, caller_has_own_context};
}
void from_json(const nlohmann::json& j, ForwardCandidate& c) {
  auto& [finding, callee_id, callee_name, context_name, caller_has_own_context] = c;
  ReadArray(j, finding, callee_id, callee_name, context_name, caller_has_own_context);
}

std::string FactsToJson(const Facts& facts, const std::vector<Finding>& findings) {
  const auto& [functions, candidates, block_candidates] = facts;
  nlohmann::json fns = nlohmann::json::array();
  for (const auto& [key, f] : functions) fns.push_back({key, f});
  nlohmann::json doc = {{"schema", kFactsSchema},
                        {"functions", fns},
                        {"candidates", candidates},
                        {"block_candidates", block_candidates},
                        {"findings", findings}};
  return doc.dump();
}

bool FactsFromJson(std::string_view text, Facts* facts, std::vector<Finding>* findings,
                   std::string* error) {
  try {
    nlohmann::json doc = nlohmann::json::parse(text);
    if (doc.at("schema").get<int>() != kFactsSchema) {
      *error = "schema " + doc.at("schema").dump() + ", expected " + std::to_string(kFactsSchema);
      return false;
    }
    Facts out;
    for (const auto& item : doc.at("functions"))
      out.functions.emplace(item.at(0).get<std::string>(), item.at(1).get<FunctionFact>());
    doc.at("candidates").get_to(out.candidates);
    doc.at("block_candidates").get_to(out.block_candidates);
    std::vector<Finding> found;
    doc.at("findings").get_to(found);
    *facts = std::move(out);
    *findings = std::move(found);
    return true;
  } catch (const nlohmann::json::exception& e) {
    *error = e.what();
    return false;
  }
}

void Facts::Merge(Facts&& other) {
  for (auto& [id, f] : other.functions) functions.emplace(id, std::move(f));
  for (auto& c : other.candidates) candidates.push_back(std::move(c));
  for (auto& c : other.block_candidates) block_candidates.push_back(std::move(c));
}

void AttributeFindings(const Facts& facts, std::vector<Finding>* findings) {
  for (Finding& f : *findings) {
    if (!f.function.empty()) continue;
    const FunctionFact* best = nullptr;
    for (const auto& [id, fn] : facts.functions)
      if (fn.file == f.file && fn.line <= f.line && f.line <= fn.end_line &&
          (!best || fn.line >= best->line))
        best = &fn;
    if (best) f.function = best->qualified_name;
  }
}

std::string StaticGraphJson(const Facts& facts, const std::vector<Finding>& findings) {
  using nlohmann::json;
  json functions = json::array();
  json calls = json::array();
  for (const auto& [id, f] : facts.functions) {
    json roots = json::array();
    for (const RootSite& r : f.creates_roots)
      roots.push_back(
          {{"file", r.file}, {"line", r.line}, {"call", r.call}, {"justified", r.justified}});
    functions.push_back({{"id", id},
                         {"name", f.name},
                         {"qualified_name", f.qualified_name},
                         {"file", f.file},
                         {"line", f.line},
                         {"receives_context", f.receives_context},
                         {"returns_context", f.returns_context},
                         {"creates_roots", roots}});
    for (const CallFact& c : f.calls) {
      if (!facts.functions.count(c.to)) continue;  // only edges between analysed functions
      calls.push_back({{"from", id},
                       {"to", c.to},
                       {"file", c.file},
                       {"line", c.line},
                       {"passes_context", c.passes_context}});
    }
  }
  json found = json::array();
  for (const Finding& f : findings)
    found.push_back({{"check", f.check},
                     {"file", f.file},
                     {"line", f.line},
                     {"col", f.col},
                     {"message", f.message},
                     {"function", f.function}});
  json doc = {
      {"tether_static_graph", 1}, {"functions", functions}, {"calls", calls}, {"findings", found}};
  return doc.dump(2) + "\n";
}

}  // namespace tether::check
