// SPDX-License-Identifier: Apache-2.0
// xpose::dist across processes: one MPI rank per GPU, NCCL bootstrapped through MPI.
//
//   mpirun -np 2 build/examples/dist_mpi/xpose_dist_mpi [rows cols [even|uneven] [reps]]
//
// Each rank holds a block of rows of a rows x cols matrix A and receives a block of rows of A^T;
// the split is uneven by default (rank r: input rows in proportion to r + 1, output rows in
// proportion to N - r), so that the two splits differ. Elements are 32-bit hashes of their
// coordinates (never zero); every element of every rank's output is checked against them.
// Assumptions: one GPU per rank (local rank modulo the GPUs of the node), every rank passes the
// same arguments, the matrix fits in host memory per rank (blocks are filled and checked on the
// host to keep the example plain C++). The exit status is non-zero if any rank fails.
#include <mpi.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "xpose/dist.hpp"

namespace {

int world_rank = 0;

// A failed call ends every rank: a peer left waiting in NCCL would hang.
[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "rank %d: error: %s\n", world_rank, what.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(status));
}

void check_nccl(ncclResult_t result, const char* what) {
  if (result != ncclSuccess) die(std::string(what) + ": " + ncclGetErrorString(result));
}

void check_xpose(xpose::Status status, const char* what) {
  if (status != xpose::Status::ok) die(std::string(what) + ": " + xpose::last_error_message());
}

// A(i, j), from its linear index i * cols + j: a multiplicative hash, low bit set (never zero).
uint32_t encode(uint64_t index) { return static_cast<uint32_t>((index * 0x9E3779B97F4A7C15ull) >> 32) | 1u; }

// `count` items in shares proportional to `weights`: share r is
// floor(count * W(r+1) / W) - floor(count * W(r) / W), W(r) the sum of the first r weights.
std::vector<int64_t> proportional_split(int64_t count, const std::vector<int64_t>& weights) {
  int64_t total = 0;
  for (int64_t w : weights) total += w;
  std::vector<int64_t> shares;
  int64_t before = 0, boundary = 0;
  for (int64_t w : weights) {
    before += w;
    const auto next = static_cast<int64_t>(static_cast<unsigned __int128>(count) * before / total);
    shares.push_back(next - boundary);
    boundary = next;
  }
  return shares;
}

int64_t parse_size(const char* text, const char* what) {
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || value <= 0) die(std::string(what) + " '" + text + "' is not a positive integer");
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  const int64_t rows = argc > 1 ? parse_size(argv[1], "rows") : 8192;
  const int64_t cols = argc > 2 ? parse_size(argv[2], "cols") : 12288;
  const std::string split = argc > 3 ? argv[3] : "uneven";
  const int reps = argc > 4 ? static_cast<int>(parse_size(argv[4], "reps")) : 10;
  if (split != "even" && split != "uneven") die("split '" + split + "' is not even or uneven");

  // One GPU per rank: the rank's index among the ranks of its node, modulo the node's GPUs.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node);
  int local_rank = 0, devices = 0;
  MPI_Comm_rank(node, &local_rank);
  check_cuda(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  if (devices == 0) die("no CUDA device is visible");
  const int device = local_rank % devices;
  check_cuda(cudaSetDevice(device), "cudaSetDevice");

  // NVLink multicast (NVLS) stays off (a value already in the environment wins); then rank 0's
  // NCCL id goes to every rank over MPI.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  ncclUniqueId id;
  if (world_rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm = nullptr;
  check_nccl(ncclCommInitRank(&comm, ranks, id, world_rank), "ncclCommInitRank");

  xpose::dist::Layout layout;
  layout.rows = rows;
  layout.cols = cols;
  if (split == "even") {
    layout.in_rows = xpose::dist::even_split(rows, ranks);
    layout.out_rows = xpose::dist::even_split(cols, ranks);
  } else {
    std::vector<int64_t> in_weights, out_weights;
    for (int r = 0; r < ranks; ++r) {
      in_weights.push_back(r + 1);
      out_weights.push_back(ranks - r);
    }
    layout.in_rows = proportional_split(rows, in_weights);
    layout.out_rows = proportional_split(cols, out_weights);
  }
  int64_t first_in_row = 0, first_out_row = 0;  // of this rank's blocks, in A and in A^T
  for (int r = 0; r < world_rank; ++r) {
    first_in_row += layout.in_rows[r];
    first_out_row += layout.out_rows[r];
  }
  const int64_t my_in_rows = layout.in_rows[world_rank], my_out_rows = layout.out_rows[world_rank];

  // Every rank creates its plan at the same time: with the copy engine (the default within one
  // node) creation registers NCCL symmetric memory, which is collective.
  xpose::dist::Plan plan;
  check_xpose(xpose::dist::Plan::create(plan, comm, layout, xpose::DType::u32), "xpose::dist::Plan::create");

  // This rank's rows of A: in(ii, j) = A(first_in_row + ii, j).
  std::vector<uint32_t> host_in(static_cast<size_t>(my_in_rows * cols));
  for (int64_t ii = 0; ii < my_in_rows; ++ii)
    for (int64_t j = 0; j < cols; ++j)
      host_in[static_cast<size_t>(ii * cols + j)] = encode(static_cast<uint64_t>((first_in_row + ii) * cols + j));
  const size_t in_bytes = host_in.size() * sizeof(uint32_t);
  const size_t out_bytes = static_cast<size_t>(my_out_rows * rows) * sizeof(uint32_t);
  void* in = nullptr;
  void* out = nullptr;
  cudaStream_t stream = nullptr;
  check_cuda(cudaMalloc(&in, std::max<size_t>(in_bytes, 1)), "cudaMalloc (input block)");
  check_cuda(cudaMalloc(&out, std::max<size_t>(out_bytes, 1)), "cudaMalloc (output block)");
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check_cuda(cudaMemcpy(in, host_in.data(), in_bytes, cudaMemcpyHostToDevice), "cudaMemcpy (input block)");
  check_cuda(cudaMemset(out, 0, out_bytes), "cudaMemset (output block)");  // 0 is never a value of A

  // The verified run (which also warms up NCCL's connections), then the timed ones: every rank
  // starts together, and a run ends when this rank's block is complete.
  check_xpose(plan.execute(in, out, stream), "xpose::dist::Plan::execute");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<uint32_t> host_out(static_cast<size_t>(my_out_rows * rows));
  check_cuda(cudaMemcpy(host_out.data(), out, out_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (output block)");
  // out(jj, i) = A^T(first_out_row + jj, i) = A(i, first_out_row + jj).
  int64_t wrong = 0, first_wrong = -1;
  for (int64_t jj = 0; jj < my_out_rows; ++jj)
    for (int64_t i = 0; i < rows; ++i)
      if (host_out[static_cast<size_t>(jj * rows + i)] != encode(static_cast<uint64_t>(i * cols + first_out_row + jj))) {
        if (first_wrong < 0) first_wrong = jj * rows + i;
        ++wrong;
      }

  std::vector<double> seconds;
  for (int rep = 0; rep < reps; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    check_xpose(plan.execute(in, out, stream), "xpose::dist::Plan::execute");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    seconds.push_back(MPI_Wtime() - start);
  }
  std::sort(seconds.begin(), seconds.end());
  const double median_ms = seconds.empty() ? 0 : 1e3 * seconds[seconds.size() / 2];

  char where[MPI_MAX_PROCESSOR_NAME] = {};
  int where_length = 0;
  MPI_Get_processor_name(where, &where_length);
  if (wrong == 0) {
    std::printf("rank %d (%s, GPU %d): rows %lld.. of A -> rows %lld.. of A^T (%lld x %lld u32): PASSED; "
                "median %.3f ms over %d runs; %d steps, %s\n",
                world_rank, where, device, static_cast<long long>(first_in_row), static_cast<long long>(first_out_row),
                static_cast<long long>(my_out_rows), static_cast<long long>(rows), median_ms, reps, plan.steps(),
                plan.exchange() == xpose::dist::Exchange::copy_engine ? "copy engine" : "send/receive");
  } else {
    const int64_t jj = first_wrong / rows, i = first_wrong % rows;
    std::printf("rank %d (%s, GPU %d): FAILED: %lld wrong elements; first: A^T[%lld][%lld] is 0x%08x, expected 0x%08x\n",
                world_rank, where, device, static_cast<long long>(wrong), static_cast<long long>(first_out_row + jj),
                static_cast<long long>(i), host_out[static_cast<size_t>(first_wrong)],
                encode(static_cast<uint64_t>(i * cols + first_out_row + jj)));
  }
  std::fflush(stdout);

  long long failures = wrong == 0 ? 0 : 1, failed_ranks = 0;
  MPI_Allreduce(&failures, &failed_ranks, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  double slowest_ms = 0;
  MPI_Reduce(&median_ms, &slowest_ms, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (world_rank == 0)
    std::printf("%lld x %lld u32 over %d ranks (%s split): %s; slowest rank's median %.3f ms\n",
                static_cast<long long>(rows), static_cast<long long>(cols), ranks, split.c_str(),
                failed_ranks == 0 ? "PASSED" : "FAILED", slowest_ms);

  plan = xpose::dist::Plan();  // the plan's streams and workspace go before the communicator
  cudaStreamDestroy(stream);
  cudaFree(in);
  cudaFree(out);
  ncclCommDestroy(comm);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return failed_ranks == 0 ? 0 : 1;
}
