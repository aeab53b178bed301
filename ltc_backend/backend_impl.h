// backend_impl: ltc_mlir's torch::lazy::BackendImplInterface. Data transfer,
// devices and IR building are shared with LTC's TorchScript backend (our
// BackendData is its TSData: a host at::Tensor or a scalar); lowering,
// compiling and executing are ours.
#pragma once

namespace ltc_mlir {
namespace backend {

// Registers the backend with LTC (idempotent, thread-safe).
void InitBackend();

}  // namespace backend
}  // namespace ltc_mlir
