// --line-filter and --diff (line_filter.hpp).
#include "tether/check/line_filter.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>

namespace tether::check {

namespace {

// "12" or "12,3" of a hunk header's new side: first line and count (1 when
// the count is left out).
bool ParseRange(std::string_view s, unsigned* first, unsigned* count) {
  std::size_t comma = s.find(',');
  std::string_view a = s.substr(0, comma);
  *count = 1;
  if (std::from_chars(a.data(), a.data() + a.size(), *first).ec != std::errc()) return false;
  if (comma == std::string_view::npos) return true;
  std::string_view b = s.substr(comma + 1);
  return std::from_chars(b.data(), b.data() + b.size(), *count).ec == std::errc();
}

}  // namespace

bool LineFilter::FromJson(std::string_view text, const std::string& where, LineFilter* out,
                          std::string* error) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const std::string shape =
      where +
      ": error: a line filter is a JSON list of {\"name\": FILE, \"lines\": [[FIRST, LAST], "
      "...]}";
  if (!doc.is_array()) {
    *error = doc.is_discarded() ? where + ": error: not valid JSON" : shape;
    return false;
  }
  LineFilter filter;
  for (const nlohmann::json& item : doc) {
    if (!item.is_object() || !item.contains("name") || !item["name"].is_string()) {
      *error = shape + " (an entry has no \"name\")";
      return false;
    }
    Entry e;
    e.name = item["name"].get<std::string>();
    if (item.contains("lines")) {
      if (!item["lines"].is_array()) {
        *error = shape + " (\"lines\" of " + e.name + " is not a list)";
        return false;
      }
      for (const nlohmann::json& range : item["lines"]) {
        if (!range.is_array() || range.size() != 2 || !range[0].is_number_unsigned() ||
            !range[1].is_number_unsigned() || range[0].get<unsigned>() > range[1].get<unsigned>()) {
          *error = shape + " (a range of " + e.name + " is not [FIRST, LAST] with FIRST <= LAST)";
          return false;
        }
        e.lines.emplace_back(range[0].get<unsigned>(), range[1].get<unsigned>());
      }
    }
    filter.entries_.push_back(std::move(e));
  }
  *out = std::move(filter);
  return true;
}

bool LineFilter::FromUnifiedDiff(std::string_view text, const std::string& where, LineFilter* out,
                                 std::string* error) {
  LineFilter filter;
  Entry* current = nullptr;
  unsigned number = 0;
  bool any_file = false;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.rfind("+++ ", 0) == 0) {
      std::string_view name = line.substr(4);
      if (std::size_t tab = name.find('\t'); tab != std::string_view::npos)
        name = name.substr(0, tab);  // diff -u puts a timestamp after a tab
      any_file = true;
      current = nullptr;
      if (name == "/dev/null") continue;  // a deleted file
      if (name.rfind("b/", 0) == 0) name.remove_prefix(2);
      filter.entries_.push_back(Entry{std::string(name), {}});
      current = &filter.entries_.back();
    } else if (line.rfind("@@ ", 0) == 0) {
      std::size_t plus = line.find(" +");
      std::size_t end = plus == std::string_view::npos ? plus : line.find(' ', plus + 2);
      unsigned first = 0, count = 0;
      if (plus == std::string_view::npos || end == std::string_view::npos ||
          !ParseRange(line.substr(plus + 2, end - plus - 2), &first, &count)) {
        *error = where + ":" + std::to_string(number) +
                 ": error: not a unified diff hunk header (expected \"@@ -A,B +C,D @@\")";
        return false;
      }
      if (current != nullptr && count > 0) current->lines.emplace_back(first, first + count - 1);
    }
  }
  if (!any_file && number > 0) {
    // Text without one "+++ FILE" line is no diff (an empty diff is fine):
    // most likely the wrong file was given.
    *error =
        where + ": error: not a unified diff (no \"+++ FILE\" line); make one with git diff -U0";
    return false;
  }
  // A file whose hunks are all deletions has nothing to report on: drop it
  // (an entry without ranges would pass every line).
  std::vector<Entry> kept;
  for (Entry& e : filter.entries_)
    if (!e.lines.empty()) kept.push_back(std::move(e));
  filter.entries_ = std::move(kept);
  *out = std::move(filter);
  return true;
}

bool LineFilter::Passes(const std::string& file, unsigned line) const {
  for (const Entry& e : entries_) {
    if (file.size() < e.name.size() ||
        file.compare(file.size() - e.name.size(), e.name.size(), e.name) != 0)
      continue;
    if (file.size() > e.name.size() && file[file.size() - e.name.size() - 1] != '/' &&
        e.name.front() != '/')
      continue;  // "a.cpp" must not match "data.cpp"
    if (e.lines.empty()) return true;
    for (const auto& [first, last] : e.lines)
      if (line >= first && line <= last) return true;
  }
  return false;
}

unsigned LineFilter::Apply(RunSummary* run) const {
  std::vector<Finding> kept;
  unsigned dropped = 0;
  for (Finding& f : run->findings) {
    if (Passes(f.file, f.line)) {
      kept.push_back(std::move(f));
    } else {
      ++dropped;
    }
  }
  run->findings = std::move(kept);
  return dropped;
}

bool HeaderFilter::Make(const std::string& regex, HeaderFilter* out, std::string* error) {
  out->none_ = regex.empty();  // clang-tidy's `--header-filter=`: no header
  try {
    out->regex_ = std::regex(regex, std::regex::extended | std::regex::nosubs);
  } catch (const std::regex_error& e) {
    *error = "--header-filter: '" + regex + "' is not a regular expression: " + e.what();
    return false;
  }
  return true;
}

unsigned HeaderFilter::Apply(const std::vector<std::string>& main_files, RunSummary* run) const {
  std::vector<Finding> kept;
  unsigned dropped = 0;
  for (Finding& f : run->findings) {
    const bool in_main_file =
        std::find(main_files.begin(), main_files.end(), f.file) != main_files.end();
    if (in_main_file || (!none_ && std::regex_search(f.file, regex_))) {
      kept.push_back(std::move(f));
    } else {
      ++dropped;
    }
  }
  run->findings = std::move(kept);
  return dropped;
}

}  // namespace tether::check
