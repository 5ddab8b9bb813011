#include "manifest.hpp"

#include <fstream>
#include <map>

namespace tether::worker::testing {

namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Splits "| a | b \\| c |" into {"a", "b | c"} (Markdown escapes a pipe in a cell).
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool open = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell.push_back('|');
      ++i;
    } else if (line[i] == '|') {
      if (open) cells.push_back(Trim(cell));
      cell.clear();
      open = true;
    } else {
      cell.push_back(line[i]);
    }
  }
  return cells;
}

// "[name](target)" -> "target".
std::string LinkTarget(const std::string& cell) {
  size_t open = cell.find("](");
  size_t close = cell.find(')', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return "";
  return cell.substr(open + 2, close - open - 2);
}

std::string Unbold(std::string s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "**") == 0) {
      ++i;
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

}  // namespace

bool ReadManifest(const std::string& path, std::vector<ManifestRow>* rows, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return false;
  }
  std::map<std::string, size_t> columns;  // header name -> index, of the current table
  std::string line;
  int number = 0;
  bool previous_was_table = false;
  while (std::getline(in, line)) {
    ++number;
    bool is_table = line.rfind("|", 0) == 0;
    if (!is_table) {
      previous_was_table = false;
      continue;
    }
    std::vector<std::string> cells = Cells(line);
    if (!previous_was_table) {  // a header row starts each table
      columns.clear();
      for (size_t i = 0; i < cells.size(); ++i) columns[cells[i]] = i;
      previous_was_table = true;
      continue;
    }
    auto saved = columns.find("saved file");
    if (saved == columns.end() || saved->second >= cells.size()) continue;
    ManifestRow row;
    row.file = LinkTarget(cells[saved->second]);
    row.line = number;
    if (row.file.empty()) continue;
    for (const auto& [name, index] : columns) {
      if (index >= cells.size()) continue;
      if (name.rfind("predicted server result", 0) == 0) row.predicted = cells[index];
      if (name == "server verdict") row.verdict = Unbold(cells[index]);
    }
    if (row.predicted.empty() && row.file.rfind("not-vela/", 0) == 0) {
      row.predicted = "reject: not a Vela pipeline";
    }
    rows->push_back(row);
  }
  if (rows->empty()) {
    *error = path + " has no table rows that link a saved file";
    return false;
  }
  return true;
}

}  // namespace tether::worker::testing
