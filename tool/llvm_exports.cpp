// libtether_llvm.so's entry points, looked up by name by the tether
// executable (llvm_module.cpp) when a command needs LLVM or Clang.
#include "commands.hpp"
#include "thread_sites.hpp"

extern "C" {

#ifdef TETHER_HAVE_CHECKER
__attribute__((visibility("default"))) int tether_llvm_run_check(int argc, char** argv) {
  return tether::tool::RunCheckCommand(argc, argv);
}
#endif

__attribute__((visibility("default"))) void tether_llvm_symbolize_thread_sites(
    tether::trace::Trace* trace) {
  tether::tool::SymbolizeThreadSites(trace);
}

}  // extern "C"
