#include "fast_record.hpp"

#include <array>
#include <optional>
#include <string>

namespace tether::trace::detail {
namespace {

// One "key":value pair's value: an integer or a plain string.
struct Value {
  bool is_string = false;
  bool negative = false;
  std::uint64_t magnitude = 0;  // integers
  std::string_view text;        // strings
};

struct Field {
  std::string_view key;
  Value value;
};

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  // Reads the whole flat object; false when the line is anything else.
  bool Object(std::array<Field, 16>* fields, std::size_t* count) {
    *count = 0;
    if (!Eat('{')) return false;
    if (Eat('}')) return false;  // {} is no record of ours
    for (;;) {
      if (*count == fields->size()) return false;
      Field& f = (*fields)[*count];
      std::string_view key;
      if (!String(&key) || !Eat(':') || !AnyValue(&f.value)) return false;
      for (std::size_t i = 0; i < *count; ++i) {
        if ((*fields)[i].key == key) return false;  // duplicate keys: leave to the parser
      }
      f.key = key;
      ++*count;
      if (Eat(',')) continue;
      return Eat('}') && pos_ == s_.size();
    }
  }

 private:
  bool Eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // Printable ASCII without escapes only (UTF-8 and escapes: the parser).
  bool String(std::string_view* out) {
    if (!Eat('"')) return false;
    std::size_t begin = pos_;
    while (pos_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        *out = s_.substr(begin, pos_ - begin);
        ++pos_;
        return true;
      }
      if (c == '\\' || c < 0x20 || c > 0x7e) return false;
      ++pos_;
    }
    return false;
  }
  // At most 18 digits (no overflow, no float), no leading zero.
  bool Integer(Value* v) {
    v->negative = Eat('-');
    std::size_t begin = pos_;
    std::uint64_t n = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      n = n * 10 + static_cast<std::uint64_t>(s_[pos_] - '0');
      ++pos_;
    }
    std::size_t digits = pos_ - begin;
    if (digits == 0 || digits > 18 || (digits > 1 && s_[begin] == '0')) return false;
    if (pos_ < s_.size() && (s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E')) return false;
    v->magnitude = n;
    return true;
  }
  bool AnyValue(Value* v) {
    if (pos_ < s_.size() && s_[pos_] == '"') {
      v->is_string = true;
      return String(&v->text);
    }
    v->is_string = false;
    return Integer(v);
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

class Fields {
 public:
  Fields(const std::array<Field, 16>& fields, std::size_t count) : fields_(fields), count_(count) {}
  const Value* Find(std::string_view key) const {
    for (std::size_t i = 0; i < count_; ++i) {
      if (fields_[i].key == key) return &fields_[i].value;
    }
    return nullptr;
  }
  // Each false means: not ours, let the parser (and Apply's messages) decide.
  bool U64(std::string_view key, std::uint64_t* out) const {
    const Value* v = Find(key);
    if (v == nullptr || v->is_string || (v->negative && v->magnitude != 0)) return false;
    *out = v->magnitude;
    return true;
  }
  bool I64(std::string_view key, std::int64_t* out) const {
    const Value* v = Find(key);
    if (v == nullptr || v->is_string) return false;
    *out = v->negative ? -static_cast<std::int64_t>(v->magnitude)
                       : static_cast<std::int64_t>(v->magnitude);
    return true;
  }
  bool Str(std::string_view key, std::string_view* out) const {
    const Value* v = Find(key);
    if (v == nullptr || !v->is_string) return false;
    *out = v->text;
    return true;
  }
  // Missing: empty; present: a string (null and other types: the parser).
  bool OptStr(std::string_view key, std::string_view* out) const {
    const Value* v = Find(key);
    if (v == nullptr) {
      *out = {};
      return true;
    }
    return Str(key, out);
  }

 private:
  const std::array<Field, 16>& fields_;
  std::size_t count_;
};

}  // namespace

FastRecord ApplyFast(std::string_view line, Trace* trace) {
  std::array<Field, 16> fields;
  std::size_t count = 0;
  if (!Scanner(line).Object(&fields, &count)) return {};
  Fields r(fields, count);
  std::string_view ev;
  if (!r.Str("ev", &ev)) return {};
  FastRecord out;
  if (!r.U64("task", &out.task) || !r.I64("t", &out.t)) return {};
  if (ev == "spawn") {
    std::uint64_t ctx, group, scope, detached_from, parent = 0;
    std::int64_t line_no;
    std::string_view name, file, func;
    if (!r.U64("ctx", &ctx) || !r.U64("group", &group) || !r.U64("scope", &scope) ||
        !r.U64("detached_from", &detached_from) || !r.OptStr("name", &name) ||
        !r.Str("file", &file) || !r.I64("line", &line_no) || !r.OptStr("func", &func)) {
      return {};
    }
    const bool has_parent = r.Find("parent") != nullptr;
    if (has_parent && !r.U64("parent", &parent)) return {};
    TaskRecord& t = trace->tasks[out.task];
    t.id = out.task;
    t.ctx = ctx;
    t.group = group;
    t.scope = scope;
    t.detached_from = detached_from;
    t.name.assign(name);
    t.site.file.assign(file);
    t.site.line = static_cast<int>(line_no);
    t.site.function.assign(func);
    t.spawn_ns = out.t;
    if (has_parent) t.parent_task = parent;
    std::string_view kind;  // "thread": a pthread (libtether_threads.so)
    if (r.OptStr("kind", &kind)) t.kind.assign(kind);
    out.kind = FastKind::kSpawn;
  } else if (ev == "start") {
    std::uint64_t tid = 0;
    const bool has_tid = r.Find("tid") != nullptr;
    if (has_tid && !r.U64("tid", &tid)) return {};
    TaskRecord& t = trace->tasks[out.task];
    t.id = out.task;
    t.start_ns = out.t;
    if (has_tid) t.thread = tid;
    out.kind = FastKind::kStart;
  } else if (ev == "end") {
    std::string_view result;
    if (!r.Str("result", &result)) return {};
    TaskRecord& t = trace->tasks[out.task];
    t.id = out.task;
    if (!t.end_ns || out.t < *t.end_ns) {  // load.cpp: a process task ends twice
      t.end_ns = out.t;
      t.result.assign(result);
    }
    out.kind = FastKind::kEnd;
  } else {
    return {};
  }
  return out;
}

}  // namespace tether::trace::detail
