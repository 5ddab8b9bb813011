// The main file: its findings are reported whatever --header-filter says.
#include "lib/flusher.h"
#include "vendor/poller.h"

void Start() {
  StartFlusher();
  StartPoller();
  std::thread refresher([] {});
  refresher.detach();
}
