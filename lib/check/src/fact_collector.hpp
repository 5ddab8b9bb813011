// Gathers the per-function facts of a parsed TU (facts.hpp: what each
// function receives, calls, blocks on and which roots it creates) for the
// cross-TU phase (Check::Finish) and the static graph.
#pragma once

#include "check_base.hpp"

namespace tether::check {

// Adds the facts of every function defined outside system headers to tu.facts.
void CollectFacts(TuContext& tu, clang::ASTContext& ctx);

}  // namespace tether::check
