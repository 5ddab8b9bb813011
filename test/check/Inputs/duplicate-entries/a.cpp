// Compiled twice (CMakeLists.txt here): test/check/duplicate-entries.test.
#include <thread>

void Work();

// Seen by both commands: reported once.
void Unjoined(bool early) {
  std::thread t(Work);
  if (early) return;
  t.join();
}

#ifdef x_shared_EXPORTS
// Seen by the shared library's command only: reported, so that command ran.
void SharedOnly(bool early) {
  std::thread t(Work);
  if (early) return;
  t.join();
}
#endif
