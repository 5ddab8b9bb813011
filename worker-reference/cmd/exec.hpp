// One build through the executor, in Vela's order (vela.md §4.3/§4.4 exec):
// Create, Plan, Assemble on the timeout context; StreamBuild on the build
// context in a task owned here; ExecBuild on the timeout context;
// DestroyBuild after streaming drained, on its own cleanup deadline.
#pragma once

#include "executor/engine.hpp"
#include "tether/context.hpp"

namespace tether::worker::cmd {

// build_ctx is the build's context: cancelling it cancels the build.
// Returns when the build is destroyed; engine.Record() is then final.
void RunBuild(const Context& build_ctx, executor::Engine& engine, Duration timeout,
              Duration cleanup_timeout);

}  // namespace tether::worker::cmd
