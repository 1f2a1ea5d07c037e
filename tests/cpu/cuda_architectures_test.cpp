// SPDX-License-Identifier: Apache-2.0
// Which GPUs a list of CUDA architectures runs on (the startup check's rule), and its message.
#include <gtest/gtest.h>

#include "cuda/architectures.hpp"

namespace {

using xpose::detail::architectures_cover;
using xpose::detail::missing_code_message;

// The default of the build: machine code for each generation, PTX of the newest.
const char* kDefault = "75-real;80-real;86-real;89-real;90-real;100-real;110-real;120";

TEST(CudaArchitectures, DefaultCoversEveryGpuTheToolkitSupports) {
  const int capabilities[][2] = {{7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0},
                                 {10, 3}, {11, 0}, {12, 0}, {12, 1}};
  for (const auto& cc : capabilities)
    EXPECT_TRUE(architectures_cover(kDefault, cc[0], cc[1])) << cc[0] << "." << cc[1];
  EXPECT_TRUE(architectures_cover(kDefault, 13, 0)) << "the PTX of 12.0 runs on later GPUs";
  EXPECT_FALSE(architectures_cover(kDefault, 7, 0)) << "Volta is older than every entry";
}

TEST(CudaArchitectures, MachineCodeRunsOnLaterMinorsOfItsMajorOnly) {
  EXPECT_TRUE(architectures_cover("90-real", 9, 0));
  EXPECT_FALSE(architectures_cover("90-real", 10, 0));
  EXPECT_TRUE(architectures_cover("80-real", 8, 6));
  EXPECT_FALSE(architectures_cover("86-real", 8, 0));
  EXPECT_FALSE(architectures_cover("100-real", 12, 0));
}

TEST(CudaArchitectures, PtxRunsOnItsGpuAndEveryLaterOne) {
  EXPECT_TRUE(architectures_cover("90-virtual", 9, 0));
  EXPECT_TRUE(architectures_cover("90-virtual", 12, 0));
  EXPECT_FALSE(architectures_cover("90-virtual", 8, 9));
  EXPECT_TRUE(architectures_cover("90", 10, 0)) << "a plain number is machine code and PTX";
}

TEST(CudaArchitectures, ArchAndFamilySpecificCodeStaysWithItsGpus) {
  EXPECT_TRUE(architectures_cover("90a-real", 9, 0));
  EXPECT_FALSE(architectures_cover("90a", 10, 0));
  EXPECT_TRUE(architectures_cover("100f", 10, 3));
  EXPECT_FALSE(architectures_cover("100f", 12, 0));
}

TEST(CudaArchitectures, EntriesItCannotReadCountAsCovering) {
  EXPECT_TRUE(architectures_cover("native", 8, 6));
  EXPECT_TRUE(architectures_cover("all-major", 8, 6));
  EXPECT_FALSE(architectures_cover("", 9, 0));
}

TEST(CudaArchitectures, MessageNamesTheGpuTheBuildAndTheFix) {
  const std::string text = missing_code_message("NVIDIA L4", 8, 9, "90-real");
  EXPECT_NE(text.find("no code for NVIDIA L4 (compute capability 8.9)"), std::string::npos) << text;
  EXPECT_NE(text.find("built for CUDA architectures 90-real"), std::string::npos) << text;
  EXPECT_NE(text.find("-DXPOSE_CUDA_ARCHITECTURES=89"), std::string::npos) << text;
}

}  // namespace
