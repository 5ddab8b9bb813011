// `tether-worker validate [--notes] [--strict] FILE...`: prints "FILE: ok (N steps,
// M services, K stages)" per valid file, its warnings on stderr; 0 all valid, 2 some
// invalid or unreadable (each error on stderr). --notes also prints what is recorded
// but not honoured; --strict makes every warning an error.
#pragma once

#include "cmd/flags.hpp"

namespace tether::worker::cmd {

int RunValidate(int argc, char** argv);
CommandHelp ValidateHelp();

}  // namespace tether::worker::cmd
