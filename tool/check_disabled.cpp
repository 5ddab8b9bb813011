// `tether check` when the build was configured with TETHER_BUILD_CHECKER=OFF.
#include <iostream>

#include "commands.hpp"

namespace tether::tool {

int RunCheck(int, char**) {
  std::cerr << "tether check: this tether was built without the checker "
               "(configure with -DTETHER_BUILD_CHECKER=ON and LLVM/Clang 16)\n";
  return 2;
}

}  // namespace tether::tool
