// executor/linux/api.go (newest, api.go:168): still no justifying comment.
#include "vela.hpp"

namespace vela::linux_executor {

tether::Error Client::CancelBuild() { return DestroyBuild(tether::Background()); }

}  // namespace vela::linux_executor
