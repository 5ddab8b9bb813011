// A vendored header (included with -I, so no system header): its finding is
// left out by a --header-filter that names only lib/.
#pragma once
#include <thread>

inline void StartPoller() {
  std::thread poller([] {});
  poller.detach();
}
