//===- GeneralizeShapes.h - one linalg function for every batch size -----===//
#ifndef LTC_MLIR_COMPILER_GENERALIZESHAPES_H
#define LTC_MLIR_COMPILER_GENERALIZESHAPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace ltc_mlir {

/// `generic` and `other` are the same graph lowered to linalg on tensors at
/// batch sizes `firstBatch` and `otherBatch` (both >= 2). Rewrites `generic`
/// so that every size and constant that differs between the two (each must
/// be k*B for an integer k, or a float c*B or c/B) is computed from the
/// batch size B read from an argument on entry: one function for every B.
/// `other` is left as it was. On failure `generic` is unchanged unless the
/// final verification failed, and `why` names the op and the difference.
mlir::LogicalResult generalizeBatchSize(mlir::func::FuncOp generic,
                                        mlir::func::FuncOp other,
                                        int64_t firstBatch, int64_t otherBatch,
                                        std::string &why);

} // namespace ltc_mlir

#endif // LTC_MLIR_COMPILER_GENERALIZESHAPES_H
