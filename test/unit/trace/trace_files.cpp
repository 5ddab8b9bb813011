#include "trace_files.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tether::trace::testing {

TempFile::TempFile(const std::string& name) {
  std::string templ = (std::filesystem::temp_directory_path() / "tether-trace-test-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = templ;
  path_ = dir_ + "/" + name;
}

TempFile::~TempFile() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void TempFile::Write(const std::string& text) const {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string Lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

std::string Header() { return R"({"ev":"header","version":1,"pid":42,"program":"demo","t":1000})"; }

}  // namespace tether::trace::testing
