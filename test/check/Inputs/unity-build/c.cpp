// Left out of the batch (SKIP_UNITY_BUILD_INCLUSION): its own entry.
#include <thread>

void Work();

void AlsoUnjoined(bool early) {
  std::thread t(Work);
  if (early) return;
  t.join();
}
