#pragma once

namespace ltc_mlir {
namespace backend {

// Registers our AutogradLazy kernels for view ops whose torch 1.13 lazy
// behaviour differs from eager (see view_kernels.cpp). Called once from
// InitBackend, after LTC's own kernels.
void RegisterViewKernels();

}  // namespace backend
}  // namespace ltc_mlir
