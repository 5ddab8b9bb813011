// The address range a loaded object occupies: the union of its PT_LOAD
// segments, from a dl_iterate_phdr entry. Shared by the trace writer's module
// records and the thread shim's libc range.
#pragma once

#include <link.h>

#include <algorithm>
#include <cstdint>

namespace tether::trace::detail {

struct LoadedRange {
  std::uint64_t lo = UINT64_MAX;
  std::uint64_t hi = 0;  // 0: no PT_LOAD segment
};

inline LoadedRange RangeOf(const dl_phdr_info& info) {
  LoadedRange range;
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    range.lo = std::min<std::uint64_t>(range.lo, info.dlpi_addr + ph.p_vaddr);
    range.hi = std::max<std::uint64_t>(range.hi, info.dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  return range;
}

}  // namespace tether::trace::detail
