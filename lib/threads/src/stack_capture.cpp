#include "stack_capture.hpp"

#include <unwind.h>

#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>

namespace tether::threads {
namespace {

// Frame size by return address: open addressing, insert-only (a slot, once
// set, never changes, so a reader that sees its pc also sees its size).
constexpr int kMaxFrames = 64;
constexpr std::size_t kTableSize = 4096;
constexpr std::size_t kProbes = 16;
// The frame at this return address is the outermost one the unwinder finds.
constexpr std::int64_t kOutermost = INT64_MIN;

struct Entry {
  std::atomic<std::uint64_t> pc{0};
  std::atomic<std::int64_t> size{0};
};
Entry g_table[kTableSize];
std::mutex g_insert_mu;
thread_local std::uintptr_t t_stack_top = 0;

std::size_t Slot(std::uint64_t pc) { return (pc * 0x9E3779B97F4A7C15ull) >> 52; }  // 12 bits

bool Lookup(std::uint64_t pc, std::int64_t* size) {
  for (std::size_t i = 0, h = Slot(pc); i < kProbes; ++i, h = (h + 1) & (kTableSize - 1)) {
    const std::uint64_t key = g_table[h].pc.load(std::memory_order_acquire);
    if (key == pc) {
      *size = g_table[h].size.load(std::memory_order_relaxed);
      return true;
    }
    if (key == 0) return false;
  }
  return false;
}

void Insert(std::uint64_t pc, std::int64_t size) {
  if (pc == 0 || (size <= 0 && size != kOutermost)) return;
  std::lock_guard<std::mutex> lock(g_insert_mu);
  for (std::size_t i = 0, h = Slot(pc); i < kProbes; ++i, h = (h + 1) & (kTableSize - 1)) {
    const std::uint64_t key = g_table[h].pc.load(std::memory_order_relaxed);
    if (key == pc) return;
    if (key == 0) {
      g_table[h].size.store(size, std::memory_order_relaxed);
      g_table[h].pc.store(pc, std::memory_order_release);
      return;
    }
  }  // the neighbourhood is full: this pc keeps taking the unwinder
}

struct Walk {
  std::uintptr_t start_cfa = 0;
  int max = 0;  // frames wanted: one more is walked, for the last one's size
  int n = 0;
  bool started = false;
  bool cut = false;  // stopped at max + 1 frames, not at the stack's end
  std::uint64_t pcs[kMaxFrames + 1] = {};
  // libgcc's CFA of a frame context is its callee's CFA (the caller's stack
  // pointer at the call), so a frame's size is the next cfas[] minus its own.
  std::uintptr_t cfas[kMaxFrames + 1] = {};
};

_Unwind_Reason_Code Step(_Unwind_Context* ctx, void* arg) {
  auto* w = static_cast<Walk*>(arg);
  const std::uintptr_t cfa = _Unwind_GetCFA(ctx);
  if (!w->started && cfa != w->start_cfa) return _URC_NO_REASON;  // the shim's own frames
  w->started = true;
  const std::uint64_t ip = _Unwind_GetIP(ctx);
  if (ip == 0) return _URC_END_OF_STACK;  // past the outermost frame
  w->pcs[w->n] = ip;
  w->cfas[w->n] = cfa;
  if (++w->n == w->max + 1) {
    w->cut = true;
    return _URC_END_OF_STACK;
  }
  return _URC_NO_REASON;
}

int Unwind(std::uintptr_t cfa, std::uint64_t* pcs, int max) {
  Walk w;
  w.start_cfa = cfa;
  w.max = max;
  _Unwind_Backtrace(Step, &w);
  for (int i = 0; i + 1 < w.n; ++i) {
    Insert(w.pcs[i], static_cast<std::int64_t>(w.cfas[i + 1] - w.cfas[i]));
  }
  if (w.n > 0 && !w.cut) Insert(w.pcs[w.n - 1], kOutermost);
  const int n = w.n < max ? w.n : max;
  std::memcpy(pcs, w.pcs, sizeof(std::uint64_t) * static_cast<std::size_t>(n));
  return n;
}

// A walk from a signal handler: frames are skipped up to the interrupted
// one (the handler's and the signal trampoline's), then kept.
struct InterruptedWalk {
  std::uint64_t interrupted = 0;
  std::uint64_t* pcs = nullptr;
  int max = 0;
  int n = 0;
  int skipped = 0;
  bool found = false;
};

_Unwind_Reason_Code StepInterrupted(_Unwind_Context* ctx, void* arg) {
  auto* w = static_cast<InterruptedWalk*>(arg);
  const std::uint64_t ip = _Unwind_GetIP(ctx);
  if (ip == 0) return _URC_END_OF_STACK;
  if (!w->found) {
    if (ip != w->interrupted) return ++w->skipped > 16 ? _URC_END_OF_STACK : _URC_NO_REASON;
    w->found = true;
  }
  w->pcs[w->n++] = ip;
  return w->n == w->max ? _URC_END_OF_STACK : _URC_NO_REASON;
}

}  // namespace

int CaptureInterrupted(std::uint64_t pc, std::uint64_t* pcs, int max) {
  if (max <= 0) return 0;
  InterruptedWalk w;
  w.interrupted = pc;
  w.pcs = pcs;
  w.max = max;
  _Unwind_Backtrace(StepInterrupted, &w);
  if (w.found) return w.n;
  pcs[0] = pc;
  return pc != 0 ? 1 : 0;
}

void SetStackTop(std::uintptr_t top) { t_stack_top = top; }

int CaptureCallers(std::uintptr_t cfa, std::uint64_t* pcs, int max) {
  if (max > kMaxFrames) max = kMaxFrames;
  const std::uintptr_t top = t_stack_top;
  if (top != 0) {
    int n = 0;
    std::uintptr_t c = cfa;
    while (c <= top && c >= 8) {
      std::uint64_t pc;
      std::memcpy(&pc, reinterpret_cast<const void*>(c - 8), sizeof pc);
      std::int64_t size;
      if (!Lookup(pc, &size)) break;
      pcs[n++] = pc;
      if (n == max || size == kOutermost) return n;
      c += static_cast<std::uintptr_t>(size);
    }
    // Past the thread's entry frame: what lies above is the thread library's.
    if (c > top && n > 0) return n;
  }
  return Unwind(cfa, pcs, max);
}

}  // namespace tether::threads
