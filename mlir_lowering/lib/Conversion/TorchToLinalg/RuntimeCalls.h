//===- RuntimeCalls.h - calls from lowered code into the runtime ----------===//
//
// Some ops are computed by a function outside the generated code: LAPACK
// decompositions and eager's sorting algorithms (runtime/lapack.h,
// runtime/sorting.h, entry points taking memref descriptors) and C library
// special functions (scalar calls). The JIT resolves the names through
// resolveRuntimeSymbol, then the process's symbols.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_RUNTIMECALLS_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_RUNTIMECALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace ltc_mlir::torch_to_linalg {

/// The private function `name` of the module holding `anchor`, declared
/// with `type` on first use; `cInterface` marks it llvm.emit_c_interface
/// (memref operands passed as descriptors).
mlir::func::FuncOp getOrDeclareFunction(mlir::OpBuilder &b,
                                        mlir::Operation *anchor,
                                        llvm::StringRef name,
                                        mlir::FunctionType type, bool cInterface);

/// `tensor` as a read-only buffer of any strided layout, for a runtime
/// call: each gets its own to_buffer (see RuntimeCalls.cpp).
mlir::Value readAsRuntimeOperand(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value tensor);

/// Calls the entry point `name` on `inputs` (tensors, read as buffers of any
/// layout) and fresh buffers of `resultTypes` (written), then `scalars`
/// (i64 constants); returns the written buffers as tensors. Every memref
/// parameter has the fully dynamic strided type of its rank.
llvm::SmallVector<mlir::Value>
callRuntime(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
            mlir::ValueRange inputs,
            llvm::ArrayRef<mlir::RankedTensorType> resultTypes,
            llvm::ArrayRef<int64_t> scalars);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_RUNTIMECALLS_H
