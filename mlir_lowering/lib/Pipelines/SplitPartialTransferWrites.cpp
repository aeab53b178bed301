//===- SplitPartialTransferWrites.cpp - keep the unwritten part of a dest -===//
//
// MLIR 22's bufferization treats a `vector.transfer_write` on a tensor with
// zero indices and no mask as a full overwrite of its destination when
// every destination dim is <= the vector dim at the same position. The
// comparison zips the two shapes, so a rank-reduced write (vector<4xf32>
// into tensor<3x4xf32>, which the tensor-subset folds make of
// `insert_slice(transfer_write(extract_slice))`) and some permuted writes
// pass although they write only part of the destination. The destination
// is then taken as "not read": when it must be copied (a read-only function
// argument, or a value still used later) the new buffer is allocated but
// the destination's contents are never copied into it, and every element
// the write does not cover is uninitialised memory. In-place updates of
// one row (`x[0].add_(1)`, `select_scatter`) hit this.
//
// This pass rewrites such writes into
//   %s = tensor.extract_slice %dest [0..] [box] [1..]
//   %w = vector.transfer_write %v, %s ...      (covers all of %s)
//   %r = tensor.insert_slice %w into %dest [0..] [box] [1..]
// where `box` is the region actually written, so bufferization sees the
// read of %dest in the insert_slice and keeps the other elements. When
// %dest can be updated in place, extract/insert become one subview and
// nothing is copied; otherwise %dest is copied once (plus the written box).
//
// Before:
//   %w = vector.transfer_write %v, %arg[%c0, %c0] {in_bounds = [true]}
//       : vector<4xf32>, tensor<3x4xf32>
// After:
//   %s = tensor.extract_slice %arg[0, 0] [1, 4] [1, 1]
//       : tensor<3x4xf32> to tensor<1x4xf32>
//   %t = vector.transfer_write %v, %s[%c0, %c0] {in_bounds = [true]}
//       : vector<4xf32>, tensor<1x4xf32>
//   %w = tensor.insert_slice %t into %arg[0, 0] [1, 4] [1, 1]
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

/// What bufferization (VectorOps' BufferizableOpInterface for
/// transfer_write) concludes: true when it treats `op` as overwriting all
/// of its destination, i.e. the destination is not read.
bool bufferizationAssumesFullOverwrite(vector::TransferWriteOp op,
                                       RankedTensorType destType) {
  if (!destType.hasStaticShape() || op.getMask())
    return false;
  for (Value index : op.getIndices())
    if (getConstantIntValue(index) != 0)
      return false;
  for (auto [destSize, vectorSize] :
       llvm::zip(destType.getShape(), op.getVectorType().getShape()))
    if (destSize > vectorSize)
      return false;
  return true;
}

/// The sizes of the region of the destination `op` writes when its indices
/// are all zero: per destination dim, the size of the vector dim mapped to
/// it (clipped to the destination: out-of-bounds lanes are dropped), or 1
/// for a dim no vector dim maps to (only index 0 is written there).
SmallVector<int64_t> getWrittenBox(vector::TransferWriteOp op,
                                   RankedTensorType destType) {
  SmallVector<int64_t> box(destType.getRank(), 1);
  AffineMap map = op.getPermutationMap();
  ArrayRef<int64_t> vectorShape = op.getVectorType().getShape();
  for (auto [j, expr] : llvm::enumerate(map.getResults()))
    if (auto dim = llvm::dyn_cast<AffineDimExpr>(expr)) {
      unsigned d = dim.getPosition();
      box[d] = std::min(vectorShape[j], destType.getDimSize(d));
    }
  return box;
}

struct SplitPartialTransferWritesPass
    : PassWrapper<SplitPartialTransferWritesPass,
                  OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SplitPartialTransferWritesPass)

  StringRef getArgument() const final {
    return "ltc-split-partial-transfer-writes";
  }
  StringRef getDescription() const final {
    return "Rewrite vector.transfer_write ops on tensors that write only part "
           "of their destination, but that bufferization would treat as "
           "full overwrites, into extract_slice/transfer_write/insert_slice";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<tensor::TensorDialect, vector::VectorDialect>();
  }

  void runOnOperation() override {
    SmallVector<vector::TransferWriteOp> writes;
    getOperation().walk([&](vector::TransferWriteOp op) {
      auto destType = llvm::dyn_cast<RankedTensorType>(op.getShapedType());
      if (!destType || !bufferizationAssumesFullOverwrite(op, destType))
        return;
      if (getWrittenBox(op, destType) != destType.getShape())
        writes.push_back(op);
    });
    for (vector::TransferWriteOp op : writes)
      split(op);
  }

  static void split(vector::TransferWriteOp op) {
    auto destType = llvm::cast<RankedTensorType>(op.getShapedType());
    SmallVector<int64_t> box = getWrittenBox(op, destType);
    OpBuilder b(op);
    Location loc = op.getLoc();
    int64_t rank = destType.getRank();
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : box)
      sizes.push_back(b.getIndexAttr(size));
    Value dest = op.getBase();
    auto sliceType = RankedTensorType::get(box, destType.getElementType());
    Value slice = tensor::ExtractSliceOp::create(b, loc, sliceType, dest,
                                                 offsets, sizes, strides);
    // Same vector, (zero) indices, map and in_bounds: only the destination
    // shrinks to the written region.
    auto inner = vector::TransferWriteOp::create(
        b, loc, op.getVector(), slice, op.getIndices(),
        op.getPermutationMapAttr(), op.getInBoundsAttr());
    Value result = tensor::InsertSliceOp::create(
        b, loc, inner.getResult(), dest, offsets, sizes, strides);
    op.getResult().replaceAllUsesWith(result);
    op.erase();
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createSplitPartialTransferWritesPass() {
  return std::make_unique<SplitPartialTransferWritesPass>();
}
