// A service with one libtether bug and one std::thread bug, each of a kind
// the installed checker and the installed clang-tidy plugin must both find.
#include <thread>

#include "tether/tether.hpp"

void Handle(const tether::Context& ctx);

void Serve(const tether::Context& ctx) {
  Handle(tether::Background());
}

void Flush() {
  std::thread flusher([] {});
  flusher.detach();
}
