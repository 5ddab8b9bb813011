// Durations as Go writes and reads them ("30m", "2s", "500ms", "1h30m0s"),
// so every Tether command line (tether-worker's timeouts, tether trace's
// --grace, tether report's --grace) and every report speaks one dialect.
#pragma once

#include <string>
#include <string_view>

#include "tether/context.hpp"
#include "tether/error.hpp"

namespace tether {

// Go's time.ParseDuration: a sequence of decimal numbers, each with a unit
// (ns, us, µs, ms, s, m, h), optionally signed: "300ms", "-1.5h", "2h45m";
// "0" needs no unit. Error: kInvalidArgument, naming the text and the problem.
Error ParseDuration(std::string_view text, Duration* out);

// Go's Duration.String(): "1h30m0s", "1.5s", "300ms", "2µs", "0s".
std::string FormatDuration(Duration d);

}  // namespace tether
