// SPDX-License-Identifier: Apache-2.0
// Which GPUs a build's CUDA architectures run on, and what to say when the current GPU has no
// code in the build. Pure functions, without CUDA, so the CPU tests cover them.
#pragma once

#include <string>

namespace xpose::detail {

// Whether code built for `architectures` (a CMake CUDA_ARCHITECTURES list such as
// "75-real;90-real;120") runs on a GPU of compute capability major.minor. Machine code for X.Y
// runs on X.Y and later minors of major X ("90a", arch-specific, on 9.0 only); PTX for X.Y
// ("XY" or "XY-virtual") on X.Y and every later GPU, compiled by the driver at load time.
// Entries it cannot read ("native", "all") count as covering: the build knew the GPU.
bool architectures_cover(const std::string& architectures, int major, int minor);

// The error for a GPU the build has no code for: names the GPU, its compute capability and the
// build's architectures, and how to rebuild.
std::string missing_code_message(const std::string& device_name, int major, int minor,
                                 const std::string& architectures);

}  // namespace xpose::detail
