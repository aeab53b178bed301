// storage_ops: ops whose meaning is sharing storage, which a lazy tensor does
// not have. Through the eager fallback `x.set_(y)` copied y's values into x
// once, and later writes to y no longer reached x: a silent divergence from
// eager. They raise instead.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

void RejectSharing(const c10::OperatorHandle& op, torch::jit::Stack*) {
  TORCH_CHECK(false, OperatorFullName(op), " is not supported on lazy tensors: it would make "
              "the tensor share storage, and lazy tensors have none. Use x.copy_(y) to copy "
              "values, or rebind the Python name (x = y).");
}

}  // namespace

void RegisterStorageOps() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  // The in-place ops and the functional variants functionalization makes of them.
  for (const char* name :
       {"set_.source_Tensor", "set_.source_Storage", "set_.source_Storage_storage_offset",
        "set_.source_Tensor_storage_offset", "set.source_Tensor", "set.source_Storage",
        "set.source_Storage_storage_offset"})
    lib->impl(name, torch::CppFunction::makeFromBoxedFunction<&RejectSharing>());
}

}  // namespace backend
}  // namespace ltc_mlir
