//===- GeneralizeShapes.h - one linalg function for every batch size -----===//
#ifndef LTC_MLIR_COMPILER_GENERALIZESHAPES_H
#define LTC_MLIR_COMPILER_GENERALIZESHAPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace ltc_mlir {

/// `generic` and `other` are the same graph lowered to linalg on tensors at
/// batch sizes `firstBatch` and `otherBatch` (both >= 2). Rewrites `generic`
/// so that every size and constant that differs between the two (each must
/// be k*B for an integer k, or a float c*B or c/B) is computed from the
/// batch size B read from an argument on entry: one function for every B.
/// `other` keeps its computation (its constants and empty tensors get a
/// clone per use, as `generic`'s). On failure `why` names the op and the
/// difference; `generic` may then have changed.
/// Before lowering the two torch-dialect modules of such a pair: marks each
/// torch op with the sizes of its values that differ between the two
/// (kBatchSizesAttrName), in each module. Does nothing when the modules do
/// not have the same ops.
void annotateBatchSizes(mlir::ModuleOp first, mlir::ModuleOp second);

mlir::LogicalResult generalizeBatchSize(mlir::func::FuncOp generic,
                                        mlir::func::FuncOp other,
                                        int64_t firstBatch, int64_t otherBatch,
                                        std::string &why);

} // namespace ltc_mlir

#endif // LTC_MLIR_COMPILER_GENERALIZESHAPES_H
