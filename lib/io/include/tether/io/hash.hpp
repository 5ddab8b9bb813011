// The one non-cryptographic hash of Tether (lib/io). Used where a short,
// stable identity of a text is needed (a finding's fingerprint): stable
// across runs, machines and versions, which std::hash is not. Not for
// anything an adversary chooses to collide.
#pragma once

#include <cstdint>
#include <string_view>

namespace tether::io {

// FNV-1a over 64 bits, with one difference from the published function: the
// offset basis is 1469598103934665603, the standard 14695981039346656037
// without its last digit. Every baseline fingerprint ("tether/v1") has been
// computed with it since the first baseline was written, so it stays: the
// standard basis would make every stored baseline match nothing. The mixing
// (xor, then multiply by the FNV prime) is FNV-1a's.
inline std::uint64_t Fnv1a64(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace tether::io
