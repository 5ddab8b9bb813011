// A read-only YAML node tree built from yaml-cpp's event parser, keeping what
// yaml-cpp's YAML::Node hides and a strict Vela parser needs: every mapping
// entry (duplicates included, in file order), whether a node carries an
// &anchor, whether a scalar was quoted, and 1-based positions.
//
// Aliases are not copied: an alias is a pointer to the anchored node, so a
// tree is a DAG and walking it costs what the text costs. An alias to a node
// that is still open (a recursive structure) is refused.
//
// Merge keys (`<<`) are NOT resolved by yaml-cpp 0.7 (it keeps `<<` as an
// ordinary key); MappingEntries() resolves them the YAML 1.1 way.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tether::worker::yaml {

struct Node {
  enum class Kind { kNull, kScalar, kSequence, kMap };
  Kind kind = Kind::kNull;
  int line = 0;  // 1-based
  int column = 0;
  bool anchored = false;  // written with &name
  bool quoted = false;    // scalar written quoted or as a block scalar (not plain)
  bool open = false;      // being built (an alias to it would be recursive)
  std::string tag;        // explicit tag text, "" when none
  std::string scalar;     // for kScalar
  // kSequence: the items. kMap: key0, value0, key1, value1, ... in file order.
  std::vector<const Node*> children;

  bool IsMap() const { return kind == Kind::kMap; }
  bool IsSequence() const { return kind == Kind::kSequence; }
  bool IsScalar() const { return kind == Kind::kScalar; }
  bool IsNull() const { return kind == Kind::kNull; }
};

// A problem found while building or reading the tree.
struct TreeProblem {
  int line = 0;
  int column = 0;
  std::string message;
  bool warning = false;  // true: recorded as a note, the file stays valid
};

// Limits that keep hostile text from costing more than its size suggests.
// Nesting deeper than kMaxDepth (collections inside collections) is refused;
// no Vela pipeline comes close. kMaxMergeEntries bounds the work of `<<`
// merge resolution over a whole document, as YAML anchor caps do.
inline constexpr int kMaxDepth = 100;
inline constexpr std::size_t kMaxMergeEntries = 1'000'000;
inline constexpr int kMaxMergeDepth = 64;

// Owns every node of the first YAML document of a text.
class Document {
 public:
  // Parses `text`. On a syntax error, root() is null and problems() holds it.
  // Text that is not UTF-8, or holds a NUL byte, is refused before parsing
  // (the problem names the first offending byte's position).
  explicit Document(std::string_view text);
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  const Node* root() const { return root_; }
  int document_count() const { return document_count_; }  // 2 means "more than one"
  const std::vector<TreeProblem>& problems() const { return problems_; }
  const std::deque<Node>& nodes() const { return nodes_; }

 private:
  friend class TreeBuilder;
  bool Parse(std::string_view text, bool keep_error);
  int OriginalLine(int parsed_line) const;

  std::vector<int> splits_;  // lines added to work around a yaml-cpp bug (see .cpp)
  std::deque<Node> nodes_;   // stable addresses; aliases point into it
  const Node* root_ = nullptr;
  int document_count_ = 0;
  std::vector<TreeProblem> problems_;
};

// One entry of a mapping after merge-key resolution.
struct Entry {
  const Node* key;
  const Node* value;
  bool merged;  // came from a `<<` merge, not written in this mapping
};

// Resolves `<<` merge keys. The entries of a mapping come in file order:
// explicit keys win over merged ones; among merged maps the first listed wins.
// Several `<<` keys in one mapping are collapsed into one list (Vela does the
// same and warns). Duplicate explicit keys are reported by CheckDuplicateKeys,
// not here; the first one wins.
//
// Each mapping is resolved once and remembered, so a merge source referenced
// many times costs its size per reference, never its whole expansion again;
// the total number of entries looked at is capped at kMaxMergeEntries
// (past it: one error, and the rest of the document's merges are not
// resolved). Use one resolver per Document; it holds pointers into it.
class MergeResolver {
 public:
  // Problems with `<<` values (not a mapping, too deep, over the cap) go to
  // `problems`, each reported once.
  std::vector<Entry> Entries(const Node& map, std::vector<TreeProblem>* problems);

 private:
  const std::vector<Entry>& Resolve(const Node& map, int depth, std::vector<TreeProblem>* problems);

  std::unordered_map<const Node*, std::vector<Entry>> resolved_;
  std::size_t budget_ = kMaxMergeEntries;
  bool over_budget_ = false;
};

// One-off resolution of one mapping (a fresh MergeResolver).
std::vector<Entry> MappingEntries(const Node& map, std::vector<TreeProblem>* problems);

// "" when `text` is UTF-8 without NUL bytes; otherwise what is wrong, with the
// 1-based line and column of the first bad byte in *line and *column.
std::string CheckText(std::string_view text, int* line, int* column);

// True when the node or anything under it carries an &anchor (each node is
// visited once, so aliases cannot blow this up).
bool ContainsAnchor(const Node& node);

// Reports every duplicate mapping key of the document (go-yaml v3 rejects them)
// as an error, and every mapping with several `<<` keys as a warning. Each
// mapping is visited once, however many aliases point to it.
void CheckDuplicateKeys(const Document& document, std::vector<TreeProblem>* problems);

}  // namespace tether::worker::yaml
