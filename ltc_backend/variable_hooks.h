#pragma once

namespace ltc_mlir {
namespace backend {

// Installs autograd's VariableHooks wrapped so that `Tensor.data` of a lazy
// tensor stays a correct view of its alias group (see variable_hooks.cpp).
// Called once from InitBackend.
void InstallVariableHooks();

}  // namespace backend
}  // namespace ltc_mlir
