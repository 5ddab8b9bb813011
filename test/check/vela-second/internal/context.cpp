// The worker's context factories (in Go: inline context.Background() calls).
#include "vela.hpp"

namespace vela {

tether::Context NewBuildContext() { return tether::Background(); }

tether::Context NoTimeout() { return tether::Background(); }

}  // namespace vela
