// collectives_guard: the torch.distributed collectives that are not graph
// nodes (collectives/c10d_kernels.h lists those that are) raise on lazy
// tensors instead of returning them unchanged.
//
// The c10d ops have CPU and CUDA kernels only. Through the eager fallback
// they would run on CPU copies, and since their schemas mark nothing as
// written, the caller's lazy tensor would keep its own value: the op would
// return without error and without communicating.
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
      " is not supported on lazy tensors (all_reduce, broadcast, all_gather, "
      "all_gather_into_tensor, reduce_scatter and reduce_scatter_tensor are, and the "
      "functional collectives of the same names). Run it on a CPU tensor (t.cpu(), then "
      "copy the result back with t.copy_(...))");
  __builtin_unreachable();
}

namespace {

void RejectBoxed(const c10::OperatorHandle& op, torch::jit::Stack*) { RejectCollective(op); }

}  // namespace

void RegisterCollectivesGuard() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "_c10d_functional", c10::DispatchKey::Lazy, __FILE__, __LINE__);
  // The others have kernels of ours (collectives/c10d_kernels.cpp).
  for (const char* op : {"all_reduce_", "all_reduce_coalesced_",
                         "all_gather_into_tensor_coalesced",
                         "reduce_scatter_tensor_coalesced", "all_to_all_single", "broadcast_"})
    lib->impl(op, torch::CppFunction::makeFromBoxedFunction<&RejectBoxed>());
}

}  // namespace backend
}  // namespace ltc_mlir
