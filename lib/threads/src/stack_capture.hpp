// The return addresses above a call into the shim (pthread_create, a scope's
// begin), cheaply enough to take at every thread creation.
//
// glibc's backtrace() runs libgcc's DWARF unwinder over every frame, about
// 2,700 instructions a frame: more than the rest of tracing a thread. Here
// the unwinder runs once per distinct return address: each frame it walks
// teaches a table the frame's size at that return address (the distance
// from its callee's CFA to its own), and later walks through known return
// addresses read each caller's return address straight off the stack. A
// walk that meets an unknown return address (a new call path, a frame whose
// size varies: alloca, stack realignment) falls back to the unwinder, so the
// result is the unwinder's whenever the frames have fixed sizes.
#pragma once

#include <cstdint>

namespace tether::threads {

// Fills pcs with up to max return addresses, innermost first, starting with
// the return address of the function whose CFA is cfa (the caller of that
// function is pcs[0]); returns how many.
int CaptureCallers(std::uintptr_t cfa, std::uint64_t* pcs, int max);

// From a signal handler: fills pcs with up to max addresses of the code the
// signal interrupted, innermost first, starting with pc (the interrupted
// instruction); the handler's own frames are left out. Async-signal-safe as
// far as libgcc's unwinder is (glibc's _dl_find_object: no lock); it learns
// no frame sizes, as the table's insert takes a lock. Returns how many
// (1, pc alone, when the unwinder cannot step through the signal frame).
int CaptureInterrupted(std::uint64_t pc, std::uint64_t* pcs, int max);

// The highest stack address the calling thread's fast walks may read (the
// thread's entry frame; the main thread's initial stack pointer). Until it
// is set, the thread's walks all take the unwinder.
void SetStackTop(std::uintptr_t top);

}  // namespace tether::threads
