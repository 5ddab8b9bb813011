#include "yaml_tree.hpp"

#include <cstdio>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

namespace tether::worker::yaml {

namespace {

// Thrown by the tree builder out of yaml-cpp's parser (which passes handler
// exceptions through) when the text nests deeper than kMaxDepth.
struct TooDeep {
  YAML::Mark mark;
};

}  // namespace

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
    if (stack_.size() >= static_cast<size_t>(kMaxDepth)) {
      YAML::Mark mark;
      mark.line = n->line - 1;
      mark.column = n->column - 1;
      throw TooDeep{mark};
    }
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
    std::string_view l =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
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
  } catch (const TooDeep& e) {
    root_ = nullptr;
    if (keep_error) {
      problems_.push_back({e.mark.line + 1, e.mark.column + 1,
                           "YAML nested more than " + std::to_string(kMaxDepth) +
                               " levels deep (mappings and lists inside each other); no "
                               "pipeline needs that",
                           false});
    }
    return false;
  } catch (const YAML::Exception& e) {
    root_ = nullptr;
    if (keep_error) {
      problems_.push_back({e.mark.line + 1, e.mark.column + 1, "YAML syntax: " + e.msg, false});
    }
    return false;
  } catch (const std::exception& e) {  // yaml-cpp may also throw std::bad_alloc, std::out_of_range
    root_ = nullptr;
    if (keep_error)
      problems_.push_back({1, 1, std::string("cannot parse the YAML: ") + e.what(), false});
    return false;
  }
  try {
    DiscardEvents discard;
    if (parser.HandleNextDocument(discard)) document_count_ = 2;
  } catch (...) {
    document_count_ = 2;  // a broken later document is still a later document
  }
  return true;
}

std::string CheckText(std::string_view text, int* line, int* column) {
  *line = 1;
  *column = 1;
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) return "NUL byte in the file (a pipeline is UTF-8 text; is it UTF-16 or binary?)";
    if (c == '\n') {
      ++*line;
      *column = 1;
      ++i;
      continue;
    }
    if (c < 0x80) {
      ++*column;
      ++i;
      continue;
    }
    // Lengths and ranges of well-formed UTF-8 (Unicode 15, table 3-7):
    // no overlong forms, no surrogates, nothing above U+10FFFF.
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
      n = 1;
    else if (c == 0xE0)
      n = 2, lo = 0xA0;
    else if (c == 0xED)
      n = 2, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF)
      n = 2;
    else if (c == 0xF0)
      n = 3, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3)
      n = 3;
    else if (c == 0xF4)
      n = 3, hi = 0x8F;
    bool ok = n > 0;
    for (size_t k = 1; ok && k <= n; ++k) {
      if (i + k >= text.size()) {
        ok = false;
        break;
      }
      const auto b = static_cast<unsigned char>(text[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) ok = false;
    }
    if (!ok) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", c);
      return std::string("invalid UTF-8 (byte ") + hex + "); a pipeline must be UTF-8 text";
    }
    ++*column;
    i += n + 1;
  }
  return "";
}

Document::Document(std::string_view text) {
  int line = 0, column = 0;
  if (std::string why = CheckText(text, &line, &column); !why.empty()) {
    problems_.push_back({line, column, std::move(why), false});
    return;
  }
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

}  // namespace

const std::vector<Entry>& MergeResolver::Resolve(const Node& map, int depth,
                                                 std::vector<TreeProblem>* problems) {
  if (auto it = resolved_.find(&map); it != resolved_.end()) return it->second;
  std::vector<Entry> out;
  std::unordered_set<std::string> seen;
  std::vector<const Node*> sources;
  auto spend = [&](std::size_t n) {
    if (over_budget_) return false;
    if (n <= budget_) {
      budget_ -= n;
      return true;
    }
    over_budget_ = true;
    problems->push_back({map.line, map.column,
                         "`<<` merges expand to more than " + std::to_string(kMaxMergeEntries) +
                             " entries (a merge-key bomb?); the limit keeps the work bounded"});
    return false;
  };
  spend(map.children.size() / 2);
  for (size_t i = 0; i + 1 < map.children.size(); i += 2) {
    const Node* key = map.children[i];
    const Node* value = map.children[i + 1];
    if (IsMergeKey(key)) {
      CollectMergeSources(value, &sources, problems);
      continue;
    }
    if (seen.insert(KeyText(key)).second) out.push_back({key, value, false});
  }
  if (!sources.empty() && depth >= kMaxMergeDepth) {
    // Only reachable through pathological chains of merges.
    problems->push_back(
        {map.line, map.column,
         "`<<` merges nested more than " + std::to_string(kMaxMergeDepth) + " deep"});
    sources.clear();
  }
  for (const Node* source : sources) {
    if (over_budget_) break;
    const std::vector<Entry>& from = Resolve(*source, depth + 1, problems);
    if (!spend(from.size())) break;
    for (const Entry& e : from) {
      if (seen.insert(KeyText(e.key)).second) out.push_back({e.key, e.value, true});
    }
  }
  return resolved_.emplace(&map, std::move(out)).first->second;
}

std::vector<Entry> MergeResolver::Entries(const Node& map, std::vector<TreeProblem>* problems) {
  if (!map.IsMap()) return {};
  return Resolve(map, 0, problems);
}

std::vector<Entry> MappingEntries(const Node& map, std::vector<TreeProblem>* problems) {
  MergeResolver resolver;
  return resolver.Entries(map, problems);
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
                             "duplicate key `" + KeyText(key) +
                                 "` in this mapping (first at line " +
                                 std::to_string(it->second->line) + ")"});
      }
    }
  }
}

}  // namespace tether::worker::yaml
