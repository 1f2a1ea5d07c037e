// SPDX-License-Identifier: Apache-2.0
#include "cpu/cpu_isa.hpp"

#include <cstdlib>

#include "cpu/transpose_tiles_avx2.hpp"
#include "cpu/transpose_tiles_avx512.hpp"

namespace xpose::detail {

const char* to_string(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::avx512:
      return "avx512";
    case CpuIsa::avx2:
      return "avx2";
    default:
      return "portable";
  }
}

bool parse_cpu_isa(const std::string& text, CpuIsa* isa) {
  for (CpuIsa candidate : {CpuIsa::portable, CpuIsa::avx2, CpuIsa::avx512})
    if (text == to_string(candidate)) {
      *isa = candidate;
      return true;
    }
  return false;
}

bool cpu_isa_supported(CpuIsa isa) {
  // Each tile set answers for itself: its file is built for its set, and it checks CPUID (with
  // __builtin_cpu_supports, which also checks that the OS saves the wide registers).
  switch (isa) {
    case CpuIsa::avx512:  // its edges are the AVX2 set's
      return avx512_tiles_available() && avx2_tiles_available();
    case CpuIsa::avx2:
      return avx2_tiles_available();
    default:
      return true;
  }
}

CpuIsa cpu_isa_capped(CpuIsa wanted) {
  for (CpuIsa isa : {CpuIsa::avx512, CpuIsa::avx2})
    if (isa <= wanted && cpu_isa_supported(isa)) return isa;
  return CpuIsa::portable;
}

CpuIsa cpu_isa_detected() { return cpu_isa_capped(CpuIsa::avx512); }

CpuIsa cpu_isa_active() {
  static const CpuIsa active = [] {
    CpuIsa wanted = CpuIsa::avx512;
    const char* text = std::getenv("XPOSE_CPU_ISA");
    if (text != nullptr && !parse_cpu_isa(text, &wanted)) wanted = CpuIsa::avx512;
    return cpu_isa_capped(wanted);
  }();
  return active;
}

}  // namespace xpose::detail
