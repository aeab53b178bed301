//===- InitAll.h - registration for tools and the compiler -----*- C++ -*-===//
#ifndef LTC_MLIR_INITALL_H
#define LTC_MLIR_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace ltc_mlir {
/// Registers the torch dialect and every upstream dialect/interface the
/// pipelines need (func, linalg, tensor, arith, math, scf, omp, llvm, ...).
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers our passes and pipelines (for ltc-mlir-opt).
void registerAllPasses();
} // namespace ltc_mlir

#endif
