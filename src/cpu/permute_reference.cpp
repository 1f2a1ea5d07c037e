// SPDX-License-Identifier: Apache-2.0
#include "cpu/permute_reference.hpp"

#include <array>
#include <cstdint>
#include <cstring>

namespace xpose::detail {

void permute_reference(const void* in, void* out, const PermuteProblem& p) {
  if (p.empty()) return;
  const Permutation& given = p.permutation;
  const int rank = p.rank;
  const int64_t e = p.elem_size;
  // Walk the output coordinates j in row-major order; output dim i steps the input by the stride
  // of input dim perm[i].
  std::array<int64_t, kMaxPermuteRank> size{}, in_step{}, out_step{}, j{};
  for (int i = 0; i < rank; ++i) {
    size[i] = given.dims[given.perm[i]];
    in_step[i] = given.in_strides[given.perm[i]] * e;
    out_step[i] = given.out_strides[i] * e;
  }
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  int64_t in_offset = 0, out_offset = 0;
  for (int64_t n = 0; n < p.elements; ++n) {
    std::memcpy(dst + out_offset, src + in_offset, static_cast<std::size_t>(e));
    for (int i = rank - 1; i >= 0; --i) {
      in_offset += in_step[i];
      out_offset += out_step[i];
      if (++j[i] < size[i]) break;
      in_offset -= size[i] * in_step[i];
      out_offset -= size[i] * out_step[i];
      j[i] = 0;
    }
  }
}

}  // namespace xpose::detail
