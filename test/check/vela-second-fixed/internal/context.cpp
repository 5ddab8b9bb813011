// The worker's context factory, fixed: it derives from its caller's context.
#include "vela.hpp"

namespace vela {

tether::Context NewBuildContext(const tether::Context& parent) {
  // tether:detached(a build is not cancelled by worker shutdown or by a sibling build's error; #304)
  return tether::WithoutCancel(parent);
}

}  // namespace vela
