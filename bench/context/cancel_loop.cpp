// cancel_loop MODE N: N rounds of "derive a cancellable child of a live
// parent, then cancel it", with libtether (MODE tether) or with
// std::stop_source + std::stop_callback (MODE stop_source), and nothing else.
// bench/context_ir.bench.sh runs it under callgrind with N = 0 and N = 100000:
// the difference over N is the instructions one round costs, a figure that
// does not depend on what else the machine is doing (unlike context_bench's
// times, which are the figures the targets are stated in).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stop_token>

#include "tether/context.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cancel_loop tether|stop_source N\n");
    return 2;
  }
  const long n = std::strtol(argv[2], nullptr, 10);
  if (std::strcmp(argv[1], "tether") == 0) {
    auto [parent, cancel_parent] = tether::WithCancel(tether::Background());
    for (long i = 0; i < n; ++i) {
      auto [ctx, cancel] = tether::WithCancel(parent);
      cancel();
    }
    cancel_parent();
  } else if (std::strcmp(argv[1], "stop_source") == 0) {
    std::stop_source parent;
    for (long i = 0; i < n; ++i) {
      std::stop_source child;
      std::stop_callback link(parent.get_token(), [&child] { child.request_stop(); });
      child.request_stop();
    }
  } else {
    std::fprintf(stderr, "cancel_loop: unknown mode '%s'\n", argv[1]);
    return 2;
  }
  return 0;
}
