// Input detection, the static-graph loader (with positions in every error)
// and LoadScopeGraph.
#include "tether/graph/input.hpp"

#include <cstring>
#include <optional>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/io/json.hpp"
#include "tether/io/read_file.hpp"
#include "tether/trace/model.hpp"

namespace tether::graph {

using nlohmann::json;

namespace {

Error Bad(const std::string& path, const std::string& text, std::size_t offset,
          const std::string& what) {
  return Error(ErrorCode::kInvalidArgument,
               path + ":" + io::LineColumnAt(text, offset) + ": error: " + what);
}

// Finds where a value sits in already-validated JSON text, so that errors
// found after parsing (a missing field, a wrong type) still name a line and
// column. A path step is an object key or, inside an array, a decimal index.
class JsonLocator {
 public:
  explicit JsonLocator(const std::string& text) : t_(text) {}

  std::size_t Locate(const std::vector<std::string>& path) const {
    std::size_t i = Ws(0);
    for (const std::string& step : path) {
      if (i >= t_.size()) return i;
      std::size_t found = std::string::npos;
      if (t_[i] == '{') {
        std::size_t j = Ws(i + 1);
        while (j < t_.size() && t_[j] == '"') {
          std::size_t key_end = SkipString(j);
          std::string key = t_.substr(j + 1, key_end - j - 2);
          j = Ws(Ws(key_end) + 1);  // past ':'
          if (key == step) {
            found = j;
            break;
          }
          j = Ws(SkipValue(j));
          if (j < t_.size() && t_[j] == ',') j = Ws(j + 1);
        }
      } else if (t_[i] == '[') {
        std::size_t want = std::strtoul(step.c_str(), nullptr, 10);
        std::size_t j = Ws(i + 1);
        for (std::size_t k = 0; j < t_.size() && t_[j] != ']'; ++k) {
          if (k == want) {
            found = j;
            break;
          }
          j = Ws(SkipValue(j));
          if (j < t_.size() && t_[j] == ',') j = Ws(j + 1);
        }
      }
      if (found == std::string::npos) return i;  // the container: best we can do
      i = found;
    }
    return i;
  }

 private:
  std::size_t Ws(std::size_t i) const {
    while (i < t_.size() && std::strchr(" \t\r\n", t_[i]) != nullptr && t_[i] != '\0') ++i;
    return i;
  }
  std::size_t SkipString(std::size_t i) const {  // i at the opening quote
    for (++i; i < t_.size(); ++i) {
      if (t_[i] == '\\') {
        ++i;
      } else if (t_[i] == '"') {
        return i + 1;
      }
    }
    return i;
  }
  std::size_t SkipValue(std::size_t i) const {
    if (i >= t_.size()) return i;
    if (t_[i] == '"') return SkipString(i);
    if (t_[i] == '{' || t_[i] == '[') {
      int depth = 0;
      for (; i < t_.size(); ++i) {
        char c = t_[i];
        if (c == '"') {
          i = SkipString(i) - 1;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
          return i + 1;
        }
      }
      return i;
    }
    while (i < t_.size() && std::strchr(",]} \t\r\n", t_[i]) == nullptr) ++i;
    return i;
  }

  const std::string& t_;
};

// Typed field access for one object of the static graph, reporting
// "path:line:col: <where>: problem" on the first error.
class FieldReader {
 public:
  FieldReader(const std::string& path, const std::string& text, const JsonLocator& loc)
      : path_(path), text_(text), loc_(loc) {}

  Error Fail(const std::vector<std::string>& where, const std::string& problem) const {
    return Bad(path_, text_, loc_.Locate(where), Describe(where) + ": " + problem);
  }

  // An id: a string or an integer, kept as text.
  Error Id(const json& obj, std::vector<std::string> where, const char* key,
           std::string* out) const {
    where.push_back(key);
    auto it = obj.find(key);
    if (it == obj.end()) return Missing(where);
    if (it->is_string()) {
      *out = it->get<std::string>();
    } else if (it->is_number_integer()) {
      *out = std::to_string(it->get<std::int64_t>());
    } else {
      return Fail(where, "expected a string or an integer id");
    }
    return {};
  }
  // A typed field: std::string, int or bool; absent is fine unless required.
  template <typename T>
  Error Field(const json& obj, std::vector<std::string> where, const char* key, T* out,
              bool required) const {
    where.push_back(key);
    auto it = obj.find(key);
    if (it == obj.end()) return required ? Missing(where) : Error();
    if constexpr (std::is_same_v<T, std::string>) {
      if (!it->is_string()) return Fail(where, "expected a string");
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!it->is_boolean()) return Fail(where, "expected true or false");
    } else {
      if (!it->is_number_integer()) return Fail(where, "expected an integer");
    }
    *out = it->get<T>();
    return {};
  }

 private:
  Error Missing(std::vector<std::string> where) const {
    std::string key = where.back();
    where.pop_back();
    return Fail(where, "missing required field \"" + key + "\"");
  }
  // ["functions","2","line"] -> functions[2].line
  static std::string Describe(const std::vector<std::string>& where) {
    std::string s;
    for (const std::string& step : where) {
      if (!step.empty() && std::isdigit(static_cast<unsigned char>(step[0]))) {
        s += "[" + step + "]";
      } else {
        s += (s.empty() ? "" : ".") + step;
      }
    }
    return s.empty() ? "static graph" : s;
  }

  const std::string& path_;
  const std::string& text_;
  const JsonLocator& loc_;
};

#define TETHER_TRY(expr)                        \
  do {                                          \
    if (Error e_ = (expr); !e_.ok()) return e_; \
  } while (0)

}  // namespace

Error ReadInput(const std::string& path, std::string* out) {
  if (std::optional<io::ReadError> err = io::ReadInputFile(path, out)) {
    return Error(ErrorCode::kIo, err->ToString());
  }
  return {};
}

namespace {}  // namespace

Error DetectInput(const std::string& path, const std::string& text, InputKind* kind) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) {
    return Bad(path, text, text.size(), "empty input: expected a trace or a static graph");
  }
  if (text[first] != '{') {
    return Bad(path, text, first,
               "expected a JSON object (a trace's header line or a static graph)");
  }
  std::size_t eol = text.find('\n', first);
  json head =
      json::parse(text.substr(first, eol == std::string::npos ? std::string::npos : eol - first),
                  nullptr, /*allow_exceptions=*/false);
  if (head.is_object() && head.contains("ev")) {
    *kind = InputKind::kTrace;
  } else if (head.is_object() && !head.contains("tether_static_graph")) {
    return Bad(path, text, first,
               "neither a trace (the first record has no \"ev\") nor a static graph "
               "(no \"tether_static_graph\")");
  } else {
    // A static graph, or a first record that does not parse on its own line
    // (a pretty-printed graph): the static loader reports what is wrong.
    *kind = InputKind::kStaticGraph;
  }
  return {};
}

namespace {

// One element of a function's "creates_roots" (`at` names it).
Error ReadRoot(const FieldReader& r, const json& root_site, const std::vector<std::string>& at,
               StaticRoot* sr) {
  if (!root_site.is_object()) return r.Fail(at, "expected an object");
  TETHER_TRY(r.Field(root_site, at, "file", &sr->file, false));
  TETHER_TRY(r.Field(root_site, at, "line", &sr->line, false));
  TETHER_TRY(r.Field(root_site, at, "call", &sr->call, false));
  TETHER_TRY(r.Field(root_site, at, "justified", &sr->justified, false));
  if (sr->call.empty()) sr->call = "root context";
  return {};
}

// One element of "functions"; its id must not be in `ids` (then it is added).
Error ReadFunction(const FieldReader& r, const json& f, std::vector<std::string> at,
                   std::unordered_set<std::string>* ids, StaticFunction* fn) {
  if (!f.is_object()) return r.Fail(at, "expected an object");
  TETHER_TRY(r.Id(f, at, "id", &fn->id));
  TETHER_TRY(r.Field(f, at, "name", &fn->name, true));
  fn->qualified_name = fn->name;
  TETHER_TRY(r.Field(f, at, "qualified_name", &fn->qualified_name, false));
  TETHER_TRY(r.Field(f, at, "file", &fn->file, false));
  TETHER_TRY(r.Field(f, at, "line", &fn->line, false));
  TETHER_TRY(r.Field(f, at, "receives_context", &fn->receives_context, false));
  TETHER_TRY(r.Field(f, at, "returns_context", &fn->returns_context, false));
  if (!ids->insert(fn->id).second) {
    at.push_back("id");
    return r.Fail(at, "duplicate function id \"" + fn->id + "\"");
  }
  if (auto roots = f.find("creates_roots"); roots != f.end()) {
    at.push_back("creates_roots");
    if (!roots->is_array()) return r.Fail(at, "expected an array");
    for (std::size_t k = 0; k < roots->size(); ++k) {
      std::vector<std::string> rat = at;
      rat.push_back(std::to_string(k));
      StaticRoot sr;
      TETHER_TRY(ReadRoot(r, (*roots)[k], rat, &sr));
      fn->creates_roots.push_back(std::move(sr));
    }
  }
  return {};
}

// One element of "calls"; both ends must be in `ids`.
Error ReadCall(const FieldReader& r, const json& c, std::vector<std::string> at,
               const std::unordered_set<std::string>& ids, StaticCall* call) {
  if (!c.is_object()) return r.Fail(at, "expected an object");
  TETHER_TRY(r.Id(c, at, "from", &call->from));
  TETHER_TRY(r.Id(c, at, "to", &call->to));
  TETHER_TRY(r.Field(c, at, "file", &call->file, false));
  TETHER_TRY(r.Field(c, at, "line", &call->line, false));
  TETHER_TRY(r.Field(c, at, "passes_context", &call->passes_context, true));
  for (const char* end : {"from", "to"}) {
    const std::string& id = std::string(end) == "from" ? call->from : call->to;
    if (!ids.count(id)) {
      at.push_back(end);
      return r.Fail(at, "unknown function id \"" + id + "\"");
    }
  }
  return {};
}

// One element of "findings".
Error ReadFinding(const FieldReader& r, const json& f, const std::vector<std::string>& at,
                  StaticFinding* sf) {
  if (!f.is_object()) return r.Fail(at, "expected an object");
  TETHER_TRY(r.Field(f, at, "check", &sf->check, true));
  TETHER_TRY(r.Field(f, at, "message", &sf->message, true));
  TETHER_TRY(r.Field(f, at, "file", &sf->file, false));
  TETHER_TRY(r.Field(f, at, "line", &sf->line, false));
  TETHER_TRY(r.Field(f, at, "col", &sf->col, false));
  if (auto fn = f.find("function"); fn != f.end() && !fn->is_null()) {
    TETHER_TRY(r.Id(f, at, "function", &sf->function));
  }
  return {};
}

Error LoadStaticGraphJson(const std::string& path, const std::string& text, StaticGraph* out) {
  json root;
  if (std::optional<io::JsonProblem> p = io::ParseJson(text, &root)) {
    return Bad(path, text, p->offset, "malformed JSON: " + p->message);
  }
  JsonLocator loc(text);
  FieldReader r(path, text, loc);
  if (!root.is_object() || !root.contains("tether_static_graph")) {
    return r.Fail({},
                  "not a static graph: the object has no \"tether_static_graph\" field "
                  "(and it is not a trace: its first line is not a trace record)");
  }
  const json& version = root["tether_static_graph"];
  if (!version.is_number_integer() || version.get<int>() != 1) {
    return r.Fail({"tether_static_graph"}, "unsupported static graph version " + version.dump() +
                                               " (this tether reads version 1)");
  }
  auto array_at = [&](const char* key, bool required, const json** arr) -> Error {
    auto it = root.find(key);
    if (it == root.end()) {
      if (required) return r.Fail({}, std::string("missing required field \"") + key + "\"");
      *arr = nullptr;
      return {};
    }
    if (!it->is_array()) return r.Fail({key}, "expected an array");
    *arr = &*it;
    return {};
  };
  const json* functions = nullptr;
  const json* calls = nullptr;
  const json* findings = nullptr;
  TETHER_TRY(array_at("functions", true, &functions));
  TETHER_TRY(array_at("calls", false, &calls));
  TETHER_TRY(array_at("findings", false, &findings));

  std::unordered_set<std::string> ids;
  for (std::size_t i = 0; i < functions->size(); ++i) {
    StaticFunction fn;
    TETHER_TRY(ReadFunction(r, (*functions)[i], {"functions", std::to_string(i)}, &ids, &fn));
    out->functions.push_back(std::move(fn));
  }
  for (std::size_t i = 0; calls && i < calls->size(); ++i) {
    StaticCall call;
    TETHER_TRY(ReadCall(r, (*calls)[i], {"calls", std::to_string(i)}, ids, &call));
    out->calls.push_back(std::move(call));
  }
  for (std::size_t i = 0; findings && i < findings->size(); ++i) {
    StaticFinding sf;
    TETHER_TRY(ReadFinding(r, (*findings)[i], {"findings", std::to_string(i)}, &sf));
    out->findings.push_back(std::move(sf));
  }
  return {};
}

}  // namespace

Error LoadStaticGraph(const std::string& path, const std::string& text, StaticGraph* out) {
  // The reader checks every type it reads; whatever nlohmann may still throw
  // is an error in the input, never a crash.
  try {
    return LoadStaticGraphJson(path, text, out);
  } catch (const json::exception& e) {
    return Bad(path, text, 0, "static graph: " + io::JsonExceptionMessage(e));
  }
}

Error LoadScopeGraph(const std::string& path, const LoadOptions& options, ScopeGraph* out) {
  std::string text;
  TETHER_TRY(ReadInput(path, &text));
  InputKind kind;
  TETHER_TRY(DetectInput(path, text, &kind));
  if (kind == InputKind::kTrace) {
    text.clear();
    trace::Trace t;
    TETHER_TRY(trace::LoadTrace(path, &t));
    if (options.prepare_trace) options.prepare_trace(&t);
    trace::AnalysisOptions analysis;
    analysis.grace_ns = options.grace_ns;
    *out = BuildFromTrace(t, trace::Analyze(t, analysis));
  } else {
    StaticGraph g;
    TETHER_TRY(LoadStaticGraph(path, text, &g));
    *out = BuildFromStatic(g);
  }
  out->input_path = path;
  return {};
}

}  // namespace tether::graph
