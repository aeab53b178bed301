// ts_backend: what our backend takes from torch's TorchScript LTC backend
// (boundary.h): its generated Lazy kernels and its services.
#include <torch/csrc/lazy/ts_backend/ts_backend_impl.h>

#include "ltc_backend/torchscript/boundary.h"

// LTC's code-generated Lazy kernels; exported by libtorch_cpu but declared in
// no header torch ships.
namespace at {
void RegisterTorchScriptLazyNativeFunctions();
void RegisterTorchScriptAutogradLazyNativeFunctions();
}  // namespace at

namespace ltc_mlir {
namespace backend {

void RegisterTorchScriptBackendKernels() {
  at::RegisterTorchScriptLazyNativeFunctions();
  at::RegisterTorchScriptAutogradLazyNativeFunctions();
}

torch::lazy::BackendImplInterface* TorchScriptBackendServices() {
  return torch::lazy::GetTSBackendImpl();
}

}  // namespace backend
}  // namespace ltc_mlir
