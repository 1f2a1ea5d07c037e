// SPDX-License-Identifier: Apache-2.0
// The values of the distributed bench's input: element A(i, j) of a rows x cols matrix holds a
// hash of its linear index i * cols + j and the run's seed, truncated to the element size. Every
// element is thus different from its neighbours (a misplaced block cannot pass), never zero and
// never all-0xFF bytes (the poison of unwritten outputs). Host and device compute the same bits,
// so the check kernels need no copy of the input and the host can name an expected value.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define XPOSE_DIST_HD __host__ __device__
#else
#define XPOSE_DIST_HD
#endif

namespace xpose::cli::dist_encoding {

// splitmix64's finaliser: a bijection of 64-bit words whose output bits all depend on every
// input bit.
XPOSE_DIST_HD inline uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Word `part` (0, or 1 for the high half of a 16-byte element) of the value at linear index
// `index`, in the low `bytes` (1 to 8) bytes.
XPOSE_DIST_HD inline uint64_t encoded_word(uint64_t index, uint64_t seed, int part, int bytes) {
  const uint64_t mask = bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
  const uint64_t value = mix((2 * index + static_cast<uint64_t>(part)) ^ (seed * 0xD6E8FEB86659FD93ull)) & mask;
  return value == 0 || value == mask ? 0x5A5A5A5A5A5A5A5Aull & mask : value;
}

}  // namespace xpose::cli::dist_encoding
