// cache.test: a TU that includes h.hpp and calls into b.cpp.
#include "h.hpp"

void Upload();

void Step(const tether::Context& ctx) {
  Use(ctx);
  Upload();  // the cross-TU finding: b.cpp's Upload creates a root
}
