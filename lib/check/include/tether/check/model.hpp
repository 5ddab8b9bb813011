// The API model: which names are contexts, roots, derivations, cancel
// functions, task groups and detached spawns. tether check knows no API by
// itself; every check asks the model. Names are fully qualified
// ("tether::TaskGroup::WithContext"), methods of groups are bare names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tether::check {

// A task-group type: spawning arms it, joining (or an escape) discharges it.
struct TaskGroupModel {
  std::string type;                  // qualified class name
  std::vector<std::string> spawn;    // methods that start a task
  std::vector<std::string> join;     // methods that wait for all tasks
  std::vector<std::string> neutral;  // methods that neither spawn, join nor escape
  bool spawn_on_construct = false;   // std::thread: constructing with a callable spawns
};

struct ApiModel {
  std::vector<std::string> names;  // the model files merged into this one
  std::vector<std::string> context_types;
  std::vector<std::string> root_factories;
  bool default_constructed_context_is_root = false;
  std::vector<std::string> derivations;
  std::vector<std::string> sanctioned_detaches;
  std::vector<std::string> cancel_types;
  std::vector<TaskGroupModel> task_groups;
  std::vector<std::string> detached_spawns;  // functions, or Class::method
  std::vector<std::string> sibling_suffixes;
  // Name patterns ('*' matches any run; a pattern with "::" is matched
  // against the qualified name, template arguments removed, otherwise
  // against the bare name; a leading "::" means the global scope).
  std::vector<std::string> task_spawns;     // calls/constructors that start a task from a callable
  std::vector<std::string> blocking_calls;  // calls that block without a context
  std::vector<std::string> cleanup_calls;   // calls that release resources (must run after cancel)
  // Qualified type names. A default-constructed root source (std::stop_source)
  // or a root spawn constructed with a callable (std::jthread) starts a
  // cancellation of its own; a link type (std::stop_callback) built from a
  // context, whose callback names the object, ties it to that context.
  std::vector<std::string> root_sources;
  std::vector<std::string> root_spawns;
  std::vector<std::string> link_types;

  // Adds every list of other to this one.
  void Merge(const ApiModel& other);
  const TaskGroupModel* FindGroup(std::string_view qualified_type) const;
  static bool Contains(const std::vector<std::string>& list, std::string_view name);
  // qualified: "ns::Class::method" (no template arguments); bare: "method".
  static bool MatchesPattern(const std::vector<std::string>& patterns, std::string_view qualified,
                             std::string_view bare);
};

// Parses a model. On error returns false and sets *error to
// "<source>:<line>:<col>: <problem>".
bool ParseModel(std::string_view json_text, std::string_view source_name, ApiModel* model,
                std::string* error);
// Reads and parses a model file; "builtin:libtether" and
// "builtin:std-stop-token" name the embedded ones.
bool LoadModel(const std::string& path_or_builtin, ApiModel* model, std::string* error);

// The models used when none is given (`tether check` without --model, the
// clang-tidy plugin without TetherModel), as a ';'-separated list: both
// shipped ones, so code that uses only std::thread / std::jthread /
// std::stop_token is checked without flags. Giving any model replaces the set.
inline constexpr const char* kDefaultModels = "builtin:libtether;builtin:std-stop-token";

extern const char* const kLibtetherModelJson;
extern const char* const kStopTokenModelJson;

}  // namespace tether::check
