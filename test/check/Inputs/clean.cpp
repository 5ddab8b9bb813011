// A translation unit with nothing to report.
#include <tether/context.hpp>

void Use(const tether::Context& ctx);
void Forward(const tether::Context& ctx) { Use(ctx); }
