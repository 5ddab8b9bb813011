#include "stream.hpp"
#include <unistd.h>
namespace logs {
namespace {
long ReadSome(int fd, char* buf, unsigned n) { return ::read(fd, buf, n); }
}  // namespace
void CopyOutput(int pipe_fd, std::string* into) {
  char buf[512];
  for (long n; (n = ReadSome(pipe_fd, buf, sizeof buf)) > 0;) into->append(buf, n);
}
void Annotate(std::string* line) { line->insert(0, "> "); }
}  // namespace logs
