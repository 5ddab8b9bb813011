// The top level of a pipeline: version, environment, steps or stages (with
// needs), services, secrets, templates, metadata, and the checks that span
// several parts (needs graph, compiled step names, implicit secrets).
#include "tether/worker/pipeline.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "decoder.hpp"
#include "tether/io/read_file.hpp"
#include "yaml_tree.hpp"

namespace tether::worker {

std::string PipelineDiagnostic::ToString() const {
  const char* kind = warning ? ": warning: " : ": error: ";
  if (pos.line <= 0) return pos.file + kind + message;
  return pos.file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + kind +
         message;
}

namespace internal {
namespace {

// "1h30m", "90s", "45m" (Go durations of h/m/s) or a bare number of minutes
// (Vela's repo timeout unit). 0 when not a duration, -1 when longer than
// kMaxTimeout. Checked arithmetic: every partial sum stays under the maximum.
long long ParseTimeoutSeconds(const std::string& text) {
  constexpr long long kMax = std::chrono::seconds(kMaxTimeout).count();
  if (text.empty()) return 0;
  const bool minutes_only =
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  long long total = 0, number = 0;
  bool have_number = false;
  auto add = [&](long long unit) {
    if (number > (kMax - total) / unit) return false;
    total += number * unit;
    number = 0;
    have_number = false;
    return true;
  };
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      if (number > kMax) return -1;  // already too long in any unit
      number = number * 10 + (c - '0');
      have_number = true;
      continue;
    }
    if (!have_number) return 0;
    long long unit = c == 'h' ? 3600 : c == 'm' ? 60 : c == 's' ? 1 : 0;
    if (unit == 0) return 0;
    if (!add(unit)) return -1;
  }
  if (minutes_only) return add(60) ? total : -1;
  return have_number ? 0 : total;
}

void DecodeStages(Decoder& d, const Node& node) {
  if (!node.IsMap() || node.children.empty()) {
    d.Error(node, "`stages` must be a mapping of stage name to {needs, steps}");
    return;
  }
  for (const Entry& e : d.Entries(node)) {
    Stage stage;
    stage.name = e.key->scalar;
    stage.pos = d.Pos(*e.key);
    if (std::string why = UnsafeNameReason(stage.name); !why.empty()) {
      d.Error(*e.key, "stage name `" + stage.name + "` " + why +
                          "; names must be safe as file names (no '/', no control characters, no "
                          "leading '.')");
      continue;
    }
    const std::string where = "stage `" + stage.name + "`";
    if (!e.value->IsMap()) {
      d.Error(*e.value, where + " must be a mapping with `steps`");
      continue;
    }
    std::vector<Entry> keys = d.Entries(*e.value);
    d.CheckKeys(keys, {"name", "needs", "independent", "steps", "environment"}, where);
    std::map<std::string, std::string> environment;
    bool has_steps = false;
    for (const Entry& k : keys) {
      const std::string& key = k.key->scalar;
      if (key == "needs") {
        d.StringList(*k.value, "`needs`", &stage.needs);
      } else if (key == "steps") {
        has_steps = true;
        DecodeSteps(d, *k.value, where, &stage.steps);
      } else if (key == "environment") {
        d.Environment(*k.value, where, &environment);
      } else if (key == "independent") {
        bool independent = false;
        if (d.Bool(*k.value, "`independent`", &independent) && independent) {
          d.Note(*k.key, where + ": `independent` is recorded; a failing stage stops the build");
        }
      }
    }
    if (!has_steps) d.Error(*e.value, where + " has no `steps`");
    // Vela applies a stage's environment to each of its steps (the step's own wins).
    for (Container& step : stage.steps) {
      for (const auto& [name, value] : environment) step.environment.emplace(name, value);
    }
    d.pipeline().stages.push_back(std::move(stage));
  }
}

// needs must name existing stages (or Vela's implicit `clone`) and be acyclic.
void CheckNeeds(Decoder& d) {
  const std::vector<Stage>& stages = d.pipeline().stages;
  std::map<std::string, const Stage*> by_name;
  for (const Stage& s : stages) by_name[s.name] = &s;
  for (const Stage& s : stages) {
    for (const std::string& need : s.needs) {
      if (need == s.name) {
        d.ErrorAt(s.pos.line, s.pos.column, "stage `" + s.name + "` needs itself");
      } else if (need != "clone" && by_name.count(need) == 0) {
        d.ErrorAt(s.pos.line, s.pos.column,
                  "stage `" + s.name + "` needs `" + need + "`, which is not a stage");
      }
    }
  }
  // Depth-first search; each cycle is reported once, at its first stage in file order.
  std::map<std::string, int> state;  // 0 new, 1 on the path, 2 done
  std::vector<std::string> path;
  std::function<void(const Stage&)> visit = [&](const Stage& s) {
    state[s.name] = 1;
    path.push_back(s.name);
    for (const std::string& need : s.needs) {
      auto it = by_name.find(need);
      if (it == by_name.end() || need == s.name) continue;
      if (state[need] == 1) {
        std::string cycle;
        auto start = std::find(path.begin(), path.end(), need);
        for (auto p = start; p != path.end(); ++p) cycle += *p + " -> ";
        const Stage& first = *by_name[*start];
        d.ErrorAt(first.pos.line, first.pos.column, "stages needs form a cycle: " + cycle + need);
      } else if (state[need] == 0) {
        visit(*it->second);
      }
    }
    path.pop_back();
    state[s.name] = 2;
  };
  for (const Stage& s : stages) {
    if (state[s.name] == 0) visit(s);
  }
}

// Vela names a stage's steps "<stage>_<step>"; two different pairs must not collide.
void CheckCompiledNames(Decoder& d) {
  std::map<std::string, std::pair<const Stage*, const Container*>> seen;
  for (const Stage& s : d.pipeline().stages) {
    for (const Container& step : s.steps) {
      std::string compiled = s.name + "_" + step.name;
      auto [it, inserted] = seen.emplace(compiled, std::make_pair(&s, &step));
      if (!inserted && it->second.first != &s) {
        d.ErrorAt(step.pos.line, step.pos.column,
                  "step `" + step.name + "` of stage `" + s.name + "` and step `" +
                      it->second.second->name + "` of stage `" + it->second.first->name +
                      "` both compile to `" + compiled + "` (Vela names steps <stage>_<step>)");
      }
    }
  }
}

void DecodeSecrets(Decoder& d, const Node& node) {
  if (node.IsNull()) return;
  if (!node.IsSequence()) {
    d.Error(node, "`secrets` must be a list of {name, key, engine, type} or {origin}");
    return;
  }
  std::map<std::string, int> first_line;
  for (const Node* item : node.children) {
    if (!item->IsMap()) {
      d.Error(*item, "each secret must be a mapping with `name` (or `origin`)");
      continue;
    }
    std::vector<Entry> keys = d.Entries(*item);
    d.CheckKeys(keys, {"name", "key", "engine", "type", "origin", "pull", "from_env", "from_file"},
                "a secret");
    Secret secret;
    secret.pos = d.Pos(*item);
    const Node* origin = nullptr;
    for (const Entry& k : keys) {
      const std::string& key = k.key->scalar;
      if (key == "name")
        d.Scalar(*k.value, "secret `name`", &secret.name);
      else if (key == "from_env")
        d.Scalar(*k.value, "secret `from_env`", &secret.from_env);
      else if (key == "from_file")
        d.Scalar(*k.value, "secret `from_file`", &secret.from_file);
      else if (key == "origin")
        origin = k.value;
      else if (key == "key" || key == "engine" || key == "type" || key == "pull") {
        std::string recorded;  // Vela's secret store coordinates: shape-checked, not used
        d.Scalar(*k.value, "secret `" + key + "`", &recorded);
      }
    }
    if (origin != nullptr) {
      Container container;
      if (DecodeContainer(d, *origin, ContainerKind::kSecretOrigin, &container)) {
        d.Note(*origin, "secret origin `" + container.name + "` (image `" + container.image +
                            "`) is recorded, not run; its secrets come from this worker's "
                            "environment");
      }
      continue;
    }
    if (secret.name.empty()) {
      d.Error(*item, "secret has no `name`");
      continue;
    }
    if (!secret.from_env.empty() && !secret.from_file.empty()) {
      d.Error(*item, "secret `" + secret.name + "` has both `from_env` and `from_file`");
      continue;
    }
    if (secret.from_env.empty() && secret.from_file.empty())
      secret.from_env = EnvNameFor(secret.name);
    auto [it, inserted] = first_line.emplace(secret.name, item->line);
    if (!inserted) {
      d.Error(*item, "duplicate secret name `" + secret.name + "` (first at line " +
                         std::to_string(it->second) + ")");
      continue;
    }
    d.pipeline().secrets.push_back(std::move(secret));
  }
}

// Step secrets that no `secrets` entry declares still get a value: from the
// worker's environment variable of the upper-cased name.
void DeclareImplicitSecrets(Decoder& d) {
  Pipeline& p = d.pipeline();
  std::set<std::string> declared;
  for (const Secret& s : p.secrets) declared.insert(s.name);
  auto visit = [&](const Container& c) {
    for (const SecretRef& ref : c.secret_refs) {
      if (!declared.insert(ref.source).second) continue;
      Secret s;
      s.name = ref.source;
      s.from_env = EnvNameFor(ref.source);
      s.pos = c.pos;
      p.notes.push_back(std::to_string(c.pos.line) + ":" + std::to_string(c.pos.column) +
                        ": secret `" + s.name + "` used by `" + c.name +
                        "` is not declared in `secrets`; its value comes from $" + s.from_env);
      p.secrets.push_back(std::move(s));
    }
  };
  for (const Container& c : p.steps) visit(c);
  for (const Stage& st : p.stages) {
    for (const Container& c : st.steps) visit(c);
  }
}

void DecodeTemplates(Decoder& d, const Node& node, std::set<std::string>* names) {
  if (node.IsNull()) return;
  if (!node.IsSequence()) {
    d.Error(node, "`templates` must be a list of {name, source, type}");
    return;
  }
  std::map<std::string, int> first_line;
  for (const Node* item : node.children) {
    if (!item->IsMap()) {
      d.Error(*item, "each template must be a mapping with `name` and `source`");
      continue;
    }
    std::vector<Entry> keys = d.Entries(*item);
    d.CheckKeys(keys, {"name", "source", "type", "format", "vars"}, "a template");
    std::string name;
    for (const Entry& k : keys) {
      std::string value;
      const std::string& key = k.key->scalar;
      if (key == "vars") continue;
      if (!d.Scalar(*k.value, "template `" + key + "`", &value)) continue;
      if (key == "name") name = value;
      // Vela reads these only when it fetches and renders the template, which
      // this worker never does: a wrong one is a warning, not an error.
      if (key == "type" && value != "github" && value != "file") {
        d.Warn(*k.value, "template type `" + value +
                             "` is not github or file: Vela cannot fetch "
                             "such a template; tether-worker fetches no templates");
      }
      if (key == "format" && value != "go" && value != "golang" && value != "starlark") {
        d.Warn(*k.value, "template format `" + value +
                             "` is not go, golang or starlark: Vela "
                             "cannot render such a template; tether-worker renders no templates");
      }
    }
    if (name.empty()) {
      d.Error(*item, "template has no `name`");
      continue;
    }
    auto [it, inserted] = first_line.emplace(name, item->line);
    if (!inserted) {
      // Vela keys its templates by name: the later declaration replaces the first.
      d.Warn(*item, "duplicate template name `" + name + "` (first at line " +
                        std::to_string(it->second) +
                        "): this declaration overrides the first, as "
                        "in Vela");
    }
    names->insert(name);
    if (inserted) d.pipeline().templates.push_back(name);
  }
  if (!names->empty()) d.Note(node, "templates are recorded, not fetched or expanded");
}

void DecodeMetadata(Decoder& d, const Node& node) {
  if (node.IsNull()) return;
  if (!node.IsMap()) {
    d.Error(node, "`metadata` must be a mapping");
    return;
  }
  std::vector<Entry> keys = d.Entries(node);
  d.CheckKeys(keys, {"template", "render_inline", "clone", "environment", "auto_cancel", "os"},
              "`metadata`");
  for (const Entry& k : keys) {
    const std::string& key = k.key->scalar;
    if (key == "template" || key == "render_inline" || key == "clone") {
      bool value = false;
      if (!d.Bool(*k.value, "metadata `" + key + "`", &value)) continue;
      if (key == "render_inline") d.pipeline().render_inline = value;
    } else if (key == "environment") {
      std::vector<std::string> ignored;
      d.StringList(*k.value, "metadata `environment`", &ignored);
    } else if (key == "auto_cancel" && !k.value->IsMap()) {
      d.Error(*k.value, "metadata `auto_cancel` must be a mapping");
      continue;
    }
    d.Note(*k.key, "metadata `" + key + "` is recorded, not honoured");
  }
}

void DecodeTopLevel(Decoder& d, const Node& root, std::set<std::string>* template_names) {
  Pipeline& p = d.pipeline();
  const Node* steps = nullptr;
  const Node* stages = nullptr;
  const Node* steps_key = nullptr;  // the later of the two keys gets the error
  const Node* stages_key = nullptr;
  bool has_version = false;
  for (const Entry& e : d.Entries(root)) {
    const std::string& key = e.key->scalar;
    const Node& v = *e.value;
    if (key == "version") {
      has_version = true;
      if (!d.Scalar(v, "`version`", &p.version)) continue;
      if (p.version.empty())
        d.Error(v, "`version` is empty (Vela requires it, e.g. version: \"1\")");
      if (p.version == "legacy") d.Error(v, "version `legacy` is no longer supported (as in Vela)");
    } else if (key == "environment") {
      d.Environment(v, "the pipeline", &p.environment);
    } else if (key == "steps") {
      steps = &v;
      steps_key = e.key;
    } else if (key == "stages") {
      stages = &v;
      stages_key = e.key;
    } else if (key == "services") {
      if (!v.IsSequence() && !v.IsNull()) {
        d.Error(v, "`services` must be a list of services");
        continue;
      }
      std::map<std::string, int> first_line;
      for (const Node* item : v.children) {
        Container service;
        if (!DecodeContainer(d, *item, ContainerKind::kService, &service)) continue;
        auto [it, inserted] = first_line.emplace(service.name, item->line);
        if (!inserted) {
          d.Error(*item, "duplicate service name `" + service.name + "` (first at line " +
                             std::to_string(it->second) + ")");
          continue;
        }
        p.services.push_back(std::move(service));
      }
    } else if (key == "secrets") {
      DecodeSecrets(d, v);
    } else if (key == "templates") {
      DecodeTemplates(d, v, template_names);
    } else if (key == "metadata") {
      DecodeMetadata(d, v);
    } else if (key == "worker" || key == "deployment") {
      if (!v.IsMap())
        d.Error(v, "`" + key + "` must be a mapping");
      else
        d.Note(*e.key, "`" + key + "` is recorded, not honoured (one local worker)");
    } else if (key == "timeout") {
      std::string text;
      if (!d.Scalar(v, "`timeout`", &text)) continue;
      long long seconds = ParseTimeoutSeconds(text);
      if (seconds < 0) {
        d.Error(v, "`timeout` `" + text + "` is too long: the maximum is " + kMaxTimeoutText);
      } else if (seconds == 0) {
        d.Error(v, "`timeout` `" + text + "` is not a duration (e.g. 30m, 1h30m, 90s, or minutes)");
      } else {
        p.timeout = std::chrono::seconds(seconds);
      }
    } else if (key.rfind("x-", 0) == 0 || e.merged || yaml::ContainsAnchor(v)) {
      continue;  // an anchor holder: Vela ignores it, its anchors are used elsewhere
    } else {
      d.CheckKeys({e},
                  {"version", "environment", "steps", "stages", "services", "secrets", "templates",
                   "metadata", "worker", "deployment", "timeout"},
                  "the top level");
    }
  }
  if (steps_key != nullptr && stages_key != nullptr) {
    const Node& later = steps_key->line > stages_key->line ? *steps_key : *stages_key;
    d.Error(later, "`steps` and `stages` cannot be used together");
  }
  if (steps != nullptr) DecodeSteps(d, *steps, "the pipeline", &p.steps);
  if (stages != nullptr) DecodeStages(d, *stages);
  if (!has_version) d.Error(root, "missing `version` (Vela requires it, e.g. version: \"1\")");
  if (steps == nullptr && stages == nullptr && template_names->empty() && !p.render_inline) {
    d.Error(root, "no `steps`, `stages` or `templates`: the pipeline does nothing");
  }
}

}  // namespace
}  // namespace internal

namespace {

std::string UndeclaredTemplateMessage(const Container& c) {
  return "step `" + c.name + "` uses template `" + c.uses_template +
         "`, which `templates` does not declare";
}

// File order; one message per place (an aliased node is decoded once per alias).
void SortUnique(std::vector<PipelineDiagnostic>* list) {
  std::stable_sort(list->begin(), list->end(), [](const auto& a, const auto& b) {
    return std::tie(a.pos.line, a.pos.column) < std::tie(b.pos.line, b.pos.column);
  });
  list->erase(std::unique(list->begin(), list->end(),
                          [](const auto& a, const auto& b) {
                            return a.pos.line == b.pos.line && a.pos.column == b.pos.column &&
                                   a.message == b.message;
                          }),
              list->end());
}

Error ParsePipelineText(const std::string& text, const std::string& path, Pipeline* out,
                        std::vector<PipelineDiagnostic>* diagnostics, bool strict) {
  using namespace internal;
  std::vector<PipelineDiagnostic> found;
  *out = Pipeline{};
  out->file = path;
  Decoder d(path, out, &found);
  yaml::Document doc(text);
  d.AddTreeProblems(doc.problems());
  if (doc.root() != nullptr) {
    std::vector<yaml::TreeProblem> duplicates;
    yaml::CheckDuplicateKeys(doc, &duplicates);
    d.AddTreeProblems(duplicates);
    if (doc.document_count() > 1) {
      out->notes.push_back(
          "the file holds more than one YAML document; only the first is read (as Vela)");
    }
  }
  if (doc.root() == nullptr || doc.root()->IsNull()) {
    if (!d.failed())
      d.ErrorAt(1, 1, "empty file: a pipeline needs `version` and `steps` or `stages`");
  } else if (!doc.root()->IsMap()) {
    d.Error(*doc.root(), "the top level must be a mapping of pipeline keys (version, steps, ...)");
  } else {
    std::set<std::string> template_names;
    DecodeTopLevel(d, *doc.root(), &template_names);
    CheckNeeds(d);
    CheckCompiledNames(d);
    DeclareImplicitSecrets(d);
    // Vela accepts the file (it fails when it compiles that step); `run`
    // refuses the step (CheckRunnable).
    auto check_template = [&](const Container& c) {
      if (!c.uses_template.empty() && template_names.count(c.uses_template) == 0) {
        out->warnings.push_back(
            {c.pos, UndeclaredTemplateMessage(c) + ": `run` refuses this step", true});
      }
    };
    for (const Container& c : out->steps) check_template(c);
    for (const Stage& s : out->stages) {
      for (const Container& c : s.steps) check_template(c);
    }
  }
  SortUnique(&found);
  std::sort(out->notes.begin(), out->notes.end(), [](const std::string& a, const std::string& b) {
    return std::atoi(a.c_str()) < std::atoi(b.c_str());
  });
  out->notes.erase(std::unique(out->notes.begin(), out->notes.end()), out->notes.end());
  SortUnique(&out->warnings);
  if (strict) {
    for (PipelineDiagnostic& w : out->warnings) {
      w.warning = false;
      w.message += " [--strict]";
      found.push_back(std::move(w));
    }
    out->warnings.clear();
    SortUnique(&found);
  }
  if (diagnostics != nullptr) diagnostics->insert(diagnostics->end(), found.begin(), found.end());
  if (!found.empty()) {
    return Error(ErrorCode::kInvalidArgument,
                 path + ": " + std::to_string(found.size()) + " error(s) in the pipeline");
  }
  return Error();
}

}  // namespace

Error ParsePipeline(const std::string& text, const std::string& path, Pipeline* out,
                    std::vector<PipelineDiagnostic>* diagnostics, bool strict) {
  try {
    return ParsePipelineText(text, path, out, diagnostics, strict);
  } catch (const std::exception& e) {  // std::bad_alloc and the like: still a located error
    *out = Pipeline{};
    out->file = path;
    if (diagnostics != nullptr) {
      diagnostics->push_back({{path, 1, 1}, std::string("cannot parse the pipeline: ") + e.what()});
    }
    return Error(ErrorCode::kInvalidArgument, path + ": cannot parse: " + e.what());
  }
}

Error ReadPipelineFile(const std::string& path, std::string* text,
                       std::vector<PipelineDiagnostic>* diagnostics) {
  // tether::io refuses a directory, FIFO or device before it could block, and
  // caps the size (TETHER_MAX_INPUT_BYTES).
  if (std::optional<io::ReadError> err = io::ReadInputFile(path, text)) {
    if (diagnostics != nullptr) {
      diagnostics->push_back({{path, 0, 0}, "cannot read the pipeline file: " + err->message});
    }
    return Error(ErrorCode::kIo, path + ": cannot read: " + err->message);
  }
  return Error();
}

Error LoadPipeline(const std::string& path, Pipeline* out,
                   std::vector<PipelineDiagnostic>* diagnostics, bool strict) {
  std::string text;
  if (Error err = ReadPipelineFile(path, &text, diagnostics); !err.ok()) return err;
  return ParsePipeline(text, path, out, diagnostics, strict);
}

Error CheckRunnable(const Pipeline& pipeline, std::vector<PipelineDiagnostic>* diagnostics) {
  std::vector<PipelineDiagnostic> found;
  if (pipeline.render_inline) {
    found.push_back({{pipeline.file, 1, 1},
                     "unsupported: metadata.render_inline: the file is a template to render; "
                     "tether-worker does not render templates"});
  }
  auto visit = [&](const Container& c) {
    if (c.uses_template.empty()) return;
    if (std::find(pipeline.templates.begin(), pipeline.templates.end(), c.uses_template) ==
        pipeline.templates.end()) {
      found.push_back({c.pos, UndeclaredTemplateMessage(c)});
    } else {
      found.push_back({c.pos, "unsupported: step `" + c.name + "` calls template `" +
                                  c.uses_template + "`; tether-worker does not expand templates"});
    }
  };
  for (const Container& c : pipeline.steps) visit(c);
  for (const Stage& s : pipeline.stages) {
    for (const Container& c : s.steps) visit(c);
  }
  if (diagnostics != nullptr) diagnostics->insert(diagnostics->end(), found.begin(), found.end());
  if (!found.empty()) {
    return Error(ErrorCode::kInvalidArgument,
                 pipeline.file + ": uses features tether-worker cannot run");
  }
  return Error();
}

}  // namespace tether::worker
