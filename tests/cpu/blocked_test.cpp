// SPDX-License-Identifier: Apache-2.0
// The fast CPU path (detail::transpose_blocked) against the reference: every element size, odd,
// skinny, empty and size-1 shapes, padded leading dimensions, batches, unaligned pointers, one and
// several threads, and outputs large enough for the streaming stores (aligned and shifted).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "cpu/reference.hpp"
#include "cpu/transpose_blocked.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::DType;
using xpose::Matrix;
using xpose::detail::Transpose2D;

constexpr unsigned char kPoison = 0xA5;
constexpr int64_t kGuardBytes = 128;  // checked on both sides of each view

using xpose::detail::CpuIsa;

struct Case {
  DType type;
  Matrix matrix;
  int64_t in_offset = 0, out_offset = 0;  // bytes added to 64-byte aligned buffers
  int threads = 1;
  CpuIsa tiles = xpose::detail::cpu_isa_active();
};

std::string describe(const Case& c) {
  std::ostringstream s;
  s << xpose::to_string(c.type) << " " << c.matrix.batch << "x" << c.matrix.rows << "x"
    << c.matrix.cols << " ld_in " << c.matrix.ld_in << " ld_out " << c.matrix.ld_out
    << " stride_in " << c.matrix.stride_in << " stride_out " << c.matrix.stride_out << " in+"
    << c.in_offset << " out+" << c.out_offset << " threads " << c.threads
    << " " << xpose::detail::to_string(c.tiles);
  return s.str();
}

// 64-byte aligned bytes with room for the guards and an offset.
struct Buffer {
  std::vector<uint64_t> words;
  unsigned char* base;
  Buffer(int64_t bytes, int64_t offset)
      : words(static_cast<std::size_t>((bytes + offset + 2 * kGuardBytes + 64) / 8 + 1)) {
    auto address = reinterpret_cast<uintptr_t>(words.data());
    base = reinterpret_cast<unsigned char*>((address + 63) / 64 * 64) + kGuardBytes + offset;
  }
};

// Runs one case; returns "" or a description of the first wrong byte.
std::string check(const Case& c) {
  Transpose2D p;
  if (xpose::detail::make_problem(c.matrix, c.type, &p) != xpose::Status::ok)
    return std::string("invalid case: ") + xpose::last_error_message();
  const int64_t e = p.elem_size;
  const int64_t in_bytes = p.input_extent() * e, out_bytes = p.output_extent() * e;

  // Random non-zero input bytes everywhere (padding included: the reference never reads it).
  Buffer in(in_bytes, c.in_offset), out(out_bytes, c.out_offset);
  std::mt19937_64 random(static_cast<uint64_t>(in_bytes * 31 + out_bytes));
  for (int64_t k = 0; k < in_bytes; ++k)
    in.base[k] = static_cast<unsigned char>(random() % 255 + 1);
  std::memset(out.base - kGuardBytes, kPoison,
              static_cast<std::size_t>(out_bytes + 2 * kGuardBytes));

  // The expected bytes: the reference on aligned copies, over the same poison.
  Buffer in_aligned(in_bytes, 0), expected(out_bytes, 0);
  std::memcpy(in_aligned.base, in.base, static_cast<std::size_t>(in_bytes));
  std::memset(expected.base, kPoison, static_cast<std::size_t>(out_bytes));
  xpose::detail::transpose_reference(in_aligned.base, expected.base, p);

  xpose::detail::transpose_blocked(in.base, out.base, p, c.threads, c.tiles);

  for (int64_t k = -kGuardBytes; k < 0; ++k)
    if (out.base[k] != kPoison) return "wrote " + std::to_string(-k) + " bytes before the output";
  for (int64_t k = 0; k < kGuardBytes; ++k)
    if (out.base[out_bytes + k] != kPoison)
      return "wrote " + std::to_string(k) + " bytes after the output";
  for (int64_t k = 0; k < out_bytes; ++k) {
    if (out.base[k] == expected.base[k]) continue;
    const int64_t element = k / e, b = p.batch > 1 ? element / p.stride_out : 0;
    const int64_t j = (element - b * p.stride_out) / p.ld_out,
                  i = element - b * p.stride_out - j * p.ld_out;
    std::ostringstream s;
    s << "first wrong byte " << k << ": output element (b " << b << ", row " << j << ", col " << i
      << ")" << (i >= p.rows ? " in the padding" : "") << ", got " << int{out.base[k]}
      << " expected " << int{expected.base[k]};
    return s.str();
  }
  return "";
}

const DType kTypes[] = {DType::u8, DType::u16, DType::f32, DType::f64, DType::c128};

TEST(TransposeBlocked, OddSkinnyAndEmptyShapesEveryElementSize) {
  const int64_t shapes[][2] = {{0, 0},     {0, 5},   {5, 0},   {1, 1},   {1, 300},   {300, 1},
                               {2, 257},   {257, 3}, {3, 130}, {64, 64}, {65, 63},   {127, 129},
                               {16, 16},   {32, 32}, {8, 8},   {4, 4},   {200, 300}, {129, 1000},
                               {1000, 67}, {64, 1},  {1, 64}};
  for (DType type : kTypes)
    for (const auto& shape : shapes)
      for (int threads : {1, 2, 3}) {
        Case c{type, Matrix{shape[0], shape[1]}, 0, 0, threads};
        EXPECT_EQ(check(c), "") << describe(c);
      }
}

TEST(TransposeBlocked, PaddedLeadingDimensionsAreNeverWritten) {
  for (DType type : kTypes)
    for (int64_t extra : {1, 3, 17, 64}) {
      Case c{type, Matrix{190, 140, 140 + extra, 190 + 2 * extra}, 0, 0, 1};
      EXPECT_EQ(check(c), "") << describe(c);
      c.matrix = Matrix{128, 256, 256 + extra, 128 + extra};
      EXPECT_EQ(check(c), "") << describe(c);
    }
}

TEST(TransposeBlocked, BatchesOfSmallAndLargeMatrices) {
  for (DType type : kTypes) {
    Case c{type, Matrix{7, 5, 0, 0, 1000}, 0, 0, 2};
    EXPECT_EQ(check(c), "") << describe(c);
    c.matrix = Matrix{70, 90, 93, 71, 13, 70 * 93 + 5, 90 * 71 + 11};
    EXPECT_EQ(check(c), "") << describe(c);
    c.matrix = Matrix{64, 64, 0, 0, 40};
    EXPECT_EQ(check(c), "") << describe(c);
  }
}

TEST(TransposeBlocked, UnalignedPointers) {
  for (DType type : kTypes)
    for (int64_t in_offset : {0, 1, 8, 33})
      for (int64_t out_offset : {0, 1, 4, 62}) {
        Case c{type, Matrix{131, 197}, in_offset, out_offset, 1};
        EXPECT_EQ(check(c), "") << describe(c);
      }
}

// Outputs of 8 MiB and more take the streaming stores: aligned where every output line is, shifted
// lines otherwise (odd leading dimension, unaligned pointer, batch stride).
TEST(TransposeBlocked, LargeOutputsWithStreamingStores) {
  const Case cases[] = {
      {DType::f32, Matrix{2048, 1536}, 0, 0, 2},
      {DType::f32, Matrix{1531, 1777}, 0, 0, 2},
      {DType::f32, Matrix{1024, 2304, 2309, 1029}, 4, 12, 2},
      {DType::f64, Matrix{1024, 1152}, 0, 0, 1},
      {DType::f64, Matrix{1023, 1100}, 0, 8, 2},
      {DType::u8, Matrix{3008, 3200}, 0, 0, 2},
      {DType::u8, Matrix{2999, 3001}, 1, 3, 2},
      {DType::u16, Matrix{2048, 2112}, 0, 0, 2},
      {DType::u16, Matrix{2047, 2111}, 0, 2, 1},
      {DType::c128, Matrix{768, 704}, 0, 0, 2},
      {DType::c128, Matrix{701, 769}, 8, 24, 2},
      {DType::f32, Matrix{300, 400, 0, 303, 20, 0, 400 * 303 + 1}, 0, 0, 2},
      {DType::f32, Matrix{3, 1 << 20}, 0, 0, 2},
      {DType::f32, Matrix{1 << 20, 3}, 0, 0, 2},
  };
  for (const Case& c : cases) EXPECT_EQ(check(c), "") << describe(c);
}

// The portable path, which CPUs without AVX2 run for everything.
TEST(TransposeBlocked, ScalarPathMatchesReference) {
  const Matrix matrices[] = {Matrix{0, 3},
                             Matrix{1, 1},
                             Matrix{1, 77},
                             Matrix{77, 1},
                             Matrix{65, 67},
                             Matrix{130, 70, 75, 133},
                             Matrix{9, 11, 0, 0, 50},
                             Matrix{1100, 1200}};
  for (DType type : kTypes)
    for (const Matrix& matrix : matrices)
      for (int64_t offset : {0, 3}) {
        Case c{type, matrix, offset, offset, 2, CpuIsa::portable};
        EXPECT_EQ(check(c), "") << describe(c);
      }
}

TEST(TransposeBlocked, PlanWithThreadedKernel) {
  std::vector<float> in(300 * 500), out(300 * 500), expected(300 * 500);
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>(k + 1);
  for (int64_t i = 0; i < 300; ++i)
    for (int64_t j = 0; j < 500; ++j) expected[j * 300 + i] = in[i * 500 + j];
  xpose::Plan plan;
  xpose::PlanOptions options;
  options.kernel = "threaded";
  options.threads = 2;
  ASSERT_EQ(xpose::Plan::create(plan, Matrix{300, 500}, DType::f32, xpose::Device::cpu, options),
            xpose::Status::ok);
  ASSERT_EQ(plan.execute(in.data(), out.data()), xpose::Status::ok);
  EXPECT_EQ(out, expected);
}

TEST(ParallelMemcpy, CopiesEveryByte) {
  for (int64_t bytes :
       {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{3} << 20, (int64_t{5} << 20) + 7}) {
    std::vector<unsigned char> src(static_cast<std::size_t>(bytes)), dst(src.size() + 1, kPoison);
    for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<unsigned char>(k * 7 + 1);
    xpose::detail::parallel_memcpy(dst.data(), src.data(), bytes, 0);
    EXPECT_TRUE(std::equal(src.begin(), src.end(), dst.begin())) << bytes << " bytes";
    EXPECT_EQ(dst.back(), kPoison) << bytes << " bytes";
  }
}

}  // namespace
