// The checker's access to lib/io's input rules, for the parts built on Clang
// (runner.cpp, compdb.cpp), which do not see lib/io's headers themselves.
#pragma once

#include <string>
#include <string_view>

namespace tether::check {

// Whether LLVM may be given `path` to read: "" when it is a regular file within
// the input cap, or does not exist (the caller reports absence its own way);
// else "PATH: error: WHY" (a directory, a FIFO that would block LLVM for ever,
// a device, a file over the cap).
std::string RefuseUnreadableInput(const std::string& path);

// Why `text` is not one well-formed JSON document, as "LINE:COL: not valid
// JSON: WHY" (1-based, the column in bytes), or "" when it is one. WHY never
// quotes the text (a one-line database of megabytes cut short must not be
// echoed); a text that ends inside the document says it looks truncated.
// Also refused: nesting deeper than lib/io's JSON limit (kMaxJsonDepth), which
// a recursive reader (LLVM's YAML parser) could overflow its stack on.
std::string JsonSyntaxError(std::string_view text);

}  // namespace tether::check
