// cache.test: the callee, in its own TU.
#include <tether/context.hpp>

void Use(const tether::Context& ctx);

void Upload() { Use(tether::Background()); }
