//===- ExpandStridedCopies.cpp - strided memref.copy as compiled loops ----===//
//
// Bufferization inserts memref.copy ops (an insert_slice it cannot do in
// place, a tile written back into a strided view). finalize-memref-to-llvm
// turns a copy between contiguous row-major memrefs into llvm.memcpy, but
// any other copy into a call of the generic `memrefCopy` runtime function,
// which walks the view element by element: a stride-2 convolution's im2col
// made ~20 such calls per step, some inside loops over rows, and its
// training step ran 20x slower than eager. Static-shaped copies that are not
// plain memcpys become `linalg.copy` here, so `convert-linalg-to-loops`
// compiles them into loops LLVM vectorizes where the strides allow.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

bool isPlainMemcpy(MemRefType type) {
  return memref::isStaticShapeAndContiguousRowMajor(type);
}

struct ExpandStridedCopiesPass
    : PassWrapper<ExpandStridedCopiesPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandStridedCopiesPass)

  StringRef getArgument() const final { return "ltc-expand-strided-copies"; }
  StringRef getDescription() const final {
    return "Rewrite static-shaped memref.copy ops that are not plain memcpys "
           "into linalg.copy (compiled loops instead of the generic "
           "memrefCopy runtime call)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect>();
  }

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = llvm::dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = llvm::dyn_cast<MemRefType>(copy.getTarget().getType());
      if (!source || !target || !source.hasStaticShape() ||
          !target.hasStaticShape() || source.getRank() == 0)
        return;
      if (isPlainMemcpy(source) && isPlainMemcpy(target))
        return;
      copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      if (copy.getSource() != copy.getTarget())
        linalg::CopyOp::create(b, copy.getLoc(), ValueRange{copy.getSource()},
                               ValueRange{copy.getTarget()});
      copy.erase();
    }
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createExpandStridedCopiesPass() {
  return std::make_unique<ExpandStridedCopiesPass>();
}
