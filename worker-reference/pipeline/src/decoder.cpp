#include "decoder.hpp"

#include <algorithm>
#include <cctype>

namespace tether::worker::internal {

namespace {

// Levenshtein distance, capped: only "is it a likely typo" matters.
int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Keys of other tools that Vela files carry by mistake, and what they are.
struct ForeignKey {
  std::string_view key;
  std::string_view why;
};
constexpr ForeignKey kForeignKeys[] = {
    {"restart", "a docker-compose setting; a service runs until its build ends"},
    {"command", "a docker-compose setting; use `entrypoint` or `commands`"},
    {"depends_on", "a docker-compose setting; steps run in order, stages by `needs`"},
    {"registry", "a plugin setting outside `parameters` (indent it under `parameters`)"},
    {"repo", "a plugin setting outside `parameters` (indent it under `parameters`)"},
    {"tags", "a plugin setting outside `parameters` (indent it under `parameters`)"},
    {"dockerfile", "a plugin setting outside `parameters` (indent it under `parameters`)"},
};

}  // namespace

void Decoder::ErrorAt(int line, int column, std::string message) {
  ++errors_;
  diagnostics_->push_back({{file_, line, column}, std::move(message)});
}

void Decoder::Warn(const Node& at, std::string message) {
  pipeline_->warnings.push_back({{file_, at.line, at.column}, std::move(message), true});
}

void Decoder::Note(const Node& at, const std::string& text) {
  pipeline_->notes.push_back(std::to_string(at.line) + ":" + std::to_string(at.column) + ": " +
                             text);
}

void Decoder::AddTreeProblems(const std::vector<yaml::TreeProblem>& problems) {
  for (const yaml::TreeProblem& p : problems) {
    if (p.warning) {
      pipeline_->notes.push_back(std::to_string(p.line) + ":" + std::to_string(p.column) + ": " +
                                 p.message);
    } else {
      ErrorAt(p.line, p.column, p.message);
    }
  }
}

std::vector<Entry> Decoder::Entries(const Node& map) {
  std::vector<yaml::TreeProblem> problems;
  std::vector<Entry> entries = merges_.Entries(map, &problems);
  AddTreeProblems(problems);
  return entries;
}

void Decoder::CheckKeys(const std::vector<Entry>& entries,
                        std::initializer_list<std::string_view> allowed, std::string_view where) {
  for (const Entry& e : entries) {
    const std::string& key = e.key->scalar;
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string message = "unknown key `" + key + "` in " + std::string(where);
    auto foreign = std::find_if(std::begin(kForeignKeys), std::end(kForeignKeys),
                                [&](const ForeignKey& f) { return f.key == key; });
    if (foreign != std::end(kForeignKeys)) {
      Warn(*e.key, message + " is not used by this worker (Vela ignores it too): " +
                       std::string(foreign->why));
      continue;
    }
    message += " is ignored (as by Vela)";
    std::string_view best;
    int best_distance = 3;
    for (std::string_view candidate : allowed) {
      int distance = EditDistance(Lower(key), candidate);
      if (distance < best_distance) {
        best_distance = distance;
        best = candidate;
      }
    }
    if (!best.empty()) message += "; did you mean `" + std::string(best) + "`?";
    Warn(*e.key, std::move(message));
  }
}

bool Decoder::Scalar(const Node& node, std::string_view what, std::string* out) {
  if (node.IsNull()) {
    out->clear();
    return true;
  }
  if (!node.IsScalar()) {
    Error(node, std::string(what) + " must be a single value, not a " +
                    (node.IsMap() ? "mapping" : "list"));
    return false;
  }
  *out = node.scalar;
  return true;
}

bool Decoder::Bool(const Node& node, std::string_view what, bool* out) {
  if (node.IsNull()) return true;  // `detach:` with no value keeps the default, as in go-yaml
  if (node.IsScalar() && !node.quoted) {
    std::string v = Lower(node.scalar);
    if (v == "true" || v == "yes" || v == "on") {
      *out = true;
      return true;
    }
    if (v == "false" || v == "no" || v == "off") {
      *out = false;
      return true;
    }
  }
  Error(node, std::string(what) + " must be true or false");
  return false;
}

bool Decoder::StringList(const Node& node, std::string_view what, std::vector<std::string>* out) {
  out->clear();
  if (node.IsNull()) return true;
  if (node.IsScalar()) {
    out->push_back(node.scalar);
    return true;
  }
  if (node.IsMap()) {
    Error(node, std::string(what) + " must be a string or a list of strings, not a mapping");
    return false;
  }
  bool ok = true;
  for (const Node* item : node.children) {
    if (item->IsScalar()) {
      out->push_back(item->scalar);
    } else if (item->IsNull()) {
      Error(*item, "empty item in " + std::string(what));
      ok = false;
    } else {
      Error(*item, "each item of " + std::string(what) + " must be a string, not a " +
                       (item->IsMap() ? "mapping" : "list"));
      ok = false;
    }
  }
  return ok;
}

void Decoder::Environment(const Node& node, std::string_view where,
                          std::map<std::string, std::string>* out) {
  auto check_name = [&](const Node& at, const std::string& name) {
    if (name.empty() || name.find('=') != std::string::npos ||
        name.find('\0') != std::string::npos) {
      Error(at, "environment variable name `" + name + "` in " + std::string(where) +
                    " is empty or contains '=' or NUL");
      return false;
    }
    return true;
  };
  if (node.IsNull()) return;
  if (node.IsMap()) {
    for (const Entry& e : Entries(node)) {
      std::string value;
      const std::string& name = e.key->scalar;
      if (!check_name(*e.key, name)) continue;
      if (!Scalar(*e.value, "environment variable `" + name + "`", &value)) continue;
      (*out)[name] = UnescapeDollars(value);
    }
    return;
  }
  if (node.IsSequence()) {
    for (const Node* item : node.children) {
      size_t eq = item->IsScalar() ? item->scalar.find('=') : std::string::npos;
      if (eq == std::string::npos) {
        Error(*item, "environment list item in " + std::string(where) + " must be KEY=VALUE" +
                         (item->IsScalar() ? ", got `" + item->scalar + "`" : std::string()));
        continue;
      }
      std::string name = item->scalar.substr(0, eq);
      if (!check_name(*item, name)) continue;
      (*out)[name] = UnescapeDollars(std::string_view(item->scalar).substr(eq + 1));
    }
    return;
  }
  Error(node, "environment of " + std::string(where) +
                  " must be a mapping or a list of KEY=VALUE, not a single value");
}

std::string UnsafeNameReason(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.size() > 200) return "is longer than 200 bytes";
  if (name.front() == '.') return "starts with '.'";
  for (unsigned char c : name) {
    if (c == '/' || c == '\\') return "contains a slash";
    if (c < 0x20 || c == 0x7f) return "contains a control character";
  }
  return "";
}

std::string EnvNameFor(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (unsigned char c : name)
    out.push_back(std::isalnum(c) ? static_cast<char>(std::toupper(c)) : '_');
  return out;
}

std::string UnescapeDollars(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out.push_back(text[i]);
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '$') ++i;
  }
  return out;
}

}  // namespace tether::worker::internal
