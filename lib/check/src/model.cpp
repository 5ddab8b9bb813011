// Loading and merging API models (JSON via nlohmann/json).
#include "tether/check/model.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "json_pos.hpp"

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

const char* const kKnownKeys[] = {"name", "description", "context_types", "root_factories",
                                  "default_constructed_context_is_root", "derivations",
                                  "sanctioned_detaches", "cancel_types", "task_groups",
                                  "detached_spawns", "sibling_suffixes"};

}  // namespace

void ApiModel::Merge(const ApiModel& o) {
  auto add = [](std::vector<std::string>& to, const std::vector<std::string>& from) {
    for (const auto& s : from)
      if (!Contains(to, s)) to.push_back(s);
  };
  add(names, o.names);
  add(context_types, o.context_types);
  add(root_factories, o.root_factories);
  default_constructed_context_is_root |= o.default_constructed_context_is_root;
  add(derivations, o.derivations);
  add(sanctioned_detaches, o.sanctioned_detaches);
  add(cancel_types, o.cancel_types);
  for (const auto& g : o.task_groups)
    if (!FindGroup(g.type)) task_groups.push_back(g);
  add(detached_spawns, o.detached_spawns);
  add(sibling_suffixes, o.sibling_suffixes);
}

const TaskGroupModel* ApiModel::FindGroup(std::string_view type) const {
  for (const auto& g : task_groups)
    if (g.type == type) return &g;
  return nullptr;
}

bool ApiModel::Contains(const std::vector<std::string>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

bool ParseModel(std::string_view text, std::string_view source, ApiModel* model,
                std::string* error) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    size_t at = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    size_t colon = what.find("syntax error");
    *error = std::string(source) + ":" + LineCol(text, at) + ": invalid JSON: " +
             (colon == std::string::npos ? what : what.substr(colon));
    return false;
  }
  std::string problem;
  size_t where = 0;
  auto fail = [&] {
    *error = std::string(source) + ":" + LineCol(text, where) + ": " + problem;
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
  m.names.push_back(doc.value("name", std::string(source)));
  if (!ReadStrings(doc, text, "context_types", &m.context_types, &problem, &where) ||
      !ReadStrings(doc, text, "root_factories", &m.root_factories, &problem, &where) ||
      !ReadStrings(doc, text, "derivations", &m.derivations, &problem, &where) ||
      !ReadStrings(doc, text, "sanctioned_detaches", &m.sanctioned_detaches, &problem, &where) ||
      !ReadStrings(doc, text, "cancel_types", &m.cancel_types, &problem, &where) ||
      !ReadStrings(doc, text, "detached_spawns", &m.detached_spawns, &problem, &where) ||
      !ReadStrings(doc, text, "sibling_suffixes", &m.sibling_suffixes, &problem, &where))
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

bool LoadModel(const std::string& path, ApiModel* model, std::string* error) {
  if (path == "builtin:libtether") return ParseModel(kLibtetherModelJson, path, model, error);
  if (path == "builtin:std-stop-token") return ParseModel(kStopTokenModelJson, path, model, error);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open model file";
    return false;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  return ParseModel(buf.str(), path, model, error);
}

}  // namespace tether::check
