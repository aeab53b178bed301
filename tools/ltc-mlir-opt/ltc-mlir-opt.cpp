//===- ltc-mlir-opt.cpp - mlir-opt with ltc_mlir registrations ------------===//
//
// Replays dumped modules and drives lit tests: the torch dialect, every
// upstream dialect/interface our pipelines use, our passes and the
// `ltc-torch-to-linalg`, `ltc-linalg-to-llvm` and `ltc-torch-to-llvm`
// pipelines.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  ltc_mlir::registerAllDialects(registry);
  ltc_mlir::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "ltc_mlir optimizer driver\n", registry));
}
