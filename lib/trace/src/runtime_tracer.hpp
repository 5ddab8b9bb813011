// RuntimeTracer: the one hooks::Tracer of lib/trace. It forwards each hook
// to the trace file (FileSink) and/or the live-task table (LiveTable),
// whichever are on. Both are attached once and never detached, so the hot
// path reads two pointers and branches. The instance has a cache line to
// itself (it is on the heap, where a neighbour could be anything a task
// writes: a std::function of a spawn, a string), so those reads never miss
// because another thread wrote beside them.
#pragma once

#include <atomic>

#include "live_table.hpp"
#include "tether/hooks.hpp"
#include "tether/trace_writer/file_sink.hpp"

namespace tether::trace::detail {

class alignas(64) RuntimeTracer final : public hooks::Tracer {
 public:
  // The process's instance (never destroyed).
  static RuntimeTracer& Get();

  // Installs this tracer unless it already is; fails if another one is.
  Error EnsureInstalled();
  void AttachFile(FileSink* sink) { file_.store(sink, std::memory_order_release); }
  void AttachLive(LiveTable* live) { live_.store(live, std::memory_order_release); }
  FileSink* file() const { return file_.load(std::memory_order_acquire); }
  LiveTable* live() const { return live_.load(std::memory_order_acquire); }

  void ContextCreated(std::uint64_t ctx, std::uint64_t parent, hooks::ContextKind kind,
                      std::uint64_t scope, const std::source_location& loc) override;
  void ContextDone(std::uint64_t ctx, ErrorCode why) override;
  void TaskSpawned(std::uint64_t task, std::uint64_t ctx, std::uint64_t group, std::uint64_t scope,
                   std::uint64_t detached_from, std::string_view name,
                   const std::source_location& loc) override;
  void TaskStarted(std::uint64_t task) override;
  void TaskEnded(std::uint64_t task, ErrorCode result) override;
  void GroupCreated(std::uint64_t group, std::uint64_t ctx,
                    const std::source_location& loc) override;
  void GroupWaitBegin(std::uint64_t group, const std::source_location& loc) override;
  void GroupWaitEnd(std::uint64_t group, ErrorCode result) override;
  void GroupDestroyedUnwaited(std::uint64_t group, std::uint64_t running_tasks) override;
  void ScopeBegin(std::uint64_t scope, std::uint64_t ctx, std::string_view name,
                  const std::source_location& loc) override;
  void ScopeEnd(std::uint64_t scope) override;
  void ChannelClosed(std::uint64_t channel, const std::source_location& loc) override;

 private:
  std::atomic<FileSink*> file_{nullptr};
  std::atomic<LiveTable*> live_{nullptr};
};

}  // namespace tether::trace::detail
