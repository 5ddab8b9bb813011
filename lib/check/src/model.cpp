// Loading and merging API models (JSON via nlohmann/json).
#include "tether/check/model.hpp"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "json_pos.hpp"
#include "tether/io/json.hpp"
#include "tether/io/read_file.hpp"

namespace tether::check {
namespace {

using nlohmann::json;

bool ReadStrings(const json& doc, std::string_view text, const char* key,
                 std::vector<std::string>* out, std::string* problem, size_t* where) {
  if (!doc.contains(key)) return true;
  const json& v = doc.at(key);
  if (!v.is_array()) {
    *problem = std::string("'") + key + "' must be an array of strings";
    *where = KeyOffset(text, key);
    return false;
  }
  for (const json& item : v) {
    if (!item.is_string()) {
      *problem = std::string("'") + key + "' must contain only strings";
      *where = KeyOffset(text, key);
      return false;
    }
    out->push_back(item.get<std::string>());
  }
  return true;
}

const char* const kKnownKeys[] = {"name",
                                  "description",
                                  "context_types",
                                  "root_factories",
                                  "default_constructed_context_is_root",
                                  "derivations",
                                  "sanctioned_detaches",
                                  "cancel_types",
                                  "task_groups",
                                  "detached_spawns",
                                  "sibling_suffixes",
                                  "task_spawns",
                                  "blocking_calls",
                                  "cleanup_calls",
                                  "root_sources",
                                  "root_spawns",
                                  "link_types"};

// '*' matches any run of characters.
bool Glob(std::string_view p, std::string_view s) {
  size_t star = std::string_view::npos, match = 0, i = 0, j = 0;
  while (j < s.size()) {
    if (i < p.size() && p[i] != '*' && p[i] == s[j]) {
      ++i;
      ++j;
    } else if (i < p.size() && p[i] == '*') {
      star = i++;
      match = j;
    } else if (star != std::string_view::npos) {
      i = star + 1;
      j = ++match;
    } else {
      return false;
    }
  }
  while (i < p.size() && p[i] == '*') ++i;
  return i == p.size();
}

}  // namespace

// Appends the names of `from` that `to` lacks, in order, each once: one hash
// set per list, so merging n names is O(n) expected, not O(n^2).
void ApiModel::Merge(const ApiModel& o) {
  auto add = [](std::vector<std::string>& to, const std::vector<std::string>& from) {
    std::unordered_set<std::string_view> seen(to.begin(), to.end());
    std::vector<std::string> added;
    for (const auto& s : from)
      if (seen.insert(s).second) added.push_back(s);
    // Appended only now: `seen` views the strings of `to`, which push_back
    // could move.
    for (auto& s : added) to.push_back(std::move(s));
  };
  add(names, o.names);
  add(context_types, o.context_types);
  add(root_factories, o.root_factories);
  default_constructed_context_is_root |= o.default_constructed_context_is_root;
  add(derivations, o.derivations);
  add(sanctioned_detaches, o.sanctioned_detaches);
  add(cancel_types, o.cancel_types);
  std::unordered_set<std::string_view> group_types;
  for (const auto& g : task_groups) group_types.insert(g.type);
  std::vector<TaskGroupModel> new_groups;
  for (const auto& g : o.task_groups)
    if (group_types.insert(g.type).second) new_groups.push_back(g);
  for (auto& g : new_groups) task_groups.push_back(std::move(g));
  add(detached_spawns, o.detached_spawns);
  add(sibling_suffixes, o.sibling_suffixes);
  add(task_spawns, o.task_spawns);
  add(blocking_calls, o.blocking_calls);
  add(cleanup_calls, o.cleanup_calls);
  add(root_sources, o.root_sources);
  add(root_spawns, o.root_spawns);
  add(link_types, o.link_types);
}

bool ApiModel::MatchesPattern(const std::vector<std::string>& patterns, std::string_view qualified,
                              std::string_view bare) {
  for (const std::string& p : patterns) {
    std::string_view pat(p);
    if (pat.rfind("::", 0) == 0) {
      if (qualified.find("::") == std::string_view::npos && Glob(pat.substr(2), qualified))
        return true;
    } else if (pat.find("::") != std::string_view::npos) {
      if (Glob(pat, qualified)) return true;
    } else if (Glob(pat, bare)) {
      return true;
    }
  }
  return false;
}

const TaskGroupModel* ApiModel::FindGroup(std::string_view type) const {
  for (const auto& g : task_groups)
    if (g.type == type) return &g;
  return nullptr;
}

bool ApiModel::Contains(const std::vector<std::string>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

namespace {

bool ParseModelJson(std::string_view text, std::string_view source, ApiModel* model,
                    std::string* error) {
  json doc;
  if (std::optional<io::JsonProblem> p = io::ParseJson(text, &doc)) {
    *error = std::string(source) + ":" + io::LineColumnAt(text, p->offset) +
             ": error: invalid JSON: " + p->message;
    return false;
  }
  std::string problem;
  size_t where = 0;
  auto fail = [&] {
    *error = std::string(source) + ":" + io::LineColumnAt(text, where) + ": error: " + problem;
    return false;
  };
  if (!doc.is_object()) {
    problem = "a model is a JSON object";
    return fail();
  }
  for (const auto& [key, value] : doc.items()) {
    if (std::find(std::begin(kKnownKeys), std::end(kKnownKeys), key) == std::end(kKnownKeys)) {
      problem = "unknown key '" + key + "'";
      where = KeyOffset(text, key);
      return fail();
    }
  }
  ApiModel m;
  if (doc.contains("name") && !doc["name"].is_string()) {
    problem = "'name' must be a string";
    where = KeyOffset(text, "name");
    return fail();
  }
  m.names.push_back(doc.value("name", std::string(source)));
  if (!ReadStrings(doc, text, "context_types", &m.context_types, &problem, &where) ||
      !ReadStrings(doc, text, "root_factories", &m.root_factories, &problem, &where) ||
      !ReadStrings(doc, text, "derivations", &m.derivations, &problem, &where) ||
      !ReadStrings(doc, text, "sanctioned_detaches", &m.sanctioned_detaches, &problem, &where) ||
      !ReadStrings(doc, text, "cancel_types", &m.cancel_types, &problem, &where) ||
      !ReadStrings(doc, text, "detached_spawns", &m.detached_spawns, &problem, &where) ||
      !ReadStrings(doc, text, "sibling_suffixes", &m.sibling_suffixes, &problem, &where) ||
      !ReadStrings(doc, text, "task_spawns", &m.task_spawns, &problem, &where) ||
      !ReadStrings(doc, text, "blocking_calls", &m.blocking_calls, &problem, &where) ||
      !ReadStrings(doc, text, "cleanup_calls", &m.cleanup_calls, &problem, &where) ||
      !ReadStrings(doc, text, "root_sources", &m.root_sources, &problem, &where) ||
      !ReadStrings(doc, text, "root_spawns", &m.root_spawns, &problem, &where) ||
      !ReadStrings(doc, text, "link_types", &m.link_types, &problem, &where))
    return fail();
  if (doc.contains("default_constructed_context_is_root")) {
    if (!doc["default_constructed_context_is_root"].is_boolean()) {
      problem = "'default_constructed_context_is_root' must be true or false";
      where = KeyOffset(text, "default_constructed_context_is_root");
      return fail();
    }
    m.default_constructed_context_is_root = doc["default_constructed_context_is_root"];
  }
  if (doc.contains("task_groups")) {
    where = KeyOffset(text, "task_groups");
    if (!doc["task_groups"].is_array()) {
      problem = "'task_groups' must be an array of objects";
      return fail();
    }
    for (const json& g : doc["task_groups"]) {
      if (!g.is_object() || !g.contains("type") || !g["type"].is_string()) {
        problem = "each task group needs a string 'type'";
        return fail();
      }
      TaskGroupModel group;
      group.type = g["type"];
      if (!ReadStrings(g, text, "spawn", &group.spawn, &problem, &where) ||
          !ReadStrings(g, text, "join", &group.join, &problem, &where) ||
          !ReadStrings(g, text, "neutral", &group.neutral, &problem, &where))
        return fail();
      if (g.contains("spawn_on_construct") && !g["spawn_on_construct"].is_boolean()) {
        problem = "'spawn_on_construct' must be true or false";
        where = KeyOffset(text, "spawn_on_construct");
        return fail();
      }
      group.spawn_on_construct = g.value("spawn_on_construct", false);
      if (group.join.empty()) {
        problem = "task group '" + group.type + "' needs at least one 'join' method";
        return fail();
      }
      m.task_groups.push_back(std::move(group));
    }
  }
  if (m.context_types.empty()) {
    problem = "'context_types' must name at least one type";
    where = 0;
    return fail();
  }
  model->Merge(m);
  return true;
}

}  // namespace

bool ParseModel(std::string_view text, std::string_view source, ApiModel* model,
                std::string* error) {
  // Every type is checked above; whatever nlohmann may still throw is an
  // error in the model, never a crash.
  try {
    return ParseModelJson(text, source, model, error);
  } catch (const json::exception& e) {
    *error = std::string(source) + ":1:1: error: " + io::JsonExceptionMessage(e);
    return false;
  }
}

bool LoadModel(const std::string& path, ApiModel* model, std::string* error) {
  if (path == "builtin:libtether") return ParseModel(kLibtetherModelJson, path, model, error);
  if (path == "builtin:std-stop-token") return ParseModel(kStopTokenModelJson, path, model, error);
  if (path.rfind("builtin:", 0) == 0) {
    *error = path +
             ": error: no such built-in model; the built-in models are builtin:libtether "
             "and builtin:std-stop-token (or give a model file's path)";
    return false;
  }
  std::string text;
  if (std::optional<io::ReadError> err = io::ReadInputFile(path, &text)) {
    *error = err->ToString();
    return false;
  }
  return ParseModel(text, path, model, error);
}

}  // namespace tether::check
