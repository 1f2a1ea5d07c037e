// SPDX-License-Identifier: Apache-2.0
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include "dist/window.hpp"

namespace xpose::dist::detail {
namespace {

__global__ void peer_bases_kernel(ncclWindow_t window, int ranks, void** bases) {
  for (int r = static_cast<int>(threadIdx.x); r < ranks; r += static_cast<int>(blockDim.x))
    bases[r] = ncclGetPeerPointer(window, 0, r);
}

}  // namespace

int load_store_team_size(ncclComm_t comm) { return ncclTeamLsa(comm).nRanks; }

cudaError_t window_peer_bases(ncclWindow_t window, int ranks, std::vector<unsigned char*>* peer_bases) {
  void** bases = nullptr;
  cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&bases), sizeof(void*) * static_cast<size_t>(ranks));
  if (e != cudaSuccess) return e;
  peer_bases_kernel<<<1, 32>>>(window, ranks, bases);
  std::vector<void*> host(static_cast<size_t>(ranks), nullptr);
  e = cudaGetLastError();
  if (e == cudaSuccess)
    e = cudaMemcpy(host.data(), bases, sizeof(void*) * static_cast<size_t>(ranks), cudaMemcpyDeviceToHost);
  cudaFree(bases);
  if (e != cudaSuccess) return e;
  peer_bases->assign(static_cast<size_t>(ranks), nullptr);
  for (int r = 0; r < ranks; ++r) (*peer_bases)[static_cast<size_t>(r)] = static_cast<unsigned char*>(host[static_cast<size_t>(r)]);
  return cudaSuccess;
}

}  // namespace xpose::dist::detail
