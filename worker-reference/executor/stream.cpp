// Log streaming: StreamBuild (the one consumer of the stream-request
// channel, and the one owner of every stream task) and StreamStep /
// StreamService (one container's output into its LogWriter).
#include "executor/engine.hpp"
#include "tether/select.hpp"
#include "tether/task.hpp"

namespace tether::worker::executor {

namespace {
constexpr std::size_t kReadChunk = 1 << 20;
}  // namespace

// ctx is the build context (not the build's timeout context): streaming is
// not subject to the build timeout, so the output of a step killed by the
// timeout is still captured to its end.
Error Engine::StreamBuild(const Context& ctx) {
  // tether:detached(the stream tasks must drain the output of a cancelled or timed-out build after
  // ctx is done; they are cancelled below, at most --log-streaming-timeout after the build ended
  // (or by Kill), and joined before StreamBuild returns)
  auto [stream_ctx, cancel_streams] = WithCancel(WithoutCancel(ctx));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (killed_) cancel_streams();
    cancel_streams_ = cancel_streams;
  }
  auto [streams, group_ctx] = TaskGroup::WithContext(stream_ctx);

  auto start = [&](StreamRequest request) {
    streams.Go(std::string(ContainerKindName(request.kind)) + " " + request.container->spec.name,
               [task_ctx = group_ctx, stream = std::move(request.stream),
                container = request.container] { return stream(task_ctx, *container); });
  };

  // Phase 1: until ExecBuild closes the channel or the build is cancelled.
  bool closed = false;
  while (!closed) {
    Error err;
    std::optional<StreamRequest> request = requests_.Recv(ctx, &err);
    if (request) {
      start(std::move(*request));
    } else {
      closed = err.Is(ErrorCode::kClosed);
      if (!closed) break;  // ctx done: ExecBuild is stopping; drain below
    }
  }

  // Phase 2: the build ended (its services and detached steps were stopped
  // by ExecBuild). Streams get --log-streaming-timeout to reach end-of-file.
  auto [drain_ctx, cancel_drain] = WithTimeout(stream_ctx, config_.log_streaming_timeout);
  std::function<bool()> stop_deadline =
      AfterFunc(drain_ctx, [cancel_streams] { cancel_streams(); });
  while (!closed) {  // requests sent while ExecBuild wound down
    Error err;
    std::optional<StreamRequest> request = requests_.Recv(drain_ctx, &err);
    if (!request) break;
    start(std::move(*request));
  }
  Error result = streams.Wait();
  stop_deadline();
  cancel_drain();
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancel_streams_ = CancelFunc();
  }
  cancel_streams();
  return result;
}

void Engine::Kill() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    killed_ = true;
    cancel_streams_();  // a default CancelFunc does nothing
  }
  runtime_->KillNow();
}

Error Engine::Stream(const Context& ctx, ContainerState& c) {
  std::unique_ptr<runtime::LogTail> tail;
  if (Error err = runtime_->TailContainer(ctx, c.spec.name, &tail); !err.ok()) {
    c.log->Note("[tether-worker] cannot tail the output: " + err.message());
    return Error();  // a log problem never fails the build
  }
  std::unique_ptr<char[]> chunk(new char[kReadChunk]);  // not zero-filled per read
  for (;;) {
    std::size_t n = 0;
    Error err = tail->Read(ctx, chunk.get(), kReadChunk, &n);
    if (n > 0) c.log->Write(std::string_view(chunk.get(), n));
    if (err.ok()) continue;
    if (err.Is(ErrorCode::kClosed)) {
      std::lock_guard<std::mutex> lock(mu_);
      c.output_ended = WallClock::now();
    }
    if (err.IsContextError()) {
      bool killed;
      {
        std::lock_guard<std::mutex> lock(mu_);
        killed = killed_;
      }
      c.log->Note(
          killed ? "[tether-worker] log streaming stopped: the worker was told to stop at once"
                 : "[tether-worker] log streaming stopped: --log-streaming-timeout passed after "
                   "the build ended (a process that left the step still holds its output)");
    } else if (!err.IsContextError() && !err.Is(ErrorCode::kClosed)) {
      c.log->Note("[tether-worker] log read error: " + err.message());
    }
    break;
  }
  c.log->Close();
  ShowResultWhenDone(c, /*ended=*/false, /*streamed=*/true);
  return Error();
}

Error Engine::StreamStep(const Context& ctx, ContainerState& step) { return Stream(ctx, step); }

Error Engine::StreamService(const Context& ctx, ContainerState& service) {
  return Stream(ctx, service);
}

}  // namespace tether::worker::executor
