// backend_impl: ltc_mlir's torch::lazy::BackendImplInterface. Data transfer,
// devices and IR building are shared with LTC's TorchScript backend (our
// BackendData is its TSData: a host at::Tensor or a scalar); lowering,
// compiling and executing are ours.
#pragma once

namespace ltc_mlir {
namespace backend {

// Registers the backend with LTC (idempotent, thread-safe).
void InitBackend();

// While on (this thread), contiguous CPU tensors moved to the lazy device
// share their storage instead of being copied. Only for graphs that are
// traced and never run (ltc_mlir.export): a run may not write its inputs,
// but their owner may change them afterwards.
void SetAdoptHostTensors(bool on);

}  // namespace backend
}  // namespace ltc_mlir
