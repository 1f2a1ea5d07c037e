// SPDX-License-Identifier: Apache-2.0
// Where this GPU reaches the other ranks' parts of an NCCL symmetric memory window (registered
// with ncclCommWindowRegister on a communicator whose ranks can all load and store each other's
// memory). NCCL hands these addresses out only in device code (ncclGetPeerPointer), so a small
// kernel reads them once, when a plan is created.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <vector>

namespace xpose::dist::detail {

// How many ranks of `comm`, this one included, can load and store each other's memory (NCCL's
// load/store-accessible team, "LSA").
int load_store_team_size(ncclComm_t comm);

// peer_bases[r]: the address of rank r's window start, valid on the current device. Synchronous.
cudaError_t window_peer_bases(ncclWindow_t window, int ranks, std::vector<unsigned char*>* peer_bases);

}  // namespace xpose::dist::detail
