// Second in the batch. The bug is seen only with the target's own flags.
#include <thread>

void Work();

#ifdef ONLY_IN_THE_TARGETS_FLAGS
void Unjoined(bool early) {
  std::thread t(Work);
  if (early) return;
  t.join();
}
#endif
