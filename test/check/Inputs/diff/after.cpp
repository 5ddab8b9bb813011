// The file as a pull request changes it: the old detach stays, a new one
// comes in a new function, and a line of the old function is edited.
#include <thread>

void Old() {
  std::thread t([] {});
  t.detach();
}

void Unchanged() { /* edited */ }

void New() {
  std::thread u([] {});
  u.detach();
}
