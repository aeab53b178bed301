// c10d_kernels: torch.distributed collectives on lazy tensors recorded in the
// lazy graph (c10d_kernels.cpp says how).
#pragma once

namespace ltc_mlir {
namespace backend {

// Functionalize-key kernels for c10d::allreduce_, allreduce_coalesced_,
// broadcast_, allgather_, _allgather_base_, reduce_scatter_,
// _reduce_scatter_base_; Lazy-key kernels for _c10d_functional::all_reduce,
// all_reduce_coalesced, all_gather_into_tensor, reduce_scatter_tensor,
// broadcast, wait_tensor. InitBackend, after RegisterCollectiveOp.
void RegisterCollectiveKernels();

}  // namespace backend
}  // namespace ltc_mlir
