// Helpers for tests that write or produce trace files.
#pragma once

#include <string>
#include <vector>

namespace tether::trace::testing {

// A file in a fresh temporary directory, removed with the directory when the
// object goes away.
class TempFile {
 public:
  explicit TempFile(const std::string& name);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }
  // Replaces the file's contents.
  void Write(const std::string& text) const;

 private:
  std::string dir_;
  std::string path_;
};

// Lines joined with '\n' and a final newline.
std::string Lines(const std::vector<std::string>& lines);

// The trace header line every trace starts with.
std::string Header();

}  // namespace tether::trace::testing
