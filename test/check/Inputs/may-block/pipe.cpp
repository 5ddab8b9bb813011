#include <tether/context.hpp>
#include <tether/task.hpp>
#include <unistd.h>
template <class T>
struct Pipe {
  long Read(char* buf, unsigned n);
  int fd = 0;
};
template <class T>
long Pipe<T>::Read(char* buf, unsigned n) { return ::read(fd, buf, n); }
// Pipe<int> is instantiated in another TU: this one calls a Read whose body it
// does not have, and its facts (the template's) say that it blocks.
extern template struct Pipe<int>;
tether::Error Tail(const tether::Context& ctx, Pipe<int>& p) {
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  group.Go([&] {
    char buf[64];
    p.Read(buf, sizeof buf);
    return tether::Error();
  });
  return group.Wait();
}
void Follow(const tether::Context& ctx, Pipe<int>& p) {
  char buf[64];
  for (;;) p.Read(buf, sizeof buf);
}
