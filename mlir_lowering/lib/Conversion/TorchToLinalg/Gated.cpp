//===- Gated.cpp - glu and prelu with their backward ops ------------------===//
//
// glu(self, dim) = a * sigmoid(b) of the halves a, b of self along dim;
// glu_backward as ATen's CPU kernel: grad_a = sigmoid(b) * grad,
// grad_b = (1 - sigmoid(b)) * sigmoid(b) * a * grad.
// _prelu_kernel(self, weight) (what F.prelu calls, with the weight already
// [C, 1, ..., 1]) = self > 0 ? self : weight * self, with one weight or
// one per channel (dim 1, dim 0 of a 1-d self); _prelu_kernel_backward
// gives grad * (self > 0 ? 1 : weight) and, per element of self,
// self > 0 ? 0 : self * grad (ATen's autograd sums it to the weight).
// Floats only; f16/bf16 compute in f32 and are rounded once.
//
//===----------------------------------------------------------------------===//

#include "Pointwise.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

using namespace pointwise;
using P = arith::CmpFPredicate;

/// self[..., offset:offset+size, ...] along dim.
Value sliceAlong(OpBuilder &b, Location loc, Value tensor, int64_t dim,
                 int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t s : type.getShape())
    sizes.push_back(b.getIndexAttr(s));
  offsets[dim] = b.getIndexAttr(offset);
  sizes[dim] = b.getIndexAttr(size);
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, sliceType, tensor, offsets,
                                        sizes, strides);
}

Value insertAlong(OpBuilder &b, Location loc, Value part, Value into,
                  int64_t dim, int64_t offset) {
  auto type = cast<RankedTensorType>(part.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t s : type.getShape())
    sizes.push_back(b.getIndexAttr(s));
  offsets[dim] = b.getIndexAttr(offset);
  return tensor::InsertSliceOp::create(b, loc, part, into, offsets, sizes,
                                       strides);
}

Value sigmoid(FloatBuilder &f, Value x) {
  return f.div(f.c(1), f.add(f.c(1), f.exp(f.neg(x))));
}

template <typename OpTy, bool IsBackward>
class ConvertGluOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getType());
    auto selfType = dyn_cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!resultType || !selfType)
      return this->fail(op, rewriter, "types are not convertible");
    auto elemType = dyn_cast<FloatType>(resultType.getElementType());
    if (!elemType || selfType.getElementType() != elemType)
      return this->fail(op, rewriter, "needs floating-point self and result");
    std::optional<int64_t> dimArg = getConstantInt(op.getDim());
    std::optional<int64_t> dim =
        dimArg ? normalizeDim(*dimArg, selfType.getRank()) : std::nullopt;
    if (!dim || selfType.getDimSize(*dim) % 2 != 0)
      return this->fail(op, rewriter,
                        "dim must be a constant dim of even size");
    int64_t half = selfType.getDimSize(*dim) / 2;
    SmallVector<int64_t> halfShape(selfType.getShape());
    halfShape[*dim] = half;
    auto halfType = RankedTensorType::get(halfShape, elemType);
    if (!IsBackward && resultType.getShape() != ArrayRef<int64_t>(halfShape))
      return this->fail(op, rewriter, "result must be half of self along dim");
    if (IsBackward && resultType != selfType)
      return this->fail(op, rewriter, "result must be shaped as self");

    Location loc = op.getLoc();
    if (selfType.getNumElements() == 0) { // nothing to compute (or slice)
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, resultType));
      return success();
    }
    Type t = getOpmathType(elemType);
    Value a = sliceAlong(rewriter, loc, adaptor.getSelf(), *dim, 0, half);
    Value bHalf = sliceAlong(rewriter, loc, adaptor.getSelf(), *dim, half, half);
    auto up = [&](OpBuilder &b, Location l, Value v) {
      return castScalar(b, l, v, t);
    };
    auto down = [&](OpBuilder &b, Location l, Value v) {
      return castScalar(b, l, v, elemType);
    };
    if (!IsBackward) {
      FailureOr<Value> r = createElementwiseOp(
          rewriter, loc, halfType, ValueRange{a, bHalf},
          [&](OpBuilder &b, Location l, ValueRange args) {
            FloatBuilder f{b, l, t};
            return down(b, l, f.mul(up(b, l, args[0]),
                                    sigmoid(f, up(b, l, args[1]))));
          });
      return this->replaceOrFail(op, rewriter, r, "glu: bad shapes");
    }
    Value grad;
    if constexpr (IsBackward)
      grad = adaptor.getGradOutput();
    auto gradType = dyn_cast<RankedTensorType>(grad.getType());
    if (!gradType || gradType.getShape() != ArrayRef<int64_t>(halfShape) ||
        gradType.getElementType() != elemType)
      return this->fail(op, rewriter, "grad_output must be shaped as glu's result");
    FailureOr<Value> gradA = createElementwiseOp(
        rewriter, loc, halfType, ValueRange{bHalf, grad},
        [&](OpBuilder &b, Location l, ValueRange args) {
          FloatBuilder f{b, l, t};
          // sigmoid(b) is stored in the dtype before the product, as ATen.
          Value sig = up(b, l, down(b, l, sigmoid(f, up(b, l, args[0]))));
          return down(b, l, f.mul(sig, up(b, l, args[1])));
        });
    FailureOr<Value> gradB = createElementwiseOp(
        rewriter, loc, halfType, ValueRange{a, bHalf, grad},
        [&](OpBuilder &b, Location l, ValueRange args) {
          FloatBuilder f{b, l, t};
          Value sig = up(b, l, down(b, l, sigmoid(f, up(b, l, args[1]))));
          Value r = f.mul(f.mul(f.mul(f.sub(f.c(1), sig), sig),
                                up(b, l, args[0])),
                          up(b, l, args[2]));
          return down(b, l, r);
        });
    if (failed(gradA) || failed(gradB))
      return this->fail(op, rewriter, "glu_backward: bad shapes");
    Value out = createEmptyTensor(rewriter, loc, resultType);
    out = insertAlong(rewriter, loc, *gradA, out, *dim, 0);
    out = insertAlong(rewriter, loc, *gradB, out, *dim, half);
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// The weight as a tensor that broadcasts against self ATen-style: rank 0
/// for one weight, [C, 1, ..., 1] for one weight per channel (dim 1), [C]
/// for a 1-d self.
FailureOr<Value> broadcastableWeight(OpBuilder &b, Location loc, Value weight,
                                     RankedTensorType selfType) {
  auto type = cast<RankedTensorType>(weight.getType());
  int64_t n = type.getNumElements();
  if (n == 1)
    return createReshape(b, loc, weight,
                         RankedTensorType::get({}, type.getElementType()));
  if (selfType.getRank() == 1 && n == selfType.getDimSize(0))
    return weight;
  if (selfType.getRank() < 2 || n != selfType.getDimSize(1))
    return failure();
  SmallVector<int64_t> shape(selfType.getRank() - 1, 1);
  shape[0] = n;
  return createReshape(b, loc, weight,
                       RankedTensorType::get(shape, type.getElementType()));
}

class ConvertPreluOp : public TorchConversionPattern<torch::AtenPreluKernelOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenPreluKernelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getTensorType(op.getType());
    auto selfType = dyn_cast<RankedTensorType>(adaptor.getSelf().getType());
    auto weightType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
    if (!resultType || !selfType || !weightType)
      return fail(op, rewriter, "types are not convertible");
    auto elemType = dyn_cast<FloatType>(resultType.getElementType());
    if (!elemType || selfType.getElementType() != elemType ||
        weightType.getElementType() != elemType)
      return fail(op, rewriter, "needs self, weight and result of one float dtype");
    Location loc = op.getLoc();
    FailureOr<Value> weight =
        broadcastableWeight(rewriter, loc, adaptor.getWeight(), selfType);
    if (failed(weight))
      return fail(op, rewriter,
                  "weight must have one element or one per channel (dim 1)");
    Type t = getOpmathType(elemType);
    FailureOr<Value> r = createElementwiseOp(
        rewriter, loc, resultType, ValueRange{adaptor.getSelf(), *weight},
        [&](OpBuilder &b, Location l, ValueRange args) {
          FloatBuilder f{b, l, t};
          Value x = castScalar(b, l, args[0], t);
          Value w = castScalar(b, l, args[1], t);
          Value r = f.select(f.cmp(P::OGT, x, f.c(0)), x, f.mul(w, x));
          return castScalar(b, l, r, elemType);
        });
    return replaceOrFail(op, rewriter, r, "self does not match the result");
  }
};

class ConvertPreluBackwardOp
    : public TorchConversionPattern<torch::AtenPreluKernelBackwardOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenPreluKernelBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType gradInType = getTensorType(op.getResult0().getType());
    RankedTensorType gradWType = getTensorType(op.getResult1().getType());
    auto selfType = dyn_cast<RankedTensorType>(adaptor.getSelf().getType());
    auto weightType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
    auto gradType = dyn_cast<RankedTensorType>(adaptor.getGradOutput().getType());
    if (!gradInType || !gradWType || !selfType || !weightType || !gradType)
      return fail(op, rewriter, "types are not convertible");
    auto elemType = dyn_cast<FloatType>(selfType.getElementType());
    if (!elemType || weightType.getElementType() != elemType ||
        gradType != selfType || gradInType != selfType ||
        gradWType != selfType)
      return fail(op, rewriter,
                  "needs grad_output, self, grad_input and grad_weight of one "
                  "shape and float dtype");
    Location loc = op.getLoc();
    FailureOr<Value> weight =
        broadcastableWeight(rewriter, loc, adaptor.getWeight(), selfType);
    if (failed(weight))
      return fail(op, rewriter,
                  "weight must have one element or one per channel (dim 1)");
    Type t = getOpmathType(elemType);
    SmallVector<Value> inputs = {adaptor.getSelf(), *weight,
                                 adaptor.getGradOutput()};
    FailureOr<Value> gradIn = createElementwiseOp(
        rewriter, loc, selfType, inputs,
        [&](OpBuilder &b, Location l, ValueRange args) {
          FloatBuilder f{b, l, t};
          Value x = castScalar(b, l, args[0], t);
          Value w = castScalar(b, l, args[1], t);
          Value g = castScalar(b, l, args[2], t);
          Value r = f.select(f.cmp(P::OGT, x, f.c(0)), g, f.mul(w, g));
          return castScalar(b, l, r, elemType);
        });
    // The weight's gradient per element of self; the autograd formula sums
    // it to the weight's shape (sum_to_size) outside this op.
    FailureOr<Value> gradW = createElementwiseOp(
        rewriter, loc, selfType,
        ValueRange{adaptor.getSelf(), adaptor.getGradOutput()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          FloatBuilder f{b, l, t};
          Value x = castScalar(b, l, args[0], t);
          Value g = castScalar(b, l, args[1], t);
          Value r = f.select(f.cmp(P::OGT, x, f.c(0)), f.c(0), f.mul(x, g));
          return castScalar(b, l, r, elemType);
        });
    if (failed(gradIn) || failed(gradW))
      return fail(op, rewriter, "_prelu_kernel_backward: bad shapes");
    rewriter.replaceOp(op, {*gradIn, *gradW});
    return success();
  }
};

} // namespace

void populateGatedPatterns(TorchTypeConverter &tc, RewritePatternSet &p) {
  p.add<ConvertGluOp<torch::AtenGluOp, false>,
        ConvertGluOp<torch::AtenGluBackwardOp, true>, ConvertPreluOp,
        ConvertPreluBackwardOp>(tc, p.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
