#include "yaml_tree.hpp"

#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

namespace tether::worker::yaml {

// Builds a Document from yaml-cpp's events. yaml-cpp resolves alias names to
// anchor ids (and rejects undefined ones); we map ids to our nodes.
class TreeBuilder final : public YAML::EventHandler {
 public:
  explicit TreeBuilder(Document* doc) : doc_(doc) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Node* n = NewNode(Node::Kind::kNull, mark, "", anchor);
    Attach(n);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {  // yaml-cpp reports undefined aliases itself; be safe
      Problem(mark, "alias to an undefined anchor");
      Attach(NewNode(Node::Kind::kNull, mark, "", YAML::NullAnchor));
      return;
    }
    if (it->second->open) {
      Problem(mark, "recursive alias: the anchored node contains its own alias");
      Attach(NewNode(Node::Kind::kNull, mark, "", YAML::NullAnchor));
      return;
    }
    Attach(it->second);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    Node* n = NewNode(Node::Kind::kScalar, mark, tag, anchor);
    n->scalar = value;
    Attach(n);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(NewNode(Node::Kind::kSequence, mark, tag, anchor));
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(NewNode(Node::Kind::kMap, mark, tag, anchor));
  }
  void OnMapEnd() override { Close(); }

 private:
  Node* NewNode(Node::Kind kind, const YAML::Mark& mark, const std::string& tag,
                YAML::anchor_t anchor) {
    Node& n = doc_->nodes_.emplace_back();
    n.kind = kind;
    n.line = mark.line + 1;
    n.column = mark.column + 1;
    // yaml-cpp: "?" = plain and untagged, "!" = quoted/block and untagged.
    n.quoted = tag == "!";
    if (tag != "?" && tag != "!") n.tag = tag;
    if (anchor != YAML::NullAnchor) {
      n.anchored = true;
      anchors_[anchor] = &n;
    }
    return &n;
  }
  void Attach(const Node* n) {
    if (stack_.empty()) {
      if (doc_->root_ == nullptr) doc_->root_ = n;
      return;
    }
    stack_.back()->children.push_back(n);
  }
  void Open(Node* n) {
    n->open = true;
    Attach(n);
    stack_.push_back(n);
  }
  void Close() {
    if (stack_.empty()) return;
    stack_.back()->open = false;
    stack_.pop_back();
  }
  void Problem(const YAML::Mark& mark, std::string message) {
    doc_->problems_.push_back({mark.line + 1, mark.column + 1, std::move(message), false});
  }

  Document* doc_;
  std::vector<Node*> stack_;
  std::unordered_map<YAML::anchor_t, Node*> anchors_;
};

// Counts the documents after the first without keeping them (Vela reads only
// the first document; the rest is reported as a note).
class DiscardEvents final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

namespace {

// yaml-cpp 0.7 cannot parse a sequence entry whose node has properties and is
// a block scalar on the same line (`- &name |-` or `- !!str >`): "end of
// sequence not found". The same node with the header on the next line parses.
// Rewrites every such line into two and records (in `splits`, as line numbers
// of the rewritten text) where a line was added, so positions can be mapped
// back. Used only when the text as written fails to parse.
std::string SplitPropertiesFromBlockScalars(std::string_view text, std::vector<int>* splits) {
  std::string out;
  out.reserve(text.size() + 64);
  int line = 0;  // 1-based line number in `out` of the line being copied
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    std::string_view l = text.substr(start, end == std::string_view::npos ? std::string_view::npos
                                                                             : end - start);
    ++line;
    size_t indent = l.find_first_not_of(' ');
    bool rewritten = false;
    if (indent != std::string_view::npos && l.substr(indent, 2) == "- ") {
      size_t p = indent + 2;
      size_t props_end = p;
      bool any_property = false;
      for (;;) {  // &anchor / !tag properties separated by spaces
        while (p < l.size() && l[p] == ' ') ++p;
        if (p < l.size() && (l[p] == '&' || l[p] == '!')) {
          while (p < l.size() && l[p] != ' ') ++p;
          props_end = p;
          any_property = true;
          continue;
        }
        break;
      }
      if (any_property && p < l.size() && (l[p] == '|' || l[p] == '>')) {
        out.append(l.substr(0, props_end));
        out.push_back('\n');
        ++line;
        splits->push_back(line);
        out.append(indent + 2, ' ');
        out.append(l.substr(p));
        rewritten = true;
      }
    }
    if (!rewritten) out.append(l);
    if (end == std::string_view::npos) break;
    out.push_back('\n');
    start = end + 1;
  }
  return out;
}

}  // namespace

int Document::OriginalLine(int parsed_line) const {
  int shift = 0;
  for (int split : splits_) {
    if (split <= parsed_line) ++shift;
  }
  return parsed_line - shift;
}

bool Document::Parse(std::string_view text, bool keep_error) {
  document_count_ = 0;
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  TreeBuilder builder(this);
  try {
    if (parser.HandleNextDocument(builder)) document_count_ = 1;
  } catch (const YAML::Exception& e) {
    root_ = nullptr;
    if (keep_error) {
      problems_.push_back({e.mark.line + 1, e.mark.column + 1, "YAML syntax: " + e.msg, false});
    }
    return false;
  }
  try {
    DiscardEvents discard;
    if (parser.HandleNextDocument(discard)) document_count_ = 2;
  } catch (const YAML::Exception&) {
    document_count_ = 2;  // a broken later document is still a later document
  }
  return true;
}

Document::Document(std::string_view text) {
  if (Parse(text, true)) return;
  // Retry around the yaml-cpp block-scalar bug; keep the first error if that fails too.
  std::vector<int> splits;
  std::string rewritten = SplitPropertiesFromBlockScalars(text, &splits);
  if (splits.empty()) return;
  std::vector<TreeProblem> first_error = std::move(problems_);
  problems_.clear();
  nodes_.clear();
  splits_ = std::move(splits);
  if (!Parse(rewritten, false)) {
    splits_.clear();
    nodes_.clear();
    problems_ = std::move(first_error);
    return;
  }
  for (Node& n : nodes_) n.line = OriginalLine(n.line);
  for (TreeProblem& p : problems_) p.line = OriginalLine(p.line);
}

namespace {

bool IsMergeKey(const Node* key) { return key->IsScalar() && !key->quoted && key->scalar == "<<"; }

// Appends the entries of one `<<` value: a mapping, or a sequence of mappings.
void CollectMergeSources(const Node* value, std::vector<const Node*>* sources,
                         std::vector<TreeProblem>* problems) {
  if (value->IsMap()) {
    sources->push_back(value);
  } else if (value->IsSequence()) {
    for (const Node* item : value->children) {
      if (item->IsMap()) {
        sources->push_back(item);
      } else {
        problems->push_back({item->line, item->column,
                             "a `<<` merge list may only hold mappings (aliases of mappings)"});
      }
    }
  } else {
    problems->push_back({value->line, value->column,
                         "the value of a `<<` merge key must be a mapping or a list of mappings"});
  }
}

std::string KeyText(const Node* key) { return key->IsNull() ? std::string() : key->scalar; }

void ResolveInto(const Node& map, bool merged, int depth, std::vector<Entry>* out,
                 std::unordered_set<std::string>* seen, std::vector<TreeProblem>* problems) {
  if (depth > 64) {  // only reachable through pathological chains of merges
    problems->push_back({map.line, map.column, "`<<` merges nested too deeply"});
    return;
  }
  std::vector<const Node*> sources;
  for (size_t i = 0; i + 1 < map.children.size(); i += 2) {
    const Node* key = map.children[i];
    const Node* value = map.children[i + 1];
    if (IsMergeKey(key)) {
      CollectMergeSources(value, &sources, problems);
      continue;
    }
    if (seen->insert(KeyText(key)).second) out->push_back({key, value, merged});
  }
  for (const Node* source : sources) ResolveInto(*source, true, depth + 1, out, seen, problems);
}

}  // namespace

std::vector<Entry> MappingEntries(const Node& map, std::vector<TreeProblem>* problems) {
  std::vector<Entry> out;
  if (!map.IsMap()) return out;
  out.reserve(map.children.size() / 2);
  std::unordered_set<std::string> seen;
  ResolveInto(map, false, 0, &out, &seen, problems);
  return out;
}

bool ContainsAnchor(const Node& node) {
  std::unordered_set<const Node*> visited;
  std::vector<const Node*> todo = {&node};
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (n->anchored) return true;
    if (!visited.insert(n).second) continue;
    todo.insert(todo.end(), n->children.begin(), n->children.end());
  }
  return false;
}

void CheckDuplicateKeys(const Document& document, std::vector<TreeProblem>* problems) {
  std::unordered_map<std::string, const Node*> first;
  for (const Node& n : document.nodes()) {
    if (!n.IsMap()) continue;
    first.clear();
    const Node* first_merge = nullptr;
    for (size_t i = 0; i + 1 < n.children.size(); i += 2) {
      const Node* key = n.children[i];
      if (!key->IsScalar() && !key->IsNull()) {
        problems->push_back({key->line, key->column, "a mapping key must be a scalar"});
        continue;
      }
      if (IsMergeKey(key)) {
        if (first_merge != nullptr) {
          problems->push_back({key->line, key->column,
                               "duplicate << keys in single YAML map (collapsed into one merge "
                               "list, as Vela does; first at line " +
                                   std::to_string(first_merge->line) + ")",
                               true});
        } else {
          first_merge = key;
        }
        continue;
      }
      auto [it, inserted] = first.emplace(KeyText(key), key);
      if (!inserted) {
        problems->push_back({key->line, key->column,
                             "duplicate key `" + KeyText(key) + "` in this mapping (first at line " +
                                 std::to_string(it->second->line) + ")"});
      }
    }
  }
}

}  // namespace tether::worker::yaml
