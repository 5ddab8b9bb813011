// cache.test: a header of a.cpp with a finding of its own.
#pragma once
#include <tether/context.hpp>
#include <tether/task.hpp>

void Use(const tether::Context& ctx);

inline void Pump(const tether::Context& ctx) { tether::Go(ctx, [] {}); }
