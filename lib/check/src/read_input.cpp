// RefuseUnreadableInput (tether/check/read_input.hpp), through lib/io.
#include "tether/check/read_input.hpp"

#include <optional>

#include "tether/io/read_file.hpp"

namespace tether::check {

std::string RefuseUnreadableInput(const std::string& path) {
  std::string text;
  std::optional<io::ReadError> err = io::ReadInputFile(path, &text);
  if (!err || err->message == "no such file") return "";
  return err->ToString();
}

}  // namespace tether::check
