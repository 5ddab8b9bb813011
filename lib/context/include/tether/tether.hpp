// The whole of libtether in one include.
#pragma once

#include "tether/channel.hpp"
#include "tether/context.hpp"
#include "tether/error.hpp"
#include "tether/scope.hpp"
#include "tether/scope_exit.hpp"
#include "tether/select.hpp"
#include "tether/signal.hpp"
#include "tether/task.hpp"
