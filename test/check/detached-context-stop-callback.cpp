// REQUIRES: checker
// tether-detached-context: a root whose cancel a std::stop_callback runs when
// the reachable stop_token is stopped is linked to it, not detached.
// RUN: %check_tether %s tether-detached-context %t -- -- -std=c++20
#include <stop_token>
#include <tether/context.hpp>

void Work(const tether::Context& ctx);

// A thread bridges its std::stop_token to a libtether context: the callback
// cancels the new context when st is stopped.
void Bridged(std::stop_token st) {
  auto [ctx, cancel] = tether::WithCancel(tether::Background());
  std::stop_callback link(st, [&] { cancel(); });
  Work(ctx);
}

// The same through a result struct and a deadline on top.
void BridgedResult(std::stop_token st) {
  auto r = tether::WithTimeout(tether::Background(), std::chrono::seconds(5));
  std::stop_callback link(st, [&r] { r.cancel(); });
  Work(r.ctx);
}

// Not linked: a stop of st never reaches ctx.
void Unlinked(std::stop_token st) {
  auto [ctx, cancel] = tether::WithCancel(tether::Background());
  // CHECK: :[[@LINE-1]]:43: warning: root context 'tether::Background()' created in 'Unlinked', which can reach context 'st'
  Work(ctx);
  cancel();
}

// A stop_callback that names something else does not link the root.
void LinkedElsewhere(std::stop_token st, std::stop_source& other) {
  auto [ctx, cancel] = tether::WithCancel(tether::Background());
  // CHECK: :[[@LINE-1]]:43: warning: root context 'tether::Background()' created in 'LinkedElsewhere', which can reach context 'st'
  std::stop_callback link(st, [&other] { other.request_stop(); });
  Work(ctx);
  cancel();
}
