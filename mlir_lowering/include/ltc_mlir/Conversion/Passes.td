//===- Passes.td - ltc_mlir conversion passes --------------*- tablegen -*-===//
#ifndef LTC_MLIR_CONVERSION_PASSES
#define LTC_MLIR_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTorchToLinalg : Pass<"convert-torch-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower torch dialect ops to linalg-on-tensors";
  let description = [{
    (Placeholder: the TorchToLinalg owner fills in before/after IR.)
  }];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::func::FuncDialect"
  ];
}

#endif // LTC_MLIR_CONVERSION_PASSES
