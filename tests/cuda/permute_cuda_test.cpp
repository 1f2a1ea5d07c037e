// SPDX-License-Identifier: Apache-2.0
// The GPU permute kernels ("auto" included) against the CPU reference: every permutation up to
// rank 5 on small odd dims, random permutations up to rank 8, size-1 dims, strided views, every
// element size, unaligned pointers, TTC-like shapes with whole tiles, streams, and a tensor of
// more than 2^31 elements. Each skips where no CUDA device is visible.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/permute_check.hpp"

namespace {

using xpose::Device;
using xpose::DType;
using xpose::Permutation;
using xpose::Status;

#define SKIP_WITHOUT_CUDA_DEVICE()                                                   \
  do {                                                                               \
    if (xpose::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";   \
  } while (0)

::testing::AssertionResult cuda_ok(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << cudaGetErrorString(error);
}

// A device copy of a whole PermuteBuffer, guards included.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(const xpose_test::PermuteBuffer& host) : size_(host.size()), view_offset_(host.view_offset()) {
    EXPECT_TRUE(cuda_ok(cudaMalloc(&data_, size_), "cudaMalloc"));
    if (data_) {
      EXPECT_TRUE(cuda_ok(cudaMemcpy(data_, host.data(), size_, cudaMemcpyHostToDevice), "to device"));
    }
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  bool valid() const { return data_ != nullptr; }
  unsigned char* view() const { return static_cast<unsigned char*>(data_) + view_offset_; }
  ::testing::AssertionResult copy_back(xpose_test::PermuteBuffer& host) const {
    return cuda_ok(cudaMemcpy(host.data(), data_, size_, cudaMemcpyDeviceToHost), "to host");
  }

 private:
  void* data_ = nullptr;
  std::size_t size_;
  std::size_t view_offset_;
};

// Plans `kernel` on the GPU, runs it on device copies of an index-encoded input and a poisoned
// output, and checks the whole output allocation. A named kernel that answers unsupported is
// skipped; "auto" and naive must run everything.
void expect_permutes(const std::string& kernel, const Permutation& p, DType type, std::size_t misalign_in = 0,
                     std::size_t misalign_out = 0, cudaStream_t stream = nullptr) {
  SCOPED_TRACE(kernel + " on " + xpose_test::describe(p, type) + " (misalign in " + std::to_string(misalign_in) +
               ", out " + std::to_string(misalign_out) + ")");
  xpose::Plan plan;
  const Status created = xpose::Plan::create_permute(plan, p, type, Device::cuda, {kernel, 0});
  if (created == Status::unsupported && kernel != "auto" && kernel != "naive") return;
  ASSERT_EQ(created, Status::ok) << xpose::last_error_message();
  const auto problem = xpose_test::permute_problem_for(p, type);
  const auto input = xpose_test::make_permute_input(problem, misalign_in);
  auto output = xpose_test::make_permute_output(problem, misalign_out);
  const auto expected =
      xpose_test::expected_permute(input, output, problem, xpose::permute_kernel_permutes(Device::cuda, kernel));
  const DeviceBuffer d_input(input), d_output(output);
  ASSERT_TRUE(d_input.valid() && d_output.valid());
  const Status executed = plan.execute(d_input.view(), d_output.view(), stream);
  if (executed == Status::invalid_argument && kernel != "auto" &&
      std::string(xpose::last_error_message()).find("must be aligned") != std::string::npos)
    return;  // a named kernel that runs this shape as wider elements needs aligned pointers
  ASSERT_EQ(executed, Status::ok) << xpose::last_error_message();
  ASSERT_TRUE(cuda_ok(stream ? cudaStreamSynchronize(stream) : cudaDeviceSynchronize(), "synchronize"));
  ASSERT_TRUE(d_output.copy_back(output));
  EXPECT_TRUE(xpose_test::permute_output_matches(output.data(), expected, output, problem))
      << "kernel " << plan.kernel_name();
}

std::vector<std::string> gpu_kernels() {
  std::vector<std::string> names;
  for (const auto& name : xpose::permute_kernel_names(Device::cuda))
    if (xpose::permute_kernel_permutes(Device::cuda, name)) names.push_back(name);
  return names;
}

class PermuteCudaKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(PermuteCudaKernel, EveryPermutationUpToRank5MatchesReference) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<int64_t> odd_dims{3, 5, 2, 7, 3};
  for (int rank = 1; rank <= 5; ++rank) {
    std::vector<int64_t> dims(odd_dims.begin(), odd_dims.begin() + rank);
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    int index = 0;
    do {
      expect_permutes(GetParam(), {dims, perm, {}, {}}, xpose_test::one_dtype_per_size()[(index++ + rank) % 5]);
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST_P(PermuteCudaKernel, EveryElementSizeMatchesReference) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (DType type : xpose::all_dtypes()) {
    expect_permutes(GetParam(), {{5, 3, 7}, {2, 0, 1}, {}, {}}, type);
    expect_permutes(GetParam(), {{33, 6, 65}, {2, 1, 0}, {}, {}}, type);
    expect_permutes(GetParam(), {{4, 6, 3, 2}, {0, 2, 1, 3}, {}, {}}, type);
    expect_permutes(GetParam(), {{9, 31, 30, 16}, {2, 1, 0, 3}, {}, {}}, type);
  }
}

TEST_P(PermuteCudaKernel, RandomPermutationsUpToRank8MatchReference) {
  SKIP_WITHOUT_CUDA_DEVICE();
  std::mt19937_64 rng(20261122);
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 8);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = 1 + static_cast<int64_t>(rng() % (rank > 5 ? 5 : 9));
    expect_permutes(GetParam(), {dims, xpose_test::random_perm(rank, rng), {}, {}},
                    xpose_test::one_dtype_per_size()[rng() % 5]);
  }
}

TEST_P(PermuteCudaKernel, SizeOneAndEmptyDims) {
  SKIP_WITHOUT_CUDA_DEVICE();
  expect_permutes(GetParam(), {{1, 5, 1, 3, 1}, {4, 3, 2, 1, 0}, {}, {}}, DType::f32);
  expect_permutes(GetParam(), {{1, 1, 1}, {2, 0, 1}, {}, {}}, DType::f64);
  expect_permutes(GetParam(), {{1, 70, 90, 1}, {3, 2, 0, 1}, {}, {}}, DType::c128);
  expect_permutes(GetParam(), {{}, {}, {}, {}}, DType::u16);
  expect_permutes(GetParam(), {{3, 0, 5}, {2, 1, 0}, {}, {}}, DType::f32);
}

TEST_P(PermuteCudaKernel, StridedViewsLeavePaddingUntouched) {
  SKIP_WITHOUT_CUDA_DEVICE();
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 30; ++trial) {
    const int rank = 2 + static_cast<int>(rng() % 4);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = 2 + static_cast<int64_t>(rng() % 9);
    const auto perm = xpose_test::random_perm(rank, rng);
    std::vector<int64_t> out_dims(rank);
    for (int i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
    Permutation p{dims, perm, xpose_test::padded_strides(dims, static_cast<int64_t>(rng() % 3) * 8),
                  xpose_test::padded_strides(out_dims, static_cast<int64_t>(rng() % 4))};
    if (trial % 3 == 0) p.in_strides.clear();
    if (trial % 3 == 1) p.out_strides.clear();
    expect_permutes(GetParam(), p, xpose_test::one_dtype_per_size()[trial % 5]);
  }
  expect_permutes(GetParam(), {{4, 5, 6}, {1, 2, 0}, {6, 1, 24}, {}}, DType::f32);
  expect_permutes(GetParam(), {{3, 4, 5}, {2, 1, 0}, {40, 10, 2}, {30, 6, 2}}, DType::f64);
  expect_permutes(GetParam(), {{3, 4, 5}, {1, 0, 2}, {40, 10, 2}, {}}, DType::u16);
  expect_permutes(GetParam(), {{40, 50, 60}, {0, 1, 2}, {80 * 60, 60, 1}, {}}, DType::u8);
  // Gaps under a sector between the input's inner axes (packed reads them with the elements).
  expect_permutes(GetParam(), {{4, 300, 3, 6, 4}, {1, 3, 2, 4, 0}, {27000, 90, 30, 5, 1}, {}}, DType::u8);
  expect_permutes(GetParam(), {{1500, 19, 3}, {1, 2, 0}, {84, 4, 1}, {}}, DType::f64);
  expect_permutes(GetParam(), {{40, 30}, {1, 0}, {60, 2}, {50, 1}}, DType::f16);
  expect_permutes(GetParam(), {{7, 3, 66, 27, 5}, {4, 3, 2, 1, 0}, {49140, 12285, 186, 6, 1}, {}}, DType::c128);
}

TEST_P(PermuteCudaKernel, UnalignedPointersMatchReference) {
  SKIP_WITHOUT_CUDA_DEVICE();
  // Aligned to the element but not to 16 bytes: the vector forms and widened elements step aside.
  expect_permutes(GetParam(), {{64, 65, 66}, {2, 0, 1}, {}, {}}, DType::f32, 4, 0);
  expect_permutes(GetParam(), {{64, 65, 66}, {2, 1, 0}, {}, {}}, DType::u8, 0, 3);
  expect_permutes(GetParam(), {{40, 30, 4}, {1, 0, 2}, {}, {}}, DType::f32, 4, 8);
  expect_permutes(GetParam(), {{20, 30, 16}, {1, 0, 2}, {}, {}}, DType::u8, 1, 5);
  expect_permutes(GetParam(), {{20, 30, 24}, {1, 0, 2}, {}, {}}, DType::u8, 2, 6);
}

TEST_P(PermuteCudaKernel, TtcLikeShapesMatchReference) {
  SKIP_WITHOUT_CUDA_DEVICE();
  // The TTC patterns at a few MB: whole tiles, composite rows and columns, long and short runs.
  const std::vector<Permutation> cases{{{96, 75, 96}, {2, 1, 0}, {}, {}},
                                       {{24, 30, 24, 32}, {3, 0, 2, 1}, {}, {}},
                                       {{24, 12, 16, 80}, {2, 1, 0, 3}, {}, {}},
                                       {{28, 20, 28, 4, 48}, {4, 0, 3, 2, 1}, {}, {}},
                                       {{12, 14, 16, 12, 32}, {1, 3, 2, 0, 4}, {}, {}},
                                       {{15, 15, 16, 15, 5, 32}, {1, 4, 0, 5, 3, 2}, {}, {}},
                                       {{15, 15, 32, 15, 8, 16}, {4, 1, 0, 3, 2, 5}, {}, {}},
                                       {{32, 9, 9, 9, 5, 32}, {5, 4, 3, 2, 1, 0}, {}, {}}};
  for (const Permutation& p : cases)
    for (DType type : xpose_test::one_dtype_per_size()) expect_permutes(GetParam(), p, type);
}

std::string kernel_case_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(PermuteCuda, PermuteCudaKernel, ::testing::ValuesIn(gpu_kernels()), kernel_case_name);

TEST(PermuteCuda, MemcpyBaselineCopiesDenseBytes) {
  SKIP_WITHOUT_CUDA_DEVICE();
  expect_permutes("memcpy", {{50, 60, 70}, {2, 0, 1}, {}, {}}, DType::f32);
}

// Plan::describe() states the launch chosen at plan time: the 2D tile kernel's shape and walk on
// this GPU, the N-D kernels' tile or box, a 2D route's problem, the fallback of a widened layout.
TEST(PermuteCuda, DescribeStatesTheLaunch) {
  SKIP_WITHOUT_CUDA_DEVICE();
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, {8192, 8192}, DType::f32, Device::cuda), Status::ok);
  EXPECT_EQ(plan.describe().rfind("tile: aligned", 0), 0u) << plan.describe();  // aligned_device on some GPUs
  EXPECT_NE(plan.describe().find(" threads, "), std::string::npos) << plan.describe();
  const Permutation short_runs{{38, 75, 19, 14, 158}, {1, 0, 4, 2, 3}, {}, {}};
  ASSERT_EQ(xpose::Plan::create_permute(plan, short_runs, DType::f16, Device::cuda, {"tiled", 0}), Status::ok);
  EXPECT_EQ(plan.describe(),
            "tiled: tile 64x128 (rows 266 over 1 axis, cols 158 over 1 axis), 28500 tiles, loads shifted, stores "
            "shifted");
  ASSERT_EQ(xpose::Plan::create_permute(plan, short_runs, DType::f16, Device::cuda, {"packed", 0}), Status::ok);
  EXPECT_EQ(plan.describe().rfind("packed: box ", 0), 0u) << plan.describe();
  ASSERT_EQ(xpose::Plan::create_permute(plan, {{4, 300, 500}, {0, 2, 1}, {}, {}}, DType::f32, Device::cuda),
            Status::ok);
  EXPECT_EQ(plan.describe().rfind(std::string(plan.kernel_name()) + ": as 300x500 batch 4", 0), 0u)
      << plan.describe();
  // Runs of 4 u8 that stay innermost, widened to 4-byte elements: the plan names the fallback for
  // pointers off 4 bytes.
  ASSERT_EQ(xpose::Plan::create_permute(plan, {{64, 48, 4}, {1, 0, 2}, {}, {}}, DType::u8, Device::cuda),
            Status::ok);
  EXPECT_NE(plan.describe().find("; pointers off 4 bytes: gather: "), std::string::npos) << plan.describe();
}

TEST(PermuteCuda, RunsOnAStream) {
  SKIP_WITHOUT_CUDA_DEVICE();
  cudaStream_t stream = nullptr;
  ASSERT_TRUE(cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate"));
  expect_permutes("auto", {{64, 48, 80}, {1, 2, 0}, {}, {}}, DType::f32, 0, 0, stream);
  expect_permutes("auto", {{64, 48, 80}, {1, 0, 2}, {}, {}}, DType::u8, 0, 0, stream);
  cudaStreamDestroy(stream);
}

TEST(PermuteCuda, HostPointersAreRejectedAndTheOutputUntouched) {
  SKIP_WITHOUT_CUDA_DEVICE();
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create_permute(plan, {{4, 5, 6}, {2, 0, 1}, {}, {}}, DType::f32, Device::cuda), Status::ok);
  std::vector<float> in(120, 1.0f);
  std::vector<unsigned char> out(120 * sizeof(float), xpose_test::kPermutePoison);
  EXPECT_EQ(plan.execute(in.data(), out.data()), Status::invalid_argument);
  EXPECT_NE(std::string(xpose::last_error_message()).find("host memory"), std::string::npos)
      << xpose::last_error_message();
  EXPECT_TRUE(xpose_test::all_poison(out.data(), out.size()));
}

TEST(PermuteCuda, MisalignedElementsAreRejected) {
  SKIP_WITHOUT_CUDA_DEVICE();
  void* buffer = nullptr;
  ASSERT_TRUE(cuda_ok(cudaMalloc(&buffer, 4096), "cudaMalloc"));
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create_permute(plan, {{4, 5, 6}, {2, 0, 1}, {}, {}}, DType::f32, Device::cuda), Status::ok);
  auto* bytes = static_cast<unsigned char*>(buffer);
  EXPECT_EQ(plan.execute(bytes + 2, bytes + 2048), Status::invalid_argument);
  EXPECT_NE(std::string(xpose::last_error_message()).find("not aligned to the element size"), std::string::npos);
  cudaFree(buffer);
}

// Runs off 16 bytes (strides off a multiple of 16 bytes, strided views, pointers off 16 bytes):
// the tiled kernel's shifted loads and stores, every element size, odd extents.
TEST(PermuteCuda, TiledShiftedFormsMatchReference) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<Permutation> cases{{{7, 65, 59, 7}, {0, 3, 2, 1}, {}, {}},
                                       {{2, 4, 4, 23, 2, 3, 31, 13}, {1, 5, 3, 0, 4, 7, 6, 2}, {}, {}},
                                       {{6, 11, 3, 11, 9, 13, 3, 4}, {0, 7, 2, 1, 4, 5, 3, 6}, {}, {}},
                                       {{37, 41}, {1, 0}, {}, {}},
                                       {{3, 129, 131}, {0, 2, 1}, {}, {}},
                                       {{300, 5, 3}, {1, 2, 0}, {}, {}},
                                       {{15, 63, 4, 89}, {3, 1, 0, 2}, {27216, 432, 108, 1}, {}},
                                       {{75, 29, 2, 7, 29}, {4, 0, 3, 1, 2}, {16000, 544, 272, 34, 1}, {}},
                                       {{313, 42, 3}, {1, 2, 0}, {168, 4, 1}, {}},
                                       {{9, 50, 70}, {0, 2, 1}, {50 * 73, 73, 1}, {3600, 51, 1}}};
  for (const Permutation& p : cases) {
    for (DType type : xpose_test::one_dtype_per_size()) {
      const std::size_t e = xpose::size_of(type);
      expect_permutes("tiled", p, type);
      expect_permutes("tiled", p, type, e % 16, 3 * e % 16);
      expect_permutes("auto", p, type, 16 - e % 16, 0);
    }
  }
}

// The tiled kernel's walk in groups of column tiles (kTiledGroupCols), the last group narrower, over
// several row tiles and batches: odd extents (vectors, shifted forms, edge tiles), tiny tiles
// (element forms), a padded input view, size-1 dims, every element size, pointers off 16 bytes.
TEST(PermuteCuda, TiledWalkInGroupsMatchesReference) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<Permutation> cases{{{3, 200, 1100}, {0, 2, 1}, {}, {}},
                                       {{2, 150, 7, 700}, {0, 3, 2, 1}, {}, {}},
                                       {{20011, 3, 5}, {0, 2, 1}, {}, {}},
                                       {{3, 101, 7, 65, 9}, {2, 4, 0, 3, 1}, {}, {}},
                                       {{700, 40, 35}, {0, 2, 1}, {40 * 37, 37, 1}, {}},
                                       {{1, 900, 1, 29, 53}, {2, 0, 4, 3, 1}, {}, {}}};
  for (const Permutation& p : cases)
    for (DType type : xpose_test::one_dtype_per_size()) {
      const std::size_t e = xpose::size_of(type);
      expect_permutes("tiled", p, type);
      expect_permutes("tiled", p, type, e % 16, 3 * e % 16);
    }
}

// Short axes on both sides (the packed kernel's layouts): "auto" against the reference, with
// pointers off the load and store words.
TEST(PermuteCuda, ShortAxesMatchReference) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<Permutation> cases{{{6, 9, 20, 37, 6, 6, 3}, {4, 3, 0, 1, 2, 6, 5}, {}, {}},
                                       {{5, 31, 6, 3, 99, 5, 25}, {4, 5, 3, 0, 2, 1, 6}, {}, {}},
                                       {{13, 4, 3, 6, 3, 46, 14, 7}, {4, 0, 1, 5, 6, 3, 7, 2}, {}, {}},
                                       {{5, 40, 14, 21, 22, 5, 2, 2}, {6, 7, 3, 1, 0, 5, 4, 2}, {}, {}},
                                       {{3, 30542, 6, 14, 4}, {0, 3, 2, 1, 4}, {}, {}}};
  for (const Permutation& p : cases)
    for (DType type : xpose_test::one_dtype_per_size()) {
      const std::size_t e = xpose::size_of(type);
      expect_permutes("auto", p, type);
      expect_permutes("auto", p, type, e % 16, 3 * e % 16);
    }
}

// Input and output views that end exactly where their allocations end, so that an aligned
// 16-byte access past a view's last element is an out-of-bounds access (compute-sanitizer
// memcheck reports it); the input view also starts off 16 bytes.
void expect_permutes_in_exact_allocations(const std::string& kernel, const Permutation& p, DType type,
                                          std::size_t misalign_in) {
  SCOPED_TRACE(kernel + " on " + xpose_test::describe(p, type) + " in exact allocations (misalign in " +
               std::to_string(misalign_in) + ")");
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create_permute(plan, p, type, Device::cuda, {kernel, 0}), Status::ok)
      << xpose::last_error_message();
  const auto problem = xpose_test::permute_problem_for(p, type);
  const auto input = xpose_test::make_permute_input(problem);
  auto output = xpose_test::make_permute_output(problem);
  const auto expected = xpose_test::expected_permute(input, output, problem);
  const std::size_t in_bytes = static_cast<std::size_t>(problem.input_extent) * problem.elem_size;
  const std::size_t out_bytes = static_cast<std::size_t>(problem.output_extent) * problem.elem_size;
  unsigned char *d_in = nullptr, *d_out = nullptr;
  ASSERT_TRUE(cuda_ok(cudaMalloc(&d_in, misalign_in + in_bytes), "cudaMalloc"));
  ASSERT_TRUE(cuda_ok(cudaMalloc(&d_out, out_bytes), "cudaMalloc"));
  EXPECT_TRUE(cuda_ok(cudaMemcpy(d_in + misalign_in, input.view(), in_bytes, cudaMemcpyHostToDevice), "to device"));
  EXPECT_TRUE(cuda_ok(cudaMemcpy(d_out, output.view(), out_bytes, cudaMemcpyHostToDevice), "to device"));
  EXPECT_EQ(plan.execute(d_in + misalign_in, d_out), Status::ok) << xpose::last_error_message();
  EXPECT_TRUE(cuda_ok(cudaDeviceSynchronize(), "synchronize"));
  EXPECT_TRUE(cuda_ok(cudaMemcpy(output.view(), d_out, out_bytes, cudaMemcpyDeviceToHost), "to host"));
  EXPECT_TRUE(xpose_test::permute_output_matches(output.data(), expected, output, problem))
      << "kernel " << plan.kernel_name();
  cudaFree(d_in);
  cudaFree(d_out);
}

TEST(PermuteCuda, TiledAndPackedViewsEndingAtTheirAllocationStayInside) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<Permutation> cases{{{7, 65, 59, 7}, {0, 3, 2, 1}, {}, {}},
                                       {{5, 33, 47}, {0, 2, 1}, {}, {}},
                                       {{41, 37}, {1, 0}, {}, {}},
                                       {{15, 63, 4, 89}, {3, 1, 0, 2}, {27216, 432, 108, 1}, {}},
                                       {{313, 42, 3}, {1, 2, 0}, {168, 4, 1}, {}}};
  for (const Permutation& p : cases)
    for (DType type : xpose_test::one_dtype_per_size())
      for (std::size_t misalign : {std::size_t{0}, xpose::size_of(type) % 16})
        for (const char* kernel : {"tiled", "packed", "auto"})
          expect_permutes_in_exact_allocations(kernel, p, type, misalign);
}

// Long runs that stay innermost, of an odd length or at odd pitches (gather's shifted 16-byte
// vectors, GatherParams::shifted): runs of 256 bytes up to several KiB, batched over one and two
// axes, strided input and output, pointers off 16 bytes on either side by different amounts (the
// input and output vectors then split at different bytes), and views ending at their allocations.
TEST(PermuteCuda, GatherShiftedVectorsMatchReference) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<Permutation> cases{{{29, 14, 301}, {1, 0, 2}, {}, {}},
                                       {{5, 7, 1001}, {1, 0, 2}, {7 * 1003 + 5, 1003, 1}, {}},
                                       {{3, 4, 5, 263}, {2, 0, 1, 3}, {}, {}},
                                       {{9, 11, 256}, {1, 0, 2}, {11 * 257, 257, 1}, {}},
                                       {{6, 5, 129}, {1, 0, 2}, {}, {6 * 131 + 1, 131, 1}},
                                       {{7, 19, 4249}, {1, 0, 2}, {19 * 4426 + 1, 4426, 1}, {}}};
  for (const Permutation& p : cases)
    for (DType type : {DType::u8, DType::u16, DType::f32}) {
      for (const auto& [in, out] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {1, 0}, {0, 3}, {5, 2}, {15, 7}}) {
        expect_permutes("gather", p, type, in * xpose::size_of(type) % 16, out * xpose::size_of(type) % 16);
        expect_permutes("auto", p, type, in * xpose::size_of(type) % 16, out * xpose::size_of(type) % 16);
      }
      for (std::size_t misalign : {std::size_t{0}, std::size_t{1}})
        expect_permutes_in_exact_allocations("gather", p, type, misalign * xpose::size_of(type));
    }
}

// Round trip through a permutation and its inverse, plus samples against the definition: index
// arithmetic past 2^31 elements and 2^32 bytes (64-bit offsets, grids clamped to their limits).
TEST(PermuteCuda, MoreThan2To31ElementsRoundTrip) {
  SKIP_WITHOUT_CUDA_DEVICE();
  if (std::getenv("XPOSE_TEST_SMALL")) GTEST_SKIP() << "XPOSE_TEST_SMALL: large tensors skipped";
  // (3, 33000, 22000) -> (22000, 33000, 3): 2.18e9 elements of u16, 4.4 GB each way.
  const std::vector<int64_t> dims{3, 33000, 22000}, reversed{22000, 33000, 3};
  const std::vector<int> perm{2, 1, 0};
  const int64_t elements = dims[0] * dims[1] * dims[2];
  const size_t bytes = static_cast<size_t>(elements) * 2;
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_TRUE(cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
  if (free_bytes < 3 * bytes + (size_t{1} << 30)) GTEST_SKIP() << "not enough GPU memory";
  std::vector<uint16_t> host(static_cast<size_t>(elements));
  for (int64_t k = 0; k < elements; ++k) host[k] = static_cast<uint16_t>((k * 2654435761u) >> 7);
  void *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_TRUE(cuda_ok(cudaMalloc(&a, bytes), "cudaMalloc"));
  ASSERT_TRUE(cuda_ok(cudaMalloc(&b, bytes), "cudaMalloc"));
  ASSERT_TRUE(cuda_ok(cudaMalloc(&c, bytes), "cudaMalloc"));
  ASSERT_TRUE(cuda_ok(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice), "to device"));
  std::vector<uint16_t> back(static_cast<size_t>(elements));
  for (const char* kernel : {"auto", "tiled", "packed", "naive"}) {
    SCOPED_TRACE(kernel);
    xpose::Plan forward, inverse;
    ASSERT_EQ(xpose::Plan::create_permute(forward, {dims, perm, {}, {}}, DType::u16, Device::cuda, {kernel, 0}),
              Status::ok);
    ASSERT_EQ(xpose::Plan::create_permute(inverse, {reversed, perm, {}, {}}, DType::u16, Device::cuda, {kernel, 0}),
              Status::ok);
    ASSERT_TRUE(cuda_ok(cudaMemset(b, 0xFF, bytes), "cudaMemset"));
    ASSERT_TRUE(cuda_ok(cudaMemset(c, 0xFF, bytes), "cudaMemset"));
    ASSERT_EQ(forward.execute(a, b), Status::ok) << xpose::last_error_message();
    ASSERT_EQ(inverse.execute(b, c), Status::ok) << xpose::last_error_message();
    ASSERT_TRUE(cuda_ok(cudaDeviceSynchronize(), "synchronize"));
    // Samples of b against the definition: b[j0, j1, j2] = a[j2, j1, j0].
    std::mt19937_64 rng(1);
    for (int s = 0; s < 2000; ++s) {
      const int64_t j0 = rng() % reversed[0], j1 = rng() % reversed[1], j2 = rng() % reversed[2];
      const int64_t at = (j0 * reversed[1] + j1) * reversed[2] + j2;
      uint16_t value = 0;
      ASSERT_TRUE(cuda_ok(cudaMemcpy(&value, static_cast<uint16_t*>(b) + at, 2, cudaMemcpyDeviceToHost), "sample"));
      ASSERT_EQ(value, host[static_cast<size_t>((j2 * dims[1] + j1) * dims[2] + j0)])
          << "at (" << j0 << ", " << j1 << ", " << j2 << ")";
    }
    ASSERT_TRUE(cuda_ok(cudaMemcpy(back.data(), c, bytes, cudaMemcpyDeviceToHost), "to host"));
    EXPECT_TRUE(back == host) << "the round trip changed the tensor";
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

TEST(PermuteCuda, PlanCreationForRank6IsFast) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Permutation p{{15, 15, 32, 15, 15, 32}, {1, 4, 0, 5, 3, 2}, {}, {}};
  std::vector<double> micros;
  for (int k = 0; k < 200; ++k) {
    xpose::Plan plan;
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(xpose::Plan::create_permute(plan, p, DType::f64, Device::cuda), Status::ok);
    micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(micros.begin(), micros.end());
  std::printf("[ PERF     ] GPU plan creation, rank 6: median %.2f us, min %.2f us\n", micros[micros.size() / 2],
              micros[0]);
  EXPECT_LT(micros[micros.size() / 2], 50.0);
}

}  // namespace
