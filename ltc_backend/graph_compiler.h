// graph_compiler: turns a synced LTC graph (MlirComputation) into native
// code, or marks it for the TorchScript fallback with the reason.
#pragma once

#include "ltc_backend/computation.h"

namespace ltc_mlir {
namespace backend {

// Emits the torch-dialect module, compiles it through mlir_lowering and sets
// comp.executable; on any failure sets comp.fallback_ops / fallback_reason
// (and warns). Never throws for unsupported graphs.
void CompileComputation(MlirComputation& comp);

}  // namespace backend
}  // namespace ltc_mlir
