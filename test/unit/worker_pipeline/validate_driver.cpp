// A private stand-in for `tether-worker validate` (argv[0] is the subcommand
// name, as tether-worker's dispatcher passes it). Used by the corpus check
// below; the lit tests run the real `tether-worker validate`.
#include "tether/worker/pipeline.hpp"

int main(int argc, char** argv) {
  argv[0] = const_cast<char*>("validate");
  return tether::worker::RunValidate(argc, argv);
}
