// SPDX-License-Identifier: Apache-2.0
// The instruction sets the CPU kernels are built for, and the one this process runs. Each set has
// its own translation units compiled for it; the rest of the library is baseline code for the
// target architecture, so one binary runs on every x86-64 CPU and builds elsewhere (portable only).
#pragma once

#include <string>

namespace xpose::detail {

// Ordered: a CPU that runs one also runs those before it.
enum class CpuIsa {
  portable,  // plain C++ (any CPU, any compiler)
  avx2,      // 256-bit tiles (Haswell, Zen 1 and later)
  avx512,    // 512-bit tiles; needs AVX-512 F, BW and VBMI, and AVX2 for the edges (Ice Lake, Zen 4+)
};

const char* to_string(CpuIsa isa);

// Parses "portable", "avx2" or "avx512"; false for anything else.
bool parse_cpu_isa(const std::string& text, CpuIsa* isa);

// Whether this build has kernels for `isa` and this CPU reports every feature they need (CPUID).
bool cpu_isa_supported(CpuIsa isa);

// The best set this CPU runs.
CpuIsa cpu_isa_detected();

// The set the kernels use, chosen once per process: XPOSE_CPU_ISA (portable, avx2 or avx512) when
// it is set, capped at what the CPU supports (a set it lacks would fault); cpu_isa_detected()
// when it is unset or not one of those names.
CpuIsa cpu_isa_active();

// `wanted` if this CPU runs it, else the best set below it that it runs.
CpuIsa cpu_isa_capped(CpuIsa wanted);

}  // namespace xpose::detail
