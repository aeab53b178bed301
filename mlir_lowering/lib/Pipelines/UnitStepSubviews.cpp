//===- UnitStepSubviews.cpp - steps of size-1 subview dims set to 1 -------===//
//
// MLIR 22's memref::SubViewOp::getDroppedDims crashes (reads out of bounds,
// SIGSEGV or "out of memory") on a rank-reducing subview that keeps a size-1
// dimension with a step other than 1, e.g.
//   memref.subview %a[6, 1, 1] [1, 1, 2] [1, 2, 2]
//       : memref<9x4x4xf32> to memref<1x2xf32, strided<[8, 2], offset: 101>>
// expand-strided-metadata calls it on every subview. Tiling a strided
// window (pooling, strided convolutions) produces such subviews when a tile
// is one element wide: ResNet-18's training graph crashed the process.
//
// The step of a size-1 dim never moves an address, so such a subview is
// rewritten with step 1 on its size-1 dims. That changes the strides of
// those dims in the result type (and memref.cast cannot change a static
// stride), so the new subview is relabelled with the original type by a
// memref.reinterpret_cast at the same offset (taken from
// extract_strided_metadata): users are unchanged, and only size-1 dims get
// a different stride, which addresses nothing.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

/// Whether `op` reduces rank and keeps or drops a size-1 dim whose step
/// is not 1.
bool hasSteppedUnitDim(memref::SubViewOp op) {
  if (op.getType().getRank() == op.getSourceType().getRank())
    return false;
  for (auto [size, step] : llvm::zip(op.getMixedSizes(), op.getMixedStrides())) {
    std::optional<int64_t> s = getConstantIntValue(size);
    std::optional<int64_t> st = getConstantIntValue(step);
    if (s && *s == 1 && (!st || *st != 1))
      return true;
  }
  return false;
}

void rewriteSubview(memref::SubViewOp op) {
  if (!hasSteppedUnitDim(op))
    return;
  MemRefType resultType = op.getType();
  if (!resultType.isStrided())
    return;
  SmallVector<OpFoldResult> sizes = op.getMixedSizes();
  SmallVector<OpFoldResult> steps = op.getMixedStrides();
  OpBuilder b(op);
  for (auto [size, step] : llvm::zip(sizes, steps))
    if (isConstantIntValue(size, 1))
      step = b.getIndexAttr(1);
  auto newType = cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
      resultType.getShape(), op.getSourceType(), op.getMixedOffsets(), sizes, steps));
  Location loc = op.getLoc();
  Value stepless = memref::SubViewOp::create(b, loc, newType, op.getSource(),
                                             op.getMixedOffsets(), sizes, steps);
  memref::ExtractStridedMetadataOp metadata;  // only for dynamic values
  auto getMetadata = [&] {
    if (!metadata)
      metadata = memref::ExtractStridedMetadataOp::create(b, loc, stepless);
    return metadata;
  };
  auto [strides, offset] = resultType.getStridesAndOffset();
  SmallVector<OpFoldResult> newSizes, newStrides;
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    newSizes.push_back(resultType.isDynamicDim(d)
                           ? OpFoldResult(getMetadata().getSizes()[d])
                           : OpFoldResult(b.getIndexAttr(resultType.getDimSize(d))));
    newStrides.push_back(ShapedType::isDynamic(strides[d])
                             ? OpFoldResult(getMetadata().getStrides()[d])
                             : OpFoldResult(b.getIndexAttr(strides[d])));
  }
  OpFoldResult newOffset = ShapedType::isDynamic(offset)
                               ? OpFoldResult(getMetadata().getOffset())
                               : OpFoldResult(b.getIndexAttr(offset));
  Value relabelled = memref::ReinterpretCastOp::create(
      b, loc, resultType, stepless, newOffset, newSizes, newStrides);
  op.getResult().replaceAllUsesWith(relabelled);
  op.erase();
}

struct UnitStepSubviewsPass
    : PassWrapper<UnitStepSubviewsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(UnitStepSubviewsPass)

  StringRef getArgument() const final { return "ltc-unit-step-subviews"; }
  StringRef getDescription() const final {
    return "Set the step of size-1 dims of rank-reducing memref.subview ops "
           "to 1 (MLIR 22's getDroppedDims crashes on them)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<memref::MemRefDialect>();
  }
  void runOnOperation() override {
    SmallVector<memref::SubViewOp> subviews;
    getOperation()->walk([&](memref::SubViewOp op) { subviews.push_back(op); });
    for (memref::SubViewOp op : subviews)
      rewriteSubview(op);
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createUnitStepSubviewsPass() {
  return std::make_unique<UnitStepSubviewsPass>();
}
