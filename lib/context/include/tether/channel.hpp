// tether::Channel<T> — Go's chan T: a closable multi-producer multi-consumer
// queue, buffered (capacity > 0) or unbuffered (capacity 0: a Send completes
// only when a receiver has taken the value).
//
// Contract:
//  - Send(ctx, v) returns ok once the value is queued (buffered) or taken
//    (unbuffered); Closed if the channel is or becomes closed first; ctx.Err()
//    if ctx is done first. No send blocks forever while its ctx can end
//    (Vela's unbuffered stream-request sends could: community#655).
//  - Recv(ctx) returns the next value; nullopt once the channel is closed and
//    drained, or when ctx is done (RecvErr tells which).
//  - Close() is idempotent; values already buffered are still delivered.
//  - Channel is a copyable handle: copies share one channel.
//  - A buffered channel holds its capacity's cells from its creation on, as
//    Go's make(chan T, n) does; T's move constructor must be noexcept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <source_location>
#include <vector>

#include "tether/context.hpp"
#include "tether/select.hpp"

namespace tether {

namespace detail {
// Tracer hook for Close() (defined in hooks.cpp; a no-op when tracing is off).
void OnChannelClosed(const void* channel, std::source_location loc);
}  // namespace detail

template <class T>
class Channel {
 public:
  explicit Channel(std::size_t capacity = 0);

  Error Send(const Context& ctx, T value);
  std::optional<T> Recv(const Context& ctx);
  // Like Recv; on nullopt, *err says why (Closed, Canceled, DeadlineExceeded).
  std::optional<T> Recv(const Context& ctx, Error* err);
  // Non-blocking receive: a value if one is ready now.
  std::optional<T> TryRecv();
  void Close(std::source_location loc = std::source_location::current());
  bool Closed() const;
  std::size_t capacity() const;
  std::size_t size() const;  // buffered values

  // Select::OnRecv's case: handler(std::optional<T>) gets the value, or
  // nullopt when the channel is closed and drained.
  template <class F>
  class RecvCase;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace tether

#include "tether/internal/channel_impl.hpp"  // IWYU pragma: export
