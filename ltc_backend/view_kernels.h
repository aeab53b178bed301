#pragma once

#include <ATen/core/TensorBase.h>

namespace ltc_mlir {
namespace backend {

// Registers our AutogradLazy kernels for view ops whose lazy behaviour
// differs from eager (see view_kernels.cpp). Called once from
// InitBackend, after LTC's own kernels.
void RegisterViewKernels();

// Whether `t` is a lazy tensor wrapped by functionalization, as every lazy
// tensor user code holds is.
bool IsLazyFunctional(const at::TensorBase& t);

// Whether `tensor` (a functionalized tensor) is a view in its alias group,
// i.e. not the group's base. Conservative: true when unsure.
bool IsFunctionalView(const at::TensorBase& tensor);

}  // namespace backend
}  // namespace ltc_mlir
