// A plain std::thread program (no libtether) linked with Tether::threads_wrap
// and, where the toolchain can, fully static: nothing can be preloaded into
// it, so its threads are recorded by the wrapped pthread calls.
//   joined   one thread, joined: clean
//   leak     one thread joined, one detached and still running at exit
//   pthread  one thread made by a direct pthread_create, never joined (in a
//            dynamic program only the program's own calls are wrapped)
//   _exit, quick_exit  leak, then ends at once by that call, without exit's
//            handlers (and within the writer's 100 ms flush interval)
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

void Joined() {
  std::thread worker([] {});
  worker.join();
}

void Leak() {
  Joined();
  std::thread sleeper([] { std::this_thread::sleep_for(std::chrono::seconds(30)); });
  sleeper.detach();
}

void* SleepForever(void*) {
  pause();
  return nullptr;
}

void DirectPthread() {
  pthread_t thread;
  pthread_create(&thread, nullptr, SleepForever, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "joined") == 0) {
    Joined();
  } else if (std::strcmp(mode, "leak") == 0) {
    Leak();
  } else if (std::strcmp(mode, "pthread") == 0) {
    DirectPthread();
  } else if (std::strcmp(mode, "_exit") == 0) {
    Leak();
    _exit(0);
  } else if (std::strcmp(mode, "quick_exit") == 0) {
    Leak();
    std::quick_exit(0);
  } else {
    std::fprintf(stderr, "usage: wrapped-threads joined|leak|pthread|_exit|quick_exit\n");
    return 2;
  }
  std::puts("wrapped-threads: done");
  return 0;
}
