// thread-plugin: a shared object that threads-probe's "plugin" mode loads
// with dlopen() after tracing started. Its StartWorker starts a thread that
// nobody joins: the report must name this file, not the caller of dlopen.
#include <unistd.h>

#include <thread>

namespace {
[[noreturn]] void SleepForever() {
  for (;;) pause();
}
}  // namespace

extern "C" __attribute__((visibility("default"))) void StartWorker() {
  new std::thread(SleepForever);  // the plugin's leak: never joined
}
