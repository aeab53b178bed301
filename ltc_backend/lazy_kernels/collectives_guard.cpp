// collectives_guard: torch.distributed collectives on lazy tensors raise
// instead of returning the tensor unreduced.
//
// The c10d ops (c10d::allreduce_, broadcast_, allgather_, ...) have CPU and
// CUDA kernels only. Through the eager fallback they ran on CPU copies, and
// since their schemas mark nothing as written, the caller's lazy tensor kept
// its own value: dist.all_reduce(t) returned without error and without
// reducing. The functional collectives (_c10d_functional::all_reduce, ...)
// are CompositeExplicitAutograd and returned their input, unreduced, on a
// lazy tensor. Until collectives are graph nodes (issue "Distributed"), both
// raise, saying what to do.
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <string>

#include "ltc_backend/lazy_kernels/collectives_guard.h"

namespace ltc_mlir {
namespace backend {

bool IsCollective(const c10::OperatorHandle& op) {
  const std::string& name = op.schema().name();
  return name.rfind("c10d::", 0) == 0 || name.rfind("_c10d_functional::", 0) == 0;
}

void RejectCollective(const c10::OperatorHandle& op) {
  TORCH_CHECK_NOT_IMPLEMENTED(
      false, "ltc_mlir: the torch.distributed collective ", op.schema().name(),
      " cannot run on a lazy tensor yet (it would return the tensor unreduced). Run the "
      "collective on a CPU tensor (t.cpu(), then copy the result back with t.copy_(...)), "
      "or train on one process");
  __builtin_unreachable();
}

namespace {

void RejectBoxed(const c10::OperatorHandle& op, torch::jit::Stack*) { RejectCollective(op); }

}  // namespace

void RegisterCollectivesGuard() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "_c10d_functional", c10::DispatchKey::Lazy, __FILE__, __LINE__);
  for (const char* op : {"all_reduce", "all_reduce_", "all_reduce_coalesced",
                         "all_reduce_coalesced_", "all_gather_into_tensor",
                         "all_gather_into_tensor_coalesced", "reduce_scatter_tensor",
                         "reduce_scatter_tensor_coalesced", "all_to_all_single", "broadcast",
                         "broadcast_"})
    lib->impl(op, torch::CppFunction::makeFromBoxedFunction<&RejectBoxed>());
}

}  // namespace backend
}  // namespace ltc_mlir
