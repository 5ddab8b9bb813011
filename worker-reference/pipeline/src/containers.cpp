// Steps, services and secret origins: Vela's container keys, decoded into
// Container. What the process runtime honours is decoded into fields; what it
// cannot honour is checked for shape and recorded in Container::unsupported.
#include <algorithm>
#include <map>
#include <string>

#include "decoder.hpp"

namespace tether::worker::internal {

namespace {

constexpr std::string_view kRuleKeys[] = {"branch",   "comment", "event", "path",   "repo",
                                          "sender",   "status",  "tag",   "target", "label",
                                          "instance", "eval",    "action"};

bool IsRuleKey(const std::string& key) {
  return std::find(std::begin(kRuleKeys), std::end(kRuleKeys), key) != std::end(kRuleKeys);
}

std::string KindName(ContainerKind kind) {
  switch (kind) {
    case ContainerKind::kStep:
      return "step";
    case ContainerKind::kService:
      return "service";
    case ContainerKind::kSecretOrigin:
      return "secret origin";
  }
  return "container";
}

// One rule value: a string or a list of strings.
void CheckRuleValue(Decoder& d, const Node& value, const std::string& what) {
  std::vector<std::string> ignored;
  d.StringList(value, what, &ignored);
}

void CheckMatcherOperator(Decoder& d, const Entry& e, const std::string& where) {
  std::string v;
  if (!d.Scalar(*e.value, "ruleset `" + e.key->scalar + "`", &v)) return;
  if (e.key->scalar == "matcher" && v != "filepath" && v != "regexp" && v != "regex") {
    d.Error(*e.value, "ruleset matcher `" + v + "` in " + where + " is not filepath or regexp");
  }
  if (e.key->scalar == "operator" && v != "and" && v != "or") {
    d.Error(*e.value, "ruleset operator `" + v + "` in " + where + " is not and or or");
  }
}

// Vela rulesets: flat rules, or if/unless blocks, plus matcher/operator/continue.
// Only `continue` is honoured; the rules are recorded (nothing here knows the
// build's event, branch or status, so the container always runs).
void DecodeRuleset(Decoder& d, const Node& node, const std::string& where, Container* c) {
  if (node.IsNull()) return;
  if (!node.IsMap()) {
    d.Error(node, "ruleset of " + where + " must be a mapping");
    return;
  }
  std::vector<std::string> rules;
  for (const Entry& e : d.Entries(node)) {
    const std::string& key = e.key->scalar;
    if (key == "continue") {
      d.Bool(*e.value, "ruleset `continue`", &c->continue_on_failure);
    } else if (key == "matcher" || key == "operator") {
      CheckMatcherOperator(d, e, where);
    } else if (key == "if" || key == "unless") {
      if (!e.value->IsMap()) {
        d.Error(*e.value, "ruleset `" + key + "` of " + where + " must be a mapping of rules");
        continue;
      }
      std::vector<Entry> inner = d.Entries(*e.value);
      for (const Entry& r : inner) {
        if (r.key->scalar == "matcher" || r.key->scalar == "operator") {
          CheckMatcherOperator(d, r, where);
        } else if (IsRuleKey(r.key->scalar)) {
          CheckRuleValue(d, *r.value, "rule `" + r.key->scalar + "`");
          rules.push_back(key + "." + r.key->scalar);
        } else {
          d.CheckKeys({r},
                      {"branch", "comment", "event", "path", "repo", "sender", "status", "tag",
                       "target", "label", "instance", "eval", "action", "matcher", "operator"},
                      "ruleset `" + key + "` of " + where);
        }
      }
    } else if (IsRuleKey(key)) {
      CheckRuleValue(d, *e.value, "rule `" + key + "`");
      rules.push_back(key);
    } else {
      d.CheckKeys(
          {e},
          {"if", "unless", "matcher", "operator", "continue", "branch", "comment", "event", "path",
           "repo", "sender", "status", "tag", "target", "label", "instance", "eval", "action"},
          "ruleset of " + where);
    }
  }
  if (!rules.empty()) {
    std::string list;
    for (const std::string& r : rules) list += (list.empty() ? "" : ", ") + r;
    c->unsupported["ruleset"] = "rules (" + list +
                                ") are recorded, not evaluated: this worker has no build event, so "
                                "the container always runs";
  }
}

// Step secrets: `- name` (exported as NAME) or `- {source: s, target: T}`.
void DecodeStepSecrets(Decoder& d, const Node& node, const std::string& where, Container* c) {
  auto add = [&](std::string source, std::string target) {
    c->secrets.push_back(source);
    c->secret_refs.push_back({std::move(source), std::move(target)});
  };
  if (node.IsNull()) return;
  if (node.IsScalar()) {
    add(node.scalar, EnvNameFor(node.scalar));
    return;
  }
  if (!node.IsSequence()) {
    d.Error(node, "secrets of " + where + " must be a list of names or of {source, target}");
    return;
  }
  for (const Node* item : node.children) {
    if (item->IsScalar() && !item->scalar.empty()) {
      add(item->scalar, EnvNameFor(item->scalar));
      continue;
    }
    if (!item->IsMap()) {
      d.Error(*item, "each secret of " + where + " must be a name or a {source, target} mapping");
      continue;
    }
    std::vector<Entry> entries = d.Entries(*item);
    d.CheckKeys(entries, {"source", "target"}, "a secret of " + where);
    std::string source, target;
    for (const Entry& e : entries) {
      if (e.key->scalar == "source") d.Scalar(*e.value, "secret `source`", &source);
      if (e.key->scalar == "target") d.Scalar(*e.value, "secret `target`", &target);
    }
    if (source.empty() || target.empty()) {
      d.Error(*item, "a secret of " + where + " needs both `source` and `target`");
      continue;
    }
    add(std::move(source), std::move(target));
  }
}

// Records a key's presence with why it is not honoured (shape not checked).
void Record(Container* c, const std::string& key, const std::string& why) {
  c->unsupported[key] = why;
}

// The container's `name`, read first so every other message can say which
// container it is about. False (an error said) when it is missing or unsafe.
bool DecodeName(Decoder& d, const Node& node, const std::vector<Entry>& entries,
                const std::string& kind_name, Container* c) {
  bool named = false;
  for (const Entry& e : entries) {
    if (e.key->scalar != "name") continue;
    if (!d.Scalar(*e.value, kind_name + " `name`", &c->name)) return false;
    if (std::string why = UnsafeNameReason(c->name); !why.empty()) {
      d.Error(*e.value, kind_name + " name `" + c->name + "` " + why +
                            "; names must be safe as file names (no '/', no control characters, "
                            "no leading '.')");
      return false;
    }
    named = true;
  }
  if (!named) d.Error(node, kind_name + " has no `name`");
  return named;
}

void DecodePull(Decoder& d, const Node& v, const std::string& where, Container* c) {
  std::string pull;
  if (!d.Scalar(v, "`pull`", &pull)) return;
  if (pull == "true") pull = "always";  // Vela's deprecated boolean forms
  if (pull == "false") pull = "not_present";
  if (pull != "always" && pull != "not_present" && pull != "on_start" && pull != "never") {
    // Vela passes a policy it does not know to its runtime, whose pull
    // switch falls to the default case: the image is never pulled.
    d.Warn(v, "pull policy `" + pull + "` of " + where +
                  " is not one of always, not_present, on_start, never: treated as `never`, as "
                  "Vela's runtime treats a policy it does not know (the image is not pulled)");
    pull = "never";
  }
  c->pull = pull;
}

void DecodeTemplate(Decoder& d, const Node& v, const std::string& where, Container* c) {
  if (!v.IsMap()) {
    d.Error(v, "`template` of " + where + " must be a mapping with `name` (and `vars`)");
    return;
  }
  std::vector<Entry> t = d.Entries(v);
  d.CheckKeys(t, {"name", "vars"}, "`template` of " + where);
  for (const Entry& te : t) {
    if (te.key->scalar == "name") d.Scalar(*te.value, "template `name`", &c->uses_template);
  }
  if (c->uses_template.empty()) d.Error(v, "`template` of " + where + " has no `name`");
  Record(c, "template", "templates are not fetched or expanded by tether-worker");
}

}  // namespace

bool DecodeContainer(Decoder& d, const Node& node, ContainerKind kind, Container* c) {
  const std::string kind_name = KindName(kind);
  if (!node.IsMap()) {
    d.Error(node, "each " + kind_name + " must be a mapping with at least `name` and `image`");
    return false;
  }
  c->pos = d.Pos(node);
  std::vector<Entry> entries = d.Entries(node);
  if (!DecodeName(d, node, entries, kind_name, c)) return false;
  const std::string where = kind_name + " `" + c->name + "`";
  if (kind == ContainerKind::kService) {
    d.CheckKeys(entries,
                {"name", "image", "pull", "environment", "entrypoint", "ports", "ruleset",
                 "ulimits", "user"},
                where);
  } else {
    d.CheckKeys(entries,
                {"name", "image", "pull", "environment", "secrets", "template", "ruleset",
                 "commands", "entrypoint", "detach", "privileged", "user", "parameters", "ulimits",
                 "volumes", "report_as", "id_request", "test_report", "artifacts"},
                where);
  }
  bool has_commands = false, has_env = false, has_params = false, has_secrets = false;
  for (const Entry& e : entries) {
    const std::string& key = e.key->scalar;
    const Node& v = *e.value;
    if (key == "image") {
      d.Scalar(v, "`image`", &c->image);
    } else if (key == "pull") {
      DecodePull(d, v, where, c);
    } else if (key == "environment") {
      d.Environment(v, where, &c->environment);
      has_env = !v.IsNull();
    } else if (key == "secrets") {
      DecodeStepSecrets(d, v, where, c);
      has_secrets = !c->secret_refs.empty();
    } else if (key == "commands") {
      if (d.StringList(v, "`commands`", &c->commands)) {
        for (std::string& command : c->commands) command = UnescapeDollars(command);
        bool empty = c->commands.empty() ||
                     std::all_of(c->commands.begin(), c->commands.end(), [](const std::string& s) {
                       return s.find_first_not_of(" \t\n") == std::string::npos;
                     });
        if (empty) d.Error(v, "empty `commands` in " + where + ": give at least one command");
      }
      has_commands = true;
    } else if (key == "entrypoint") {
      d.StringList(v, "`entrypoint`", &c->entrypoint);
      for (std::string& arg : c->entrypoint) arg = UnescapeDollars(arg);
    } else if (key == "detach") {
      d.Bool(v, "`detach`", &c->detach);
    } else if (key == "ruleset") {
      DecodeRuleset(d, v, where, c);
    } else if (key == "template") {
      DecodeTemplate(d, v, where, c);
    } else if (key == "parameters") {
      if (!v.IsMap() && !v.IsNull()) d.Error(v, "`parameters` of " + where + " must be a mapping");
      has_params = v.IsMap() && !v.children.empty();
      Record(c, "parameters",
             "plugin parameters are recorded; the process runtime runs no plugin image");
    } else if (key == "privileged") {
      bool privileged = false;
      if (d.Bool(v, "`privileged`", &privileged) && privileged) {
        Record(c, "privileged", "processes run with the worker's own privileges");
      }
    } else if (key == "ports") {
      Record(c, key, "processes share the host network; ports are not mapped");
    } else if (key != "name") {
      Record(c, key, "container-only setting, recorded and not applied by the process runtime");
    }
  }
  if (c->image.empty() && c->uses_template.empty()) {
    d.Error(node, where + " has no `image`");
  }
  if (kind == ContainerKind::kStep && !has_commands && !has_env && !has_params && !has_secrets &&
      c->uses_template.empty() && !c->detach && c->name != "clone" && c->name != "init") {
    d.Error(node, where +
                      " has nothing to do: give it `commands` (or, for a Vela plugin, "
                      "`parameters`)");
  }
  if (c->commands.empty() && c->entrypoint.empty() && c->uses_template.empty()) {
    Record(c, "image",
           kind == ContainerKind::kService
               ? "a service without `entrypoint` runs its image's default command, "
                 "which the process runtime cannot run: skipped"
               : "no commands or entrypoint: a Vela plugin image, which the process "
                 "runtime cannot run: skipped");
  }
  return true;
}

void DecodeSteps(Decoder& d, const Node& node, std::string_view where,
                 std::vector<Container>* out) {
  if (node.IsNull() || (node.IsSequence() && node.children.empty())) {
    d.Error(node, "`steps` of " + std::string(where) + " is empty");
    return;
  }
  if (!node.IsSequence()) {
    d.Error(node, "`steps` of " + std::string(where) + " must be a list of steps");
    return;
  }
  std::map<std::string, std::size_t> first_line;  // name -> index in *out
  for (const Node* item : node.children) {
    Container step;
    if (!DecodeContainer(d, *item, ContainerKind::kStep, &step)) continue;
    auto [it, inserted] = first_line.emplace(step.name, out->size());
    if (!inserted) {
      const Container& first = (*out)[it->second];
      const std::string message = "duplicate step name `" + step.name + "` in " +
                                  std::string(where) + " (first at line " +
                                  std::to_string(first.pos.line) + ")";
      // Vela checks names after its ruleset purge: two steps without rules
      // both survive it, and Vela refuses the file; with rules, at most one
      // may run. This worker evaluates no rules, so it runs the first.
      if (first.unsupported.count("ruleset") == 0 && step.unsupported.count("ruleset") == 0) {
        d.Error(*item, message);
      } else {
        d.Warn(*item, message +
                          ": this step does not run, the first does (Vela runs the one its "
                          "rulesets select; tether-worker evaluates no rulesets)");
      }
      continue;
    }
    out->push_back(std::move(step));
  }
}

}  // namespace tether::worker::internal
