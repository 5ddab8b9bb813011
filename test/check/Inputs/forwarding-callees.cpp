// Callees for context-not-forwarded.cpp, in their own translation unit: the
// transitive form needs facts from every TU before it can decide.
#include <tether/context.hpp>

void Use(const tether::Context& ctx);

void Upload() { Use(tether::Background()); }  // takes no context, creates a root
void Finish() { Upload(); }                   // reaches one (depth 2)
void Level3() { Finish(); }                   // depth 3
void Level4() { Level3(); }                   // depth 4: beyond the default cap

void Deliberate() {
  // tether:detached(the final status must be recorded even after the timeout)
  Use(tether::Background());
}
void Pure() {}
