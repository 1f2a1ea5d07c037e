// SPDX-License-Identifier: Apache-2.0
// The distributed transpose on every visible GPU (at least 2), one process driving all of them
// (ncclCommInitAll), checked element by element against the definition on the host: rank q's
// output row jj, column i must hold input element (i, out_offset[q] + jj). Row padding of the
// output blocks and guard bytes around them must keep their poison. Skips with fewer than 2 GPUs.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/transpose_check.hpp"
#include "xpose/dist.hpp"

namespace {

using xpose::DType;
using xpose::Status;
using xpose::dist::Exchange;
using xpose::dist::Layout;

constexpr unsigned char kPoison = 0xFF;
constexpr size_t kGuard = 64;

#define XPOSE_SKIP_WITHOUT_TWO_GPUS()                                                         \
  do {                                                                                        \
    if (Ranks::get().count() < 2)                                                             \
      GTEST_SKIP() << "fewer than 2 CUDA devices visible (" << xpose::cuda_device_count() << ")"; \
  } while (0)

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())

// One communicator per visible GPU for the whole test program: initialising NCCL costs about a
// second. NVLink multicast stays off (the lent machines require it; the transpose does not use it).
class Ranks {
 public:
  static Ranks& get() {
    static Ranks ranks;
    return ranks;
  }
  int count() const { return static_cast<int>(comms_.size()); }
  ncclComm_t comm(int r) const { return comms_[r]; }
  cudaStream_t stream(int r) const { return streams_[r]; }

 private:
  Ranks() {
    const int devices = xpose::cuda_device_count();
    if (devices < 2) return;
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    std::vector<ncclComm_t> comms(devices);
    if (ncclCommInitAll(comms.data(), devices, nullptr) != ncclSuccess) return;
    comms_ = comms;
    for (int r = 0; r < devices; ++r) {
      cudaSetDevice(r);
      cudaStream_t s = nullptr;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      streams_.push_back(s);
    }
    cudaSetDevice(0);
  }
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
};

std::vector<int64_t> offsets_of(const std::vector<int64_t>& split) {
  std::vector<int64_t> offsets(split.size() + 1, 0);
  for (size_t r = 0; r < split.size(); ++r) offsets[r + 1] = offsets[r] + split[r];
  return offsets;
}

// Named splits of `count` over `ranks`: even, uneven (shares proportional to r + 1), and with the
// first rank holding nothing.
std::vector<int64_t> split_of(const std::string& kind, int64_t count, int ranks) {
  if (kind == "even") return xpose::dist::even_split(count, ranks);
  std::vector<int64_t> split(ranks, 0);
  if (kind == "first_empty") {
    std::vector<int64_t> rest = xpose::dist::even_split(count, ranks - 1);
    for (int r = 1; r < ranks; ++r) split[r] = rest[r - 1];
    return split;
  }
  const int64_t total_weight = int64_t{ranks} * (ranks + 1) / 2;
  int64_t given = 0;
  for (int r = 0; r < ranks; ++r) {
    split[r] = r + 1 == ranks ? count - given : count * (r + 1) / total_weight;
    given += split[r];
  }
  return split;
}

// Host and device buffers of one rank and the check of its output.
struct RankBuffers {
  void* in = nullptr;
  unsigned char* out_allocation = nullptr;  // guard, output block, guard
  size_t out_block_bytes = 0;
  unsigned char* out() const { return out_allocation + kGuard; }
};

struct Case {
  int64_t rows, cols;
  DType type;
  std::string in_split, out_split;
  int64_t ld_in_pad = 0, ld_out_pad = 0;
  int64_t step_bytes = xpose::dist::Options{}.step_bytes;
  bool register_workspace = xpose::dist::Options{}.register_workspace;
  Exchange exchange = Exchange::automatic;
};

const char* name_of(Exchange e) {
  return e == Exchange::automatic ? "automatic" : (e == Exchange::send_receive ? "send_receive" : "copy_engine");
}

std::string describe(const Case& c) {
  return std::to_string(c.rows) + " x " + std::to_string(c.cols) + " " + xpose::to_string(c.type) + ", in " +
         c.in_split + ", out " + c.out_split + ", ld pads " + std::to_string(c.ld_in_pad) + "/" +
         std::to_string(c.ld_out_pad) + ", step_bytes " + std::to_string(c.step_bytes) +
         (c.register_workspace ? ", registered workspace" : ", plain workspace") + ", exchange " +
         name_of(c.exchange);
}

// Runs one case on every rank. `threads`: one host thread per rank calling Plan::create and
// Plan::execute (each rank on its own) instead of create_group and execute_group.
void run_case(const Case& c, bool threads = false, int executions = 1) {
  SCOPED_TRACE(describe(c));
  Ranks& ranks = Ranks::get();
  const int n = ranks.count();
  const int64_t elem = static_cast<int64_t>(xpose::size_of(c.type));
  Layout layout{c.rows, c.cols, split_of(c.in_split, c.rows, n), split_of(c.out_split, c.cols, n)};
  layout.ld_in = c.cols + c.ld_in_pad;
  layout.ld_out = c.rows + c.ld_out_pad;
  const std::vector<int64_t> in_offset = offsets_of(layout.in_rows), out_offset = offsets_of(layout.out_rows);

  std::vector<xpose::dist::Plan> plans(n);
  xpose::dist::Options options;
  options.step_bytes = c.step_bytes;
  options.register_workspace = c.register_workspace;
  options.exchange = c.exchange;
  if (threads) {
    std::vector<std::thread> workers;
    std::vector<Status> statuses(n, Status::internal_error);
    std::vector<std::string> errors(n);
    for (int r = 0; r < n; ++r)
      workers.emplace_back([&, r] {
        cudaSetDevice(r);
        statuses[r] = xpose::dist::Plan::create(plans[r], ranks.comm(r), layout, c.type, options);
        errors[r] = xpose::last_error_message();
      });
    for (auto& w : workers) w.join();
    for (int r = 0; r < n; ++r) ASSERT_EQ(statuses[r], Status::ok) << "rank " << r << ": " << errors[r];
  } else {
    std::vector<ncclComm_t> comms;
    for (int r = 0; r < n; ++r) comms.push_back(ranks.comm(r));
    ASSERT_EQ(xpose::dist::create_group(plans, comms, layout, c.type, options), Status::ok)
        << xpose::last_error_message();
  }
  for (int r = 0; r < n; ++r) {
    ASSERT_NE(plans[r].exchange(), Exchange::automatic);
    ASSERT_EQ(plans[r].exchange(), plans[0].exchange());
    if (c.exchange != Exchange::automatic) {
      ASSERT_EQ(plans[r].exchange(), c.exchange);
    }
  }

  std::vector<RankBuffers> buffers(n);
  for (int r = 0; r < n; ++r) {
    CUDA_OK(cudaSetDevice(r));
    // Input block: elements encode their global index; row padding holds kInputPadding.
    const int64_t in_bytes = layout.in_rows[r] * layout.ld_in * elem;
    std::vector<unsigned char> host(static_cast<size_t>(in_bytes), xpose_test::kInputPadding);
    for (int64_t i = 0; i < layout.in_rows[r]; ++i)
      for (int64_t j = 0; j < c.cols; ++j)
        xpose_test::encode_element(static_cast<uint64_t>((in_offset[r] + i) * c.cols + j), 7, static_cast<int>(elem),
                                   &host[static_cast<size_t>((i * layout.ld_in + j) * elem)]);
    CUDA_OK(cudaMalloc(&buffers[r].in, static_cast<size_t>(std::max<int64_t>(in_bytes, 1))));
    CUDA_OK(cudaMemcpy(buffers[r].in, host.data(), host.size(), cudaMemcpyHostToDevice));
    buffers[r].out_block_bytes = static_cast<size_t>(layout.out_rows[r] * layout.ld_out * elem);
    void* out = nullptr;
    CUDA_OK(cudaMalloc(&out, buffers[r].out_block_bytes + 2 * kGuard));
    buffers[r].out_allocation = static_cast<unsigned char*>(out);
    CUDA_OK(cudaMemset(out, kPoison, buffers[r].out_block_bytes + 2 * kGuard));
  }
  for (int k = 0; k < executions; ++k) {
    if (threads) {
      std::vector<std::thread> workers;
      std::vector<Status> statuses(n, Status::internal_error);
      for (int r = 0; r < n; ++r)
        workers.emplace_back([&, r] {
          cudaSetDevice(r);
          statuses[r] = plans[r].execute(buffers[r].in, buffers[r].out(), ranks.stream(r));
        });
      for (auto& w : workers) w.join();
      for (int r = 0; r < n; ++r) ASSERT_EQ(statuses[r], Status::ok) << "rank " << r;
    } else {
      std::vector<xpose::dist::Execution> group;
      for (int r = 0; r < n; ++r) group.push_back({&plans[r], buffers[r].in, buffers[r].out(), ranks.stream(r)});
      ASSERT_EQ(xpose::dist::execute_group(group), Status::ok) << xpose::last_error_message();
    }
  }
  for (int r = 0; r < n; ++r) {
    CUDA_OK(cudaSetDevice(r));
    CUDA_OK(cudaStreamSynchronize(ranks.stream(r)));
  }

  std::vector<unsigned char> expected(static_cast<size_t>(elem));
  for (int q = 0; q < n; ++q) {
    std::vector<unsigned char> actual(buffers[q].out_block_bytes + 2 * kGuard);
    CUDA_OK(cudaSetDevice(q));
    CUDA_OK(cudaMemcpy(actual.data(), buffers[q].out_allocation, actual.size(), cudaMemcpyDeviceToHost));
    const unsigned char* block = actual.data() + kGuard;
    for (size_t k = 0; k < kGuard; ++k) {
      ASSERT_EQ(actual[k], kPoison) << "rank " << q << ": guard byte " << k << " before the output changed";
      ASSERT_EQ(actual[kGuard + buffers[q].out_block_bytes + k], kPoison) << "rank " << q << ": guard after changed";
    }
    for (int64_t jj = 0; jj < layout.out_rows[q]; ++jj)
      for (int64_t i = 0; i < layout.ld_out; ++i) {
        const unsigned char* got = block + (jj * layout.ld_out + i) * elem;
        if (i >= c.rows) {  // row padding: never written
          for (int64_t b = 0; b < elem; ++b)
            ASSERT_EQ(got[b], kPoison) << "rank " << q << ": padding at row " << jj << " column " << i << " written";
          continue;
        }
        xpose_test::encode_element(static_cast<uint64_t>(i * c.cols + out_offset[q] + jj), 7, static_cast<int>(elem),
                                   expected.data());
        ASSERT_EQ(std::memcmp(got, expected.data(), static_cast<size_t>(elem)), 0)
            << "rank " << q << ": output row " << jj << " column " << i << " should be input element (" << i
            << ", " << out_offset[q] + jj << ")";
      }
  }
  for (int r = 0; r < n; ++r) {
    cudaSetDevice(r);
    cudaFree(buffers[r].in);
    cudaFree(buffers[r].out_allocation);
  }
  cudaSetDevice(0);
}

TEST(DistGpu, EveryElementSizeShapeAndSplit) {
  XPOSE_SKIP_WITHOUT_TWO_GPUS();
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1},   {1, 17},    {17, 1},     {37, 53},
                                                           {300, 2}, {2, 300},   {257, 1031}, {1000, 999}};
  const std::vector<std::pair<std::string, std::string>> splits = {
      {"even", "even"}, {"uneven", "even"}, {"even", "uneven"}, {"first_empty", "uneven"}};
  int k = 0;
  for (DType type : {DType::u8, DType::u16, DType::f32, DType::f64, DType::c128})
    for (const auto& [rows, cols] : shapes)
      for (const auto& [in_split, out_split] : splits) {
        ++k;  // padding and step size vary with the case number, so each appears with every type
        Case c{rows, cols, type, in_split, out_split, k % 3 == 0 ? 3 : 0, k % 2 == 0 ? 5 : 0,
               k % 4 == 0 ? 0 : (k % 4 == 1 ? 512 : xpose::dist::Options{}.step_bytes)};
        for (Exchange exchange : {Exchange::copy_engine, Exchange::send_receive}) {
          c.exchange = exchange;
          run_case(c);
          if (HasFatalFailure()) return;
        }
      }
}

TEST(DistGpu, LargerMatricesManySteps) {
  XPOSE_SKIP_WITHOUT_TWO_GPUS();
  for (Exchange exchange : {Exchange::copy_engine, Exchange::send_receive}) {
    const bool kRegistered = true;
    run_case({4096, 6144, DType::f32, "uneven", "uneven", 0, 0, int64_t{1} << 20, kRegistered, exchange});
    run_case({3001, 5003, DType::f64, "even", "uneven", 1, 0, int64_t{1} << 20, kRegistered, exchange});
    run_case({8191, 8193, DType::u8, "uneven", "even", 0, 0, int64_t{1} << 22, kRegistered, exchange});
    if (HasFatalFailure()) return;
  }
}

// The copy engine cycles through two send and three receive slots across steps and across
// executes: step counts that are not multiples of 2 or 3 make consecutive executes start in
// different slots. Repeated executes, grouped and one thread per rank, with 1, 3 and 5 steps.
TEST(DistGpu, CopyEngineRepeatedExecutesOddSteps) {
  XPOSE_SKIP_WITHOUT_TWO_GPUS();
  const int64_t pair_bytes = 1024 * 1024 * 4;  // what each rank owes the other: 2048^2 f32, even, 2 ranks
  for (int64_t steps : {1, 3, 5})
    for (bool threads : {false, true}) {
      run_case({2048, 2048, DType::f32, "even", "even", 0, 0, (pair_bytes + steps - 1) / steps, true,
                Exchange::copy_engine},
               threads, /*executions=*/4);
      if (HasFatalFailure()) return;
    }
}

// Both workspace kinds, whichever is the default: ncclMemAlloc + ncclCommRegister (NCCL copies
// between the slots directly) and cudaMalloc (through NCCL's own buffers).
TEST(DistGpu, RegisteredAndPlainWorkspaces) {
  XPOSE_SKIP_WITHOUT_TWO_GPUS();
  for (bool registered : {true, false}) {
    const Exchange kSendReceive = Exchange::send_receive;  // the only exchange the option applies to
    run_case({257, 1031, DType::f32, "uneven", "even", 0, 0, 512, registered, kSendReceive});
    run_case({4096, 6144, DType::u8, "even", "uneven", 3, 0, int64_t{1} << 20, registered, kSendReceive});
    run_case({1000, 999, DType::c128, "first_empty", "uneven", 0, 5, 0, registered, kSendReceive});
    run_case({999, 1501, DType::f64, "uneven", "even", 0, 0, 64 << 10, registered, kSendReceive}, /*threads=*/true,
             /*executions=*/3);
    if (HasFatalFailure()) return;
  }
}

TEST(DistGpu, OneHostThreadPerRankAndRepeatedExecutes) {
  XPOSE_SKIP_WITHOUT_TWO_GPUS();
  for (Exchange exchange : {Exchange::copy_engine, Exchange::send_receive}) {
    run_case({999, 1501, DType::f32, "uneven", "even", 0, 0, 64 << 10, true, exchange}, /*threads=*/true,
             /*executions=*/3);
    run_case({640, 480, DType::u16, "even", "even", 0, 0, 32 << 10, true, exchange}, /*threads=*/false,
             /*executions=*/3);
  }
  // The default exchange on these GPUs (the copy engine where they reach each other).
  run_case({777, 1234, DType::f32, "uneven", "uneven"}, /*threads=*/true, /*executions=*/2);
}

TEST(DistGpu, BadCallsFailCleanlyAndChangeNothing) {
  XPOSE_SKIP_WITHOUT_TWO_GPUS();
  Ranks& ranks = Ranks::get();
  const int n = ranks.count();
  xpose::dist::Plan plan;
  // Plans created here one rank at a time use send/receive: the copy engine would make creation
  // collective (create_group is tested by run_case).
  xpose::dist::Options one_rank;
  one_rank.exchange = Exchange::send_receive;
  // A layout for the wrong number of ranks.
  EXPECT_EQ(xpose::dist::Plan::create(plan, ranks.comm(0), {4, 4, {4}, {4}}, DType::f32), Status::invalid_argument);
  EXPECT_NE(std::string(xpose::last_error_message()).find("communicator has"), std::string::npos);
  EXPECT_FALSE(plan.valid());
  EXPECT_EQ(xpose::dist::Plan::create(plan, nullptr, {4, 4, {4}, {4}}, DType::f32), Status::invalid_argument);
  xpose::dist::Options bad_options;
  bad_options.step_bytes = -2;  // -1 is kAutomaticStepBytes
  Layout layout{64, 32, xpose::dist::even_split(64, n), xpose::dist::even_split(32, n)};
  EXPECT_EQ(xpose::dist::Plan::create(plan, ranks.comm(0), layout, DType::f32, bad_options), Status::invalid_argument);

  // create_group: arrays that are not arrays, a null comm among them; nothing is created.
  EXPECT_EQ(xpose::dist::create_group(nullptr, nullptr, 2, layout, DType::f32), Status::invalid_argument);
  // The vector form leaves the caller's vector as it was: here one plan, still valid.
  std::vector<xpose::dist::Plan> group_plans(1);
  ASSERT_EQ(xpose::dist::Plan::create(group_plans[0], ranks.comm(0), layout, DType::f32, one_rank), Status::ok);
  EXPECT_EQ(xpose::dist::create_group(group_plans, {ranks.comm(0), nullptr}, layout, DType::f32),
            Status::invalid_argument);
  EXPECT_NE(std::string(xpose::last_error_message()).find("comms[1]"), std::string::npos)
      << xpose::last_error_message();
  ASSERT_EQ(group_plans.size(), 1u);
  EXPECT_TRUE(group_plans[0].valid());

  ASSERT_EQ(xpose::dist::Plan::create(plan, ranks.comm(0), layout, DType::f32, one_rank), Status::ok);
  EXPECT_EQ(plan.exchange(), Exchange::send_receive);
  EXPECT_EQ(plan.rank(), 0);
  EXPECT_EQ(plan.ranks(), n);
  EXPECT_EQ(plan.device(), 0);
  EXPECT_EQ(plan.steps(), 1);
  EXPECT_GT(plan.workspace_bytes(), 0);
  CUDA_OK(cudaSetDevice(0));
  void *in = nullptr, *out = nullptr, *other_gpu = nullptr;
  const size_t bytes = 64 * 32 * 4;
  CUDA_OK(cudaMalloc(&in, bytes));
  CUDA_OK(cudaMalloc(&out, bytes));
  CUDA_OK(cudaMemset(out, kPoison, bytes));
  std::vector<float> host(bytes / 4, 1.0f);
  CUDA_OK(cudaSetDevice(1));
  CUDA_OK(cudaMalloc(&other_gpu, 2 * bytes));
  CUDA_OK(cudaSetDevice(0));

  auto expect_rejected = [&](const void* a, void* b, cudaStream_t s, const char* needle) {
    EXPECT_EQ(plan.execute(a, b, s), Status::invalid_argument) << needle;
    EXPECT_NE(std::string(xpose::last_error_message()).find(needle), std::string::npos)
        << xpose::last_error_message();
  };
  expect_rejected(nullptr, out, nullptr, "in is null");
  expect_rejected(in, nullptr, nullptr, "out is null");
  expect_rejected(host.data(), out, nullptr, "host memory");
  expect_rejected(other_gpu, out, nullptr, "lives on GPU 1");
  expect_rejected(in, in, nullptr, "overlap");
  expect_rejected(in, out, ranks.stream(1), "belongs to GPU 1");
  // Grouped: the same plan twice, and plans of different step counts.
  std::vector<xpose::dist::Execution> twice = {{&plan, in, out, nullptr}, {&plan, in, out, nullptr}};
  EXPECT_EQ(xpose::dist::execute_group(twice), Status::invalid_argument);
  xpose::dist::Plan unrelated;
  xpose::dist::Options small_steps = one_rank;
  small_steps.step_bytes = 256;
  ASSERT_EQ(xpose::dist::Plan::create(unrelated, ranks.comm(1), layout, DType::f32, small_steps), Status::ok);
  std::vector<xpose::dist::Execution> mixed = {{&plan, in, out, nullptr}, {&unrelated, other_gpu, static_cast<unsigned char*>(other_gpu) + bytes, nullptr}};
  EXPECT_EQ(xpose::dist::execute_group(mixed), Status::invalid_argument);
  xpose::dist::Plan empty;
  EXPECT_EQ(empty.execute(in, out, nullptr), Status::invalid_argument);

  // None of the rejected calls wrote to the output.
  std::vector<unsigned char> after(bytes);
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(after.data(), out, bytes, cudaMemcpyDeviceToHost));
  for (size_t k = 0; k < bytes; ++k) ASSERT_EQ(after[k], kPoison) << "byte " << k;
  cudaFree(in);
  cudaFree(out);
  cudaSetDevice(1);
  cudaFree(other_gpu);
  cudaSetDevice(0);
}

TEST(DistGpu, EmptyMatrixIsANoOp) {
  XPOSE_SKIP_WITHOUT_TWO_GPUS();
  run_case({0, 0, DType::f32, "even", "even"});
  run_case({0, 17, DType::f32, "even", "uneven"});
  run_case({17, 0, DType::f64, "uneven", "even"});
}

}  // namespace
