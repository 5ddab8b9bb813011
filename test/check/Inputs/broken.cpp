// A translation unit that does not parse.
#include <tether/context.hpp>

void Broken(const tether::Context& ctx) {
  undeclared_function(ctx);
}
