// SPDX-License-Identifier: Apache-2.0
// Property tests for the GPU kernels: the random problems of the CPU property tests
// (common/random_problems.hpp) on every transposing and every permuting CUDA kernel, "auto"
// included, each compared with the CPU reference. Every case copies its whole host allocation,
// guards included, into one device arena allocated once per test, runs on a created stream and
// copies the output allocation back, so the check sees every byte a kernel could have written
// around the view. Views start at random element-aligned offsets, so a quarter of the cases are
// not 16-byte aligned.
//
// XPOSE_TEST_SEED (default kDefaultPropertySeed) and XPOSE_TEST_CASES override seed and count;
// XPOSE_TEST_SMALL=1 (compute-sanitizer runs) runs a tenth of the cases. A failure prints the
// seed, the case number, the kernel and the problem.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "common/permute_check.hpp"
#include "common/random_problems.hpp"
#include "cuda/tuning.hpp"
#include "cuda_check.hpp"

namespace {

using xpose::Device;
using xpose::Status;

// Cases per kernel: "auto" is what users run; the named kernels get fewer each.
constexpr uint64_t kAutoCases = 3000;
constexpr uint64_t kNamedKernelCases = 1000;
constexpr int64_t kMaxPermuteElements = int64_t{1} << 15;
// Larger than any case: a 300 x 319 ld x 4 batch x 16-byte 2D case with guards is 6.2 MB, a
// permutation at most 4 x 2^15 elements x 16 bytes.
constexpr std::size_t kRegionBytes = std::size_t{8} << 20;

uint64_t cases_for(const std::string& kernel) {
  const uint64_t fallback = kernel == "auto" ? kAutoCases : kNamedKernelCases;
  const uint64_t cases = xpose_test::env_or("XPOSE_TEST_CASES", fallback);
  if (xpose_test::env_or("XPOSE_TEST_SMALL", 0) != 0 && cases >= 10) return cases / 10;
  return cases;
}

// One device allocation for a whole test: an input region and an output region, and the
// stream every case runs on.
class DeviceArena {
 public:
  explicit DeviceArena(std::size_t region_bytes = kRegionBytes) : region_bytes_(region_bytes) {
    EXPECT_TRUE(xpose_test::cuda_ok(cudaMalloc(&base_, 2 * region_bytes_), "cudaMalloc"));
    EXPECT_TRUE(xpose_test::cuda_ok(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                                    "cudaStreamCreateWithFlags"));
  }
  ~DeviceArena() {
    cudaStreamDestroy(stream_);
    cudaFree(base_);
  }
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  bool valid() const { return base_ != nullptr && stream_ != nullptr; }
  cudaStream_t stream() const { return stream_; }
  unsigned char* input() const { return static_cast<unsigned char*>(base_); }
  unsigned char* output() const { return static_cast<unsigned char*>(base_) + region_bytes_; }

  // Copies whole host allocations (guards included) to the regions' starts, which are 256-byte
  // aligned, so each view keeps its misalignment.
  ::testing::AssertionResult upload(const unsigned char* in, std::size_t in_bytes, const unsigned char* out,
                                    std::size_t out_bytes) const {
    if (in_bytes > region_bytes_ || out_bytes > region_bytes_)
      return ::testing::AssertionFailure() << "a case of " << in_bytes << " + " << out_bytes
                                           << " bytes does not fit the arena's regions";
    if (auto r = xpose_test::cuda_ok(cudaMemcpyAsync(input(), in, in_bytes, cudaMemcpyHostToDevice, stream_),
                                     "cudaMemcpyAsync input");
        !r)
      return r;
    return xpose_test::cuda_ok(cudaMemcpyAsync(output(), out, out_bytes, cudaMemcpyHostToDevice, stream_),
                               "cudaMemcpyAsync output");
  }
  // Copies the output region back over the whole host allocation and waits.
  ::testing::AssertionResult download(unsigned char* out, std::size_t out_bytes) const {
    if (auto r = xpose_test::cuda_ok(cudaMemcpyAsync(out, output(), out_bytes, cudaMemcpyDeviceToHost, stream_),
                                     "cudaMemcpyAsync back");
        !r)
      return r;
    return xpose_test::cuda_ok(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  // Uploads a case's whole buffers, executes `plan` on their views and copies the output back.
  template <typename Buffer>
  ::testing::AssertionResult execute(const xpose::Plan& plan, const Buffer& in, Buffer& out) const {
    if (auto r = upload(in.data(), in.size(), out.data(), out.size()); !r) return r;
    if (plan.execute(input() + in.view_offset(), output() + out.view_offset(), stream_) != Status::ok)
      return ::testing::AssertionFailure() << "execute: " << xpose::last_error_message();
    return download(out.data(), out.size());
  }

 private:
  std::size_t region_bytes_;
  void* base_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

// "auto: 3000 of 3000 random problems ran, 2.1 s" on stdout, for logs and docs/reliability.md.
void report(const char* what, const std::string& kernel, uint64_t ran, uint64_t cases,
            std::chrono::steady_clock::time_point start) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ CASES    ] %s %s: %llu of %llu random problems ran, %.2f s\n", what, kernel.c_str(),
              static_cast<unsigned long long>(ran), static_cast<unsigned long long>(cases), seconds);
}

// ---------------------------------------------------------------------------------------------
// 2D transposes

class RandomTransposesCuda : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { XPOSE_SKIP_WITHOUT_CUDA_DEVICE(); }
};

TEST_P(RandomTransposesCuda, MatchReference) {
  const std::string kernel = GetParam();
  const uint64_t seed = xpose_test::env_or("XPOSE_TEST_SEED", xpose_test::kDefaultPropertySeed);
  const uint64_t cases = cases_for(kernel);
  RecordProperty("seed", std::to_string(seed));
  const DeviceArena arena;
  ASSERT_TRUE(arena.valid());
  xpose_test::CaseGenerator random(seed);
  const auto start = std::chrono::steady_clock::now();
  uint64_t ran = 0;
  for (uint64_t k = 0; k < cases && !HasFailure(); ++k) {
    const xpose_test::RandomMatrixCase c = xpose_test::random_matrix_case(random);
    const std::size_t elem_size = xpose::size_of(c.type);
    const std::size_t misalign_in = random.misalign(elem_size), misalign_out = random.misalign(elem_size);
    SCOPED_TRACE("seed " + std::to_string(seed) + " (XPOSE_TEST_SEED), case " + std::to_string(k) + ": kernel " +
                 kernel + ", " + xpose_test::describe(c.matrix, c.type) + ", misalign in " +
                 std::to_string(misalign_in) + ", out " + std::to_string(misalign_out));
    xpose::Plan plan;
    const Status created = xpose::Plan::create(plan, c.matrix, c.type, Device::cuda, {kernel, 0});
    if (created == Status::unsupported && kernel != "auto") continue;
    ASSERT_EQ(created, Status::ok) << xpose::last_error_message();
    const auto problem = xpose_test::problem_for(c.matrix, c.type);
    const auto input = xpose_test::make_input(problem, misalign_in, /*salt=*/k);
    auto output = xpose_test::make_output(problem, misalign_out);
    ASSERT_TRUE(arena.execute(plan, input, output));
    EXPECT_TRUE(xpose_test::transposed_correctly(input, output, problem)) << "kernel " << plan.kernel_name();
    ++ran;
  }
  report("transpose", kernel, ran, cases, start);
  RecordProperty("cases_run", std::to_string(ran));
  if (kernel == "auto")
    EXPECT_EQ(ran, cases);
  else
    EXPECT_GT(ran, 0u) << kernel << " supported none of the " << cases << " random problems";
}

// The tile kernel's general form undoes each row's misalignment in registers (shuffles and
// funnel shifts between lanes), with its own load and store masks at tile edges: every pair of
// input and output misalignments, for every element size, on shapes with full and edge tiles and
// leading dimensions that give each row its own misalignment. XPOSE_TEST_SMALL=1 (sanitizer
// runs) keeps the tile kernel alone.
TEST(PropertyCudaTile, EveryMisalignmentOfBothViewsMatchesReference) {
  XPOSE_SKIP_WITHOUT_CUDA_DEVICE();
  const DeviceArena arena;
  ASSERT_TRUE(arena.valid());
  const bool small = xpose_test::env_or("XPOSE_TEST_SMALL", 0) != 0;
  int ran = 0;
  for (const std::string kernel : {"tile", "auto"}) {
    if (small && kernel == "auto") continue;
    for (xpose::DType type : {xpose::DType::u8, xpose::DType::u16, xpose::DType::f32, xpose::DType::f64, xpose::DType::c128})
      for (const xpose::Matrix shape : {xpose::Matrix{300, 200}, xpose::Matrix{131, 259}})
        for (const int64_t pad_in : {0, 1, 3})
          for (const int64_t pad_out : {0, 1, 3}) {
            const std::size_t size = xpose::size_of(type);
            xpose::Matrix m = shape;
            m.ld_in = m.cols + pad_in;
            m.ld_out = m.rows + pad_out;
            for (std::size_t in_offset = 0; in_offset < 16; in_offset += size)
              for (std::size_t out_offset = 0; out_offset < 16; out_offset += size) {
                SCOPED_TRACE(kernel + ", " + xpose_test::describe(m, type) + ", misalign in " +
                             std::to_string(in_offset) + ", out " + std::to_string(out_offset));
                xpose::Plan plan;
                ASSERT_EQ(xpose::Plan::create(plan, m, type, Device::cuda, {kernel, 0}), Status::ok)
                    << xpose::last_error_message();
                const auto problem = xpose_test::problem_for(m, type);
                const auto input = xpose_test::make_input(problem, in_offset, /*salt=*/ran);
                auto output = xpose_test::make_output(problem, out_offset);
                ASSERT_TRUE(arena.execute(plan, input, output));
                ASSERT_TRUE(xpose_test::transposed_correctly(input, output, problem)) << "kernel " << plan.kernel_name();
                ++ran;
              }
          }
  }
  std::printf("[ CASES    ] tile misalignments: %d problems ran\n", ran);
}

// The small_batch kernel stages each chunk's input as the 16-byte vectors of global memory it
// covers and stores its output the same way, partial vectors at both ends element by element:
// every pair of input and output misalignments, for every element size, on packed batches whose
// chunks start on and off 16 bytes (many matrices per chunk; one matrix of an odd element count,
// as 7 x 451), padded rows and matrices padded apart.
TEST(PropertyCudaSmallBatch, EveryMisalignmentOfBothViewsMatchesReference) {
  XPOSE_SKIP_WITHOUT_CUDA_DEVICE();
  const DeviceArena arena;
  ASSERT_TRUE(arena.valid());
  int ran = 0;
  for (xpose::DType type : {xpose::DType::u8, xpose::DType::u16, xpose::DType::f32, xpose::DType::f64, xpose::DType::c128})
    for (const xpose::Matrix shape : {xpose::Matrix{7, 451, 0, 0, 9}, xpose::Matrix{17, 31, 0, 0, 33},
                                      xpose::Matrix{5, 3, 0, 0, 301}, xpose::Matrix{13, 9, 10, 0, 41},
                                      xpose::Matrix{11, 7, 0, 0, 57, 11 * 7 + 3, 0}}) {
      const std::size_t size = xpose::size_of(type);
      if (shape.rows * (shape.ld_in ? shape.ld_in : shape.cols) * static_cast<int64_t>(size) > 16384) continue;
      for (std::size_t in_offset = 0; in_offset < 16; in_offset += size)
        for (std::size_t out_offset = 0; out_offset < 16; out_offset += size) {
          SCOPED_TRACE(xpose_test::describe(shape, type) + ", misalign in " + std::to_string(in_offset) + ", out " +
                       std::to_string(out_offset));
          xpose::Plan plan;
          ASSERT_EQ(xpose::Plan::create(plan, shape, type, Device::cuda, {"small_batch", 0}), Status::ok)
              << xpose::last_error_message();
          const auto problem = xpose_test::problem_for(shape, type);
          const auto input = xpose_test::make_input(problem, in_offset, /*salt=*/ran);
          auto output = xpose_test::make_output(problem, out_offset);
          ASSERT_TRUE(arena.execute(plan, input, output));
          ASSERT_TRUE(xpose_test::transposed_correctly(input, output, problem));
          ++ran;
        }
    }
  EXPECT_GT(ran, 100);
  std::printf("[ CASES    ] small_batch misalignments: %d problems ran\n", ran);
}

// Views with odd leading dimensions large enough for the tile kernel's large tiles: its unaligned
// forms there (the unmasked variant for full tiles inside the view where tuning.hpp enables it,
// the masked form for the others and for the edge tiles of the last row and column of tiles, the
// element form for 8-byte elements), a few misalignments of both views per size, and a batch
// whose matrices lie further apart than their size.
TEST(PropertyCudaTile, LargeUnalignedViewsMatchReference) {
  XPOSE_SKIP_WITHOUT_CUDA_DEVICE();
  const DeviceArena arena(std::size_t{48} << 20);
  ASSERT_TRUE(arena.valid());
  struct Case {
    xpose::DType type;
    int64_t tile_rows, tile_cols;  // the large shape of unaligned views (tuning.hpp)
  };
  using xpose::cuda::UnalignedTileTuning;
  using Element = xpose::cuda::ElementTileTuning<xpose::cuda::ElementShape::square>;  // of unaligned views
  // XPOSE_TEST_SMALL=1 (sanitizer runs): one shape and one pair of misalignments per size.
  const bool small = xpose_test::env_or("XPOSE_TEST_SMALL", 0) != 0;
  int ran = 0;
  // 16-byte elements are left out: their views are always 16-byte aligned.
  for (const Case c : {Case{xpose::DType::u8, UnalignedTileTuning<1, false>::kRows, UnalignedTileTuning<1, false>::kCols},
                       Case{xpose::DType::u16, UnalignedTileTuning<2, false>::kRows, UnalignedTileTuning<2, false>::kCols},
                       Case{xpose::DType::f32, UnalignedTileTuning<4, false>::kRows, UnalignedTileTuning<4, false>::kCols},
                       Case{xpose::DType::f64, Element::kRows, Element::kCols}})
    for (const int64_t batch : {1, 2}) {
      if (small && batch != 1) continue;
      // More than 4 large tiles per SM on any GPU up to 160 SMs (27 x 25 = 675), so `tile` takes the large shape.
      xpose::Matrix m{27 * c.tile_rows - 5, 25 * c.tile_cols - 3};
      m.ld_in = m.cols + 1;
      m.ld_out = m.rows + 3;
      if (batch > 1) {
        m.batch = batch;
        m.stride_in = (m.rows - 1) * m.ld_in + m.cols + 7;
        m.stride_out = (m.cols - 1) * m.ld_out + m.rows + 5;
      }
      const std::size_t size = xpose::size_of(c.type);
      std::vector<std::size_t> in_offsets{0, size, 16 - size};
      in_offsets.erase(std::unique(in_offsets.begin(), in_offsets.end()), in_offsets.end());  // f64: 8 once
      for (const std::size_t in_offset : in_offsets)
        for (const std::size_t out_offset : {std::size_t{0}, 16 - size}) {
          if (small && (in_offset != size || out_offset == 0)) continue;
          SCOPED_TRACE(xpose_test::describe(m, c.type) + ", misalign in " + std::to_string(in_offset) + ", out " +
                       std::to_string(out_offset));
          xpose::Plan plan;
          ASSERT_EQ(xpose::Plan::create(plan, m, c.type, Device::cuda, {"tile", 0}), Status::ok)
              << xpose::last_error_message();
          const auto problem = xpose_test::problem_for(m, c.type);
          const auto input = xpose_test::make_input(problem, in_offset, /*salt=*/ran);
          auto output = xpose_test::make_output(problem, out_offset);
          ASSERT_TRUE(arena.execute(plan, input, output));
          ASSERT_TRUE(xpose_test::transposed_correctly(input, output, problem));
          ++ran;
        }
    }
  std::printf("[ CASES    ] large unaligned tile views: %d problems ran\n", ran);
}

// 8-byte views on both sides of the element form's load rule (element_tile_kernel.cu): input rows
// on 256-byte DRAM blocks (plain loads) and views that miss them by a base offset, a leading
// dimension or a batch stride (block-fetching loads); large and compact shapes, edge tiles in both
// directions, output rows on and off 16 bytes and on 256-byte blocks, and batches. On an H100 the
// block-aligned large views take the fine shape instead of square and wide (tuning.hpp), walking
// column tiles fastest where the output rows start on blocks (fine_walk) and rows fastest
// elsewhere. The arena's regions start on 256 bytes and a view at kGuardBytes + misalign past them,
// so a misalign of 192 puts it on a block.
TEST(PropertyCudaTile, EightByteViewsEitherSideOfTheBlockRuleMatchReference) {
  XPOSE_SKIP_WITHOUT_CUDA_DEVICE();
  const DeviceArena arena(std::size_t{48} << 20);
  ASSERT_TRUE(arena.valid());
  struct Case {
    int64_t rows, cols, ld_in, ld_out, batch, stride_in_gap;
    std::size_t in_misalign, out_misalign;
    const char* loads;  // what the rule picks, for the trace
    int64_t stride_out_gap = 4;  // a batch's output stride past cols x ld_out (4: off blocks)
  };
  constexpr std::size_t kOnBlock = 256 - xpose_test::kGuardBytes;
  static_assert(kOnBlock == 192, "the arena's views start kGuardBytes past a 256-byte boundary");
  // 27 x 25 large tiles of 64 x 64 (and then some): more than 4 per SM on any GPU up to 160 SMs,
  // and fewer row tiles than SMs, so block-aligned views take the square shape. The tall views have
  // more row tiles of 64 than any GPU up to 160 SMs has SMs, so block-aligned ones take the wide
  // shape (tuning.hpp). Edge tiles both ways for every shape.
  using xpose::cuda::ElementShape;
  using xpose::cuda::ElementTileTuning;
  static_assert(ElementTileTuning<ElementShape::square>::kRows == 64 && ElementTileTuning<ElementShape::square>::kCols == 64 &&
                    ElementTileTuning<ElementShape::wide>::kRows == 32 && ElementTileTuning<ElementShape::wide>::kCols == 128,
                "the shapes below are sized for these tiles");
  const int64_t rows = 27 * 64 + 5, cols = 25 * 64 + 3;
  const int64_t tall_rows = 160 * 64 + 37, tall_cols = 2 * 128 + 5;
  const std::vector<Case> cases = {
      {rows, cols, 1632, 1736, 1, 0, kOnBlock, kOnBlock, "plain"},
      {rows, cols, 1632, 1737, 1, 0, kOnBlock, kOnBlock + 8, "plain, output rows off 16 bytes"},
      {rows, cols, 1632, 1736, 2, 32, kOnBlock, kOnBlock, "plain, batch"},
      {rows, cols, 1632, 1760, 1, 0, kOnBlock, kOnBlock, "plain, output rows on blocks"},
      {rows, cols, 1632, 1760, 2, 32, kOnBlock, kOnBlock, "plain, batch, output rows on blocks", 32},
      {tall_rows, tall_cols, 288, 10280, 1, 0, kOnBlock, kOnBlock, "plain, tall: wide tiles"},
      {tall_rows, tall_cols, 288, 10281, 1, 0, kOnBlock, kOnBlock + 8, "plain, tall, output rows off 16 bytes: wide tiles"},
      {tall_rows, tall_cols, 288, 10280, 2, 32, kOnBlock, kOnBlock, "plain, tall, batch: wide tiles"},
      {tall_rows, tall_cols, 288, 10304, 1, 0, kOnBlock, kOnBlock, "plain, tall, output rows on blocks: wide tiles"},
      {100, 70, 96, 100, 1, 0, kOnBlock, kOnBlock + 32, "plain, compact"},
      {rows, cols, 1632, 1736, 1, 0, kOnBlock + 32, kOnBlock, "block-fetching: base off a block"},
      {rows, cols, 1616, 1736, 1, 0, kOnBlock, kOnBlock, "block-fetching: leading dimension off blocks"},
      {rows, cols, 1632, 1736, 2, 2, kOnBlock, kOnBlock, "block-fetching: batch stride off blocks"},
      {tall_rows, tall_cols, 289, 10280, 1, 0, kOnBlock, kOnBlock, "block-fetching, tall: square tiles"},
      {100, 70, 97, 102, 1, 0, kOnBlock, kOnBlock, "block-fetching, compact"},
  };
  const bool small = xpose_test::env_or("XPOSE_TEST_SMALL", 0) != 0;
  int ran = 0;
  for (const Case& c : cases) {
    if (small && c.batch > 1) continue;
    xpose::Matrix m{c.rows, c.cols};
    m.ld_in = c.ld_in;
    m.ld_out = c.ld_out;
    if (c.batch > 1) {
      m.batch = c.batch;
      m.stride_in = c.rows * c.ld_in + c.stride_in_gap;
      m.stride_out = c.cols * c.ld_out + c.stride_out_gap;
    }
    SCOPED_TRACE(xpose_test::describe(m, xpose::DType::f64) + ", misalign in " + std::to_string(c.in_misalign) +
                 ", out " + std::to_string(c.out_misalign) + " (" + c.loads + " loads)");
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create(plan, m, xpose::DType::f64, Device::cuda, {"tile", 0}), Status::ok)
        << xpose::last_error_message();
    const auto problem = xpose_test::problem_for(m, xpose::DType::f64);
    const auto input = xpose_test::make_input(problem, c.in_misalign, /*salt=*/ran);
    auto output = xpose_test::make_output(problem, c.out_misalign);
    ASSERT_TRUE(arena.execute(plan, input, output));
    ASSERT_TRUE(xpose_test::transposed_correctly(input, output, problem));
    ++ran;
  }
  std::printf("[ CASES    ] 8-byte views either side of the block rule: %d problems ran\n", ran);
}

// Views that end where their allocation ends (one cudaMalloc each, of exactly the view's bytes), so
// that a read past the input view's last element or a write past the output view's leaves the
// allocation and compute-sanitizer memcheck reports it (the arena's guards, in the same
// allocation, cannot show reads). Whole multiples of the tile with odd leading dimensions: the
// last tile is full and unaligned, where the unmasked variant's bound (tile_kernel.cu) decides;
// large and compact shapes. And one packed f64 view on 256-byte blocks, tall enough for the
// element form's wide shape (more row tiles of 64 than any GPU up to 160 SMs has SMs).
TEST(PropertyCudaTile, ViewsEndingAtTheirAllocationMatchReference) {
  XPOSE_SKIP_WITHOUT_CUDA_DEVICE();
  struct Case {
    xpose::DType type;
    int64_t rows, cols;
    bool packed = false;  // leading dimensions as the view (else padded by 1 and 3: odd)
  };
  using xpose::cuda::UnalignedTileTuning;
  using Element = xpose::cuda::ElementTileTuning<xpose::cuda::ElementShape::square>;  // of unaligned views
  using Wide = xpose::cuda::ElementTileTuning<xpose::cuda::ElementShape::wide>;
  // 27 x 25 large tiles: more than 4 per SM on any GPU up to 160 SMs, so `tile` takes the large shape.
  const auto large = [](xpose::DType type, int64_t tile_rows, int64_t tile_cols) {
    return Case{type, tile_rows * 27, tile_cols * 25};
  };
  // 10272 rows: 161 row tiles of 64; 256 columns of 8 bytes: rows on 256-byte blocks.
  const Case wide{xpose::DType::f64, Wide::kRows * 321, Wide::kCols * 2, /*packed=*/true};
  const bool small = xpose_test::env_or("XPOSE_TEST_SMALL", 0) != 0;
  int ran = 0;
  for (const Case c : {large(xpose::DType::u8, UnalignedTileTuning<1, false>::kRows, UnalignedTileTuning<1, false>::kCols),
                       Case{xpose::DType::u8, 256, 256},
                       large(xpose::DType::u16, UnalignedTileTuning<2, false>::kRows, UnalignedTileTuning<2, false>::kCols),
                       Case{xpose::DType::u16, 128, 256},
                       large(xpose::DType::f32, UnalignedTileTuning<4, false>::kRows, UnalignedTileTuning<4, false>::kCols),
                       Case{xpose::DType::f32, 512, 512}, large(xpose::DType::f64, Element::kRows, Element::kCols),
                       Case{xpose::DType::f64, 256, 256}, wide})
    for (const int64_t pad : {1, 3}) {
      if (small && pad != 1) continue;
      if (c.packed && pad != 1) continue;  // one run, with no padding
      const int64_t ld_pad = c.packed ? 0 : pad;
      xpose::Matrix m{c.rows, c.cols};
      m.ld_in = m.cols + ld_pad;
      m.ld_out = m.rows + ld_pad;
      SCOPED_TRACE(xpose_test::describe(m, c.type));
      xpose::Plan plan;
      ASSERT_EQ(xpose::Plan::create(plan, m, c.type, Device::cuda, {"tile", 0}), Status::ok)
          << xpose::last_error_message();
      const auto problem = xpose_test::problem_for(m, c.type);
      const auto input = xpose_test::make_input(problem, 0, /*salt=*/ran);
      auto output = xpose_test::make_output(problem, 0);
      void* in = nullptr;
      void* out = nullptr;
      ASSERT_TRUE(xpose_test::cuda_ok(cudaMalloc(&in, input.view_bytes()), "cudaMalloc"));
      ASSERT_TRUE(xpose_test::cuda_ok(cudaMalloc(&out, output.view_bytes()), "cudaMalloc"));
      const auto run = [&]() -> ::testing::AssertionResult {
        if (auto r = xpose_test::cuda_ok(cudaMemcpy(in, input.view(), input.view_bytes(), cudaMemcpyHostToDevice),
                                         "cudaMemcpy to device");
            !r)
          return r;
        if (auto r = xpose_test::cuda_ok(cudaMemcpy(out, output.view(), output.view_bytes(), cudaMemcpyHostToDevice),
                                         "cudaMemcpy to device");
            !r)
          return r;
        if (auto r = xpose_test::cuda_ok(cudaDeviceSynchronize(), "synchronize"); !r) return r;
        if (plan.execute(in, out) != Status::ok)
          return ::testing::AssertionFailure() << "execute: " << xpose::last_error_message();
        if (auto r = xpose_test::cuda_ok(cudaDeviceSynchronize(), "synchronize after execute"); !r) return r;
        return xpose_test::cuda_ok(cudaMemcpy(output.view(), out, output.view_bytes(), cudaMemcpyDeviceToHost),
                                   "cudaMemcpy to host");
      };
      const ::testing::AssertionResult result = run();
      cudaFree(in);
      cudaFree(out);
      ASSERT_TRUE(result);
      ASSERT_TRUE(xpose_test::transposed_correctly(input, output, problem)) << "kernel " << plan.kernel_name();
      ++ran;
    }
  std::printf("[ CASES    ] views ending at their allocation: %d problems ran\n", ran);
}

INSTANTIATE_TEST_SUITE_P(PropertyCuda, RandomTransposesCuda,
                         ::testing::ValuesIn(xpose_test::transposing_kernels(Device::cuda)),
                         [](const auto& info) { return info.param; });

// ---------------------------------------------------------------------------------------------
// N-D permutations

std::vector<std::string> permuting_kernels() {
  std::vector<std::string> names;
  for (const auto& name : xpose::permute_kernel_names(Device::cuda))
    if (xpose::permute_kernel_permutes(Device::cuda, name)) names.push_back(name);
  return names;
}

// Kernels that must run every layout; the others (copy, transpose2d, tiled, packed, gather)
// answer unsupported for layouts they do not handle.
bool runs_every_layout(const std::string& kernel) { return kernel == "auto" || kernel == "naive"; }

class RandomPermutationsCuda : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { XPOSE_SKIP_WITHOUT_CUDA_DEVICE(); }
};

TEST_P(RandomPermutationsCuda, MatchReference) {
  const std::string kernel = GetParam();
  const uint64_t seed = xpose_test::env_or("XPOSE_TEST_SEED", xpose_test::kDefaultPropertySeed);
  const uint64_t cases = cases_for(kernel);
  RecordProperty("seed", std::to_string(seed));
  const DeviceArena arena;
  ASSERT_TRUE(arena.valid());
  xpose_test::CaseGenerator random(seed);
  const auto start = std::chrono::steady_clock::now();
  uint64_t ran = 0;
  for (uint64_t k = 0; k < cases && !HasFailure(); ++k) {
    const xpose_test::RandomPermuteCase c = xpose_test::random_permute_case(random, kMaxPermuteElements);
    const std::size_t elem_size = xpose::size_of(c.type);
    const std::size_t misalign_in = random.misalign(elem_size), misalign_out = random.misalign(elem_size);
    SCOPED_TRACE("seed " + std::to_string(seed) + " (XPOSE_TEST_SEED), case " + std::to_string(k) + ": kernel " +
                 kernel + ", " + xpose_test::describe(c.permutation, c.type) + ", misalign in " +
                 std::to_string(misalign_in) + ", out " + std::to_string(misalign_out));
    xpose::Plan plan;
    const Status created = xpose::Plan::create_permute(plan, c.permutation, c.type, Device::cuda, {kernel, 0});
    if (created == Status::unsupported && !runs_every_layout(kernel)) continue;
    ASSERT_EQ(created, Status::ok) << xpose::last_error_message();
    const auto problem = xpose_test::permute_problem_for(c.permutation, c.type);
    const auto input = xpose_test::make_permute_input(problem, misalign_in, /*salt=*/k);
    auto output = xpose_test::make_permute_output(problem, misalign_out);
    const auto expected = xpose_test::expected_permute(input, output, problem);
    ASSERT_TRUE(arena.upload(input.data(), input.size(), output.data(), output.size()));
    const Status executed = plan.execute(arena.input() + input.view_offset(),
                                         arena.output() + output.view_offset(), arena.stream());
    // A named kernel that runs this layout as wider elements needs pointers aligned to them.
    if (executed == Status::invalid_argument && kernel != "auto" &&
        std::string(xpose::last_error_message()).find("must be aligned") != std::string::npos)
      continue;
    ASSERT_EQ(executed, Status::ok) << xpose::last_error_message();
    ASSERT_TRUE(arena.download(output.data(), output.size()));
    EXPECT_TRUE(xpose_test::permute_output_matches(output.data(), expected, output, problem))
        << "kernel " << plan.kernel_name();
    ++ran;
  }
  report("permute", kernel, ran, cases, start);
  RecordProperty("cases_run", std::to_string(ran));
  if (runs_every_layout(kernel))
    EXPECT_EQ(ran, cases);
  else
    EXPECT_GT(ran, 0u) << kernel << " ran none of the " << cases << " random permutations";
}

INSTANTIATE_TEST_SUITE_P(PropertyCuda, RandomPermutationsCuda, ::testing::ValuesIn(permuting_kernels()),
                         [](const auto& info) { return info.param; });

}  // namespace
