// RefuseUnreadableInput and JsonSyntaxError (tether/check/read_input.hpp),
// through lib/io.
#include "tether/check/read_input.hpp"

#include <optional>

#include <nlohmann/json.hpp>

#include "tether/io/read_file.hpp"

namespace tether::check {
namespace {

// A SAX handler that accepts every event: only the syntax is checked, no tree
// is built. parse_error keeps the first error's offset and message.
struct SyntaxOnly : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    offset = position > 0 ? position - 1 : 0;
    what = ex.what();
    return false;
  }
  std::size_t offset = 0;
  std::string what;
};

// nlohmann's message without its prefix and without the token it read
// ("; last read: '...'"), which may be any amount of the text.
std::string Reason(const std::string& what) {
  std::string reason = what;
  if (size_t syntax = reason.find("syntax error"); syntax != std::string::npos)
    reason = reason.substr(syntax);
  if (size_t last = reason.find("; last read: '"); last != std::string::npos) {
    size_t expected = reason.rfind("; expected ");
    reason = reason.substr(0, last) +
             (expected != std::string::npos && expected > last ? reason.substr(expected) : "");
  }
  return reason;
}

std::string At(std::string_view text, size_t offset) {
  io::TextPosition pos = io::PositionAt(text, offset);
  return std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": not valid JSON: ";
}

}  // namespace

std::string RefuseUnreadableInput(const std::string& path) {
  std::string text;
  std::optional<io::ReadError> err = io::ReadInputFile(path, &text);
  if (!err || err->message == "no such file") return "";
  return err->ToString();
}

std::string JsonSyntaxError(std::string_view text) {
  if (std::optional<size_t> deep = io::FindJsonTooDeep(text))
    return At(text, *deep) + "nested deeper than " + std::to_string(io::kMaxJsonDepth) + " levels";
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return At(text, text.size()) + "the file is empty";
  SyntaxOnly sax;
  if (nlohmann::json::sax_parse(text.begin(), text.end(), &sax)) return "";
  // The reader ran out of text inside the document (a string, a number, a
  // literal, an array left open): the error is just past the last byte.
  if (sax.offset >= text.size())
    return At(text, text.size()) + "the text ends inside the document (is the file truncated?)";
  return At(text, sax.offset) + Reason(sax.what);
}

}  // namespace tether::check
