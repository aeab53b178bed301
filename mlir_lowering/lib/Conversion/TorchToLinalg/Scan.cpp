//===- Scan.cpp - cumsum, cumprod, flip (cumsum's backward), roll ---------===//
//
// cumsum(self, dim, dtype) is an scf.for over `dim` whose iteration k adds
// slice k of self to a running accumulator (one parallel linalg.generic
// over the other dims) and inserts the rounded accumulator as slice k of
// the result. This is ATen's CPU kernel (cpu_cum_base_kernel): a
// sequential scan per line, in at::acc_type<T, /*is_cuda=*/false>, which
// is double for f32 and f64, float for bf16 (f16 is refused here, so the
// fallback runs ATen's f16 CPU kernel) and int64 for every integer dtype;
// self is first converted to the result dtype (bool and integer inputs
// give int64 without `dtype`: that is in the result type).
// The same order and accumulator give bit-identical results; cumprod is the
// same scan with * (accumulator initialized to 1). flip, which
// cumsum's backward uses (grad.flip(dim).cumsum(dim).flip(dim)), reads
// self at the reversed indices with tensor.extract.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// at::acc_type<T, false> of a cumsum result element type.
Type getScanAccumulatorType(Type elemType) {
  MLIRContext *context = elemType.getContext();
  if (isa<IntegerType>(elemType))
    return IntegerType::get(context, 64);
  if (elemType.isF16() || elemType.isBF16())
    return Float32Type::get(context);
  return Float64Type::get(context);
}

/// cumsum and cumprod (IsProd): the same scan with + or *.
template <typename OpTy, bool IsProd>
class ConvertCumulativeOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fail = [&](const Twine &why) {
      return this->fail(op, rewriter, why);
    };
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type)
      return fail("result type is not convertible");
    if (isBoolDtype(getTorchDtype(op.getResult())))
      return fail("bool result dtype is not supported");
    // f16 is not lowered: the op runs through the eager fallback, whose CPU
    // kernel (torch 2.14) takes f16.
    if (type.getElementType().isF16())
      return fail(IsProd ? "f16 cumprod is not implemented on CPU"
                         : "f16 cumsum is not implemented on CPU");
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (selfType.getShape() != type.getShape())
      return fail("result shape differs from self's");
    int64_t rank = selfType.getRank();
    std::optional<int64_t> dimArg = getConstantInt(op.getDim());
    if (!dimArg)
      return fail("dim must be a constant");
    std::optional<int64_t> dim = normalizeDim(*dimArg, rank);
    if (!dim)
      return fail("dim " + Twine(*dimArg) + " out of range");
    Type selfDtype = getTorchDtype(op.getSelf());
    bool selfUnsigned = isUnsignedDtype(selfDtype) || isBoolDtype(selfDtype);

    Location loc = op.getLoc();
    Type elemType = type.getElementType();
    // A 0-d tensor is its own cumsum; an empty one has nothing to add.
    if (rank == 0) {
      rewriter.replaceOp(op,
                         castTensor(rewriter, loc, self, elemType, selfUnsigned));
      return success();
    }
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }

    Type accType = getScanAccumulatorType(elemType);
    SmallVector<int64_t> sliceShape;
    for (int64_t d = 0; d < rank; ++d)
      if (d != *dim)
        sliceShape.push_back(type.getDimSize(d));
    auto selfSliceType =
        RankedTensorType::get(sliceShape, selfType.getElementType());
    auto accSliceType = RankedTensorType::get(sliceShape, accType);

    Value lower = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value upper =
        arith::ConstantIndexOp::create(rewriter, loc, type.getDimSize(*dim));
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value acc0 = IsProd ? createFilledTensor(rewriter, loc, accSliceType,
                                             createScalarConstant(rewriter, loc,
                                                                  accType, 1))
                       : createZeroTensor(rewriter, loc, accSliceType);
    Value out0 = createEmptyTensor(rewriter, loc, type);
    SmallVector<AffineMap> maps(
        2, rewriter.getMultiDimIdentityMap(sliceShape.size()));
    SmallVector<utils::IteratorType> iterators(sliceShape.size(),
                                               utils::IteratorType::parallel);
    auto loop = scf::ForOp::create(
        rewriter, loc, lower, upper, one, ValueRange{acc0, out0},
        [&](OpBuilder &b, Location l, Value k, ValueRange iterArgs) {
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
          for (int64_t d = 0; d < rank; ++d)
            sizes.push_back(b.getIndexAttr(d == *dim ? 1 : type.getDimSize(d)));
          offsets[*dim] = k;
          Value x = tensor::ExtractSliceOp::create(b, l, selfSliceType, self,
                                                   offsets, sizes, strides);
          Value acc =
              linalg::GenericOp::create(
                  b, l, TypeRange{accSliceType}, ValueRange{x},
                  ValueRange{iterArgs[0]}, maps, iterators,
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    // self.to(result dtype), then into the accumulator.
                    Value v = castScalar(nb, nl, args[0], elemType,
                                         selfUnsigned);
                    v = castScalar(nb, nl, v, accType);
                    linalg::YieldOp::create(nb, nl,
                                            IsProd ? createMul(nb, nl, args[1], v)
                                                   : createAdd(nb, nl, args[1], v));
                  })
                  .getResult(0);
          Value y = castTensor(b, l, acc, elemType);
          Value out = tensor::InsertSliceOp::create(b, l, y, iterArgs[1],
                                                    offsets, sizes, strides);
          scf::YieldOp::create(b, l, ValueRange{acc, out});
        });
    rewriter.replaceOp(op, loop.getResult(1));
    return success();
  }
};

class ConvertFlipOp : public TorchConversionPattern<torch::AtenFlipOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenFlipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (selfType != type)
      return fail(op, rewriter, "result type differs from self's");
    std::optional<SmallVector<int64_t>> dimsArg =
        getConstantIntList(op.getDims());
    if (!dimsArg)
      return fail(op, rewriter, "dims must be a list of int constants");
    int64_t rank = type.getRank();
    SmallVector<bool> flipped(rank, false);
    for (int64_t d : *dimsArg) {
      std::optional<int64_t> nd = normalizeDim(d, rank);
      if (!nd)
        return fail(op, rewriter, "dim " + Twine(d) + " out of range");
      if (rank == 0)
        continue;
      if (flipped[*nd])
        return fail(op, rewriter,
                    "dim " + Twine(d) + " appears multiple times (eager raises)");
      flipped[*nd] = true;
    }
    // Nothing to reverse: size-1 dims or none listed.
    bool any = false;
    for (int64_t d = 0; d < rank; ++d)
      any |= flipped[d] && type.getDimSize(d) > 1;
    if (!any) {
      rewriter.replaceOp(op, self);
      return success();
    }

    Location loc = op.getLoc();
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{},
            ValueRange{createEmptyTensor(rewriter, loc, type)}, maps,
            iterators,
            [&](OpBuilder &b, Location l, ValueRange) {
              SmallVector<Value> indices;
              for (int64_t d = 0; d < rank; ++d) {
                Value i = linalg::IndexOp::create(b, l, d);
                if (flipped[d]) {
                  Value last = arith::ConstantIndexOp::create(
                      b, l, type.getDimSize(d) - 1);
                  i = arith::SubIOp::create(b, l, last, i);
                }
                indices.push_back(i);
              }
              linalg::YieldOp::create(
                  b, l, tensor::ExtractOp::create(b, l, self, indices).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// roll(self, shifts, dims): result[i] = self[(i - shift) mod size] along
/// each of dims; no dims rolls the flattened tensor (then reshaped back).
class ConvertRollOp : public TorchConversionPattern<torch::AtenRollOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenRollOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    Value self = adaptor.getSelf();
    if (!type || type != self.getType())
      return fail(op, rewriter, "result type differs from self's");
    std::optional<SmallVector<int64_t>> shifts =
        getConstantIntList(op.getShifts());
    std::optional<SmallVector<int64_t>> dims = getConstantIntList(op.getDims());
    if (!shifts || !dims)
      return fail(op, rewriter, "shifts and dims must be constant lists");
    Location loc = op.getLoc();
    Value input = self;
    RankedTensorType inputType = type;
    SmallVector<int64_t> rollDims;
    if (dims->empty()) {
      if (shifts->size() != 1)
        return fail(op, rewriter, "one shift without dims (eager raises)");
      inputType = RankedTensorType::get({type.getNumElements()},
                                        type.getElementType());
      FailureOr<Value> flat = createReshape(rewriter, loc, self, inputType);
      if (failed(flat))
        return fail(op, rewriter, "cannot flatten self");
      input = *flat;
      rollDims.push_back(0);
    } else {
      if (shifts->size() != dims->size())
        return fail(op, rewriter, "shifts and dims differ in length");
      for (int64_t d : *dims) {
        std::optional<int64_t> nd = normalizeDim(d, type.getRank());
        if (!nd || type.getRank() == 0)
          return fail(op, rewriter, "dim out of range");
        rollDims.push_back(*nd);
      }
    }
    if (inputType.getNumElements() == 0) {
      rewriter.replaceOp(op, self);
      return success();
    }
    int64_t rank = inputType.getRank();
    // The net shift of each dim, in [0, size).
    SmallVector<int64_t> net(rank, 0);
    for (auto [d, shift] : llvm::zip(rollDims, *shifts)) {
      int64_t size = inputType.getDimSize(d);
      net[d] = ((net[d] + shift) % size + size) % size;
    }
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value rolled =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{inputType}, ValueRange{},
            ValueRange{createEmptyTensor(rewriter, loc, inputType)}, maps,
            iterators,
            [&](OpBuilder &b, Location l, ValueRange) {
              SmallVector<Value> indices;
              for (int64_t d = 0; d < rank; ++d) {
                Value i = linalg::IndexOp::create(b, l, d);
                if (net[d] != 0) {
                  int64_t size = inputType.getDimSize(d);
                  // (i + size - shift) mod size
                  i = arith::AddIOp::create(
                      b, l, i,
                      arith::ConstantIndexOp::create(b, l, size - net[d]));
                  i = arith::RemUIOp::create(
                      b, l, i, arith::ConstantIndexOp::create(b, l, size));
                }
                indices.push_back(i);
              }
              linalg::YieldOp::create(
                  b, l, tensor::ExtractOp::create(b, l, input, indices)
                            .getResult());
            })
            .getResult(0);
    return replaceOrFail(op, rewriter,
                         createReshape(rewriter, loc, rolled, type),
                         "cannot reshape the result");
  }
};

} // namespace

void populateScanPatterns(TorchTypeConverter &typeConverter,
                          RewritePatternSet &patterns) {
  patterns.add<ConvertCumulativeOp<torch::AtenCumsumOp, false>,
               ConvertCumulativeOp<torch::AtenCumprodOp, true>, ConvertFlipOp,
               ConvertRollOp>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
