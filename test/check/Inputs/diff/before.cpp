// The file as the main branch has it: one detached task, known and accepted.
#include <thread>

void Old() {
  std::thread t([] {});
  t.detach();
}

void Unchanged() {}
