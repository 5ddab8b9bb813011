#pragma once
#include <thread>

inline void Spawn() {
  std::thread t([] {});
  t.detach();
}
