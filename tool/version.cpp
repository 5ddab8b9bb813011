// `tether version` / `tether --version`: what was built, from which commit,
// against which Clang. A bug report quotes these lines, so they are stable:
// "tether <version>", then "key: value" lines.
#include <ostream>

#include "commands.hpp"
#include "git_commit.hpp"  // TETHER_GIT_COMMIT, regenerated on every build

namespace tether::tool {

int PrintVersion(std::ostream& out) {
  out << "tether " << TETHER_VERSION << "\n"
      << "commit: " << TETHER_GIT_COMMIT << "\n"
      << "clang: " << TETHER_CLANG_VERSION << "\n"
      << "compiler: " << TETHER_CXX_COMPILER << "\n";
  return 0;
}

}  // namespace tether::tool
