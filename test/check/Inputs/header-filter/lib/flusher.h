// The project's own header: its detach is a finding --header-filter=lib/ keeps.
#pragma once
#include <thread>

inline void StartFlusher() {
  std::thread flusher([] {});
  flusher.detach();
}
