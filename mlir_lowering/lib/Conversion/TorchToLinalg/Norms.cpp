//===- Norms.cpp - linalg_vector_norm, norm (p-norms over dims) -----------===//
//
// ord/p is a Scalar, which LTC passes as a graph input (its value does not
// change the graph): the lowering is an scf.if chain on its runtime value
// choosing ATen's reduction for it, each computed in the opmath type of the
// result dtype (f32 for half types; self is first converted to the result
// dtype, as with `dtype=`):
//   inf: max |x|          -inf: min |x|          0: count of x != 0
//   1: sum |x|            2: sqrt(sum x * x)     p: (sum |x|^p)^(1/p)
// Sums are blocked (createSum). NaN propagates through max/min and sums.
// A constant ord (or norm's p = None, i.e. 2) emits only its branch.
// Reducing an empty dim with a runtime ord is refused (the inf norms have
// no identity and raise in eager).
//
//===----------------------------------------------------------------------===//

#include "ReductionUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

enum class NormKind { Inf, NegInf, Zero, One, Two, General };

/// The norm of kind `kind` of `input` over `dims` in `accType` (dims
/// dropped), elements first converted to `elemType`. `p` (f64) is used by
/// the general kind.
Value createNorm(OpBuilder &b, Location loc, NormKind kind, Value input,
                 bool inputUnsigned, ArrayRef<int64_t> dims, Type elemType,
                 Type accType, Value p) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto absOf = [&](OpBuilder &nb, Location nloc, Value x) -> Value {
    x = castScalar(nb, nloc, x, elemType, inputUnsigned);
    x = castScalar(nb, nloc, x, accType);
    return math::AbsFOp::create(nb, nloc, x);
  };
  if (kind == NormKind::Inf || kind == NormKind::NegInf) {
    bool isMax = kind == NormKind::Inf;
    double init = isMax ? 0.0 : std::numeric_limits<double>::infinity();
    return createReduction(
        b, loc, input, dims, createScalarConstant(b, loc, accType, init),
        [&](OpBuilder &nb, Location nloc, Value x, Value acc) -> Value {
          Value a = absOf(nb, nloc, x);
          return isMax ? arith::MaximumFOp::create(nb, nloc, a, acc).getResult()
                       : arith::MinimumFOp::create(nb, nloc, a, acc).getResult();
        });
  }
  Value pAcc;
  if (kind == NormKind::General)
    pAcc = castScalar(b, loc, p, accType);
  Value sum =
      createSum(b, loc, inputType.getShape(), dims, input,
                b.getMultiDimIdentityMap(inputType.getRank()), accType,
                [&](OpBuilder &nb, Location nloc, ValueRange args,
                    LoopIndexFn) -> SmallVector<Value> {
                  Value a = absOf(nb, nloc, args[0]);
                  switch (kind) {
                  case NormKind::Zero: {
                    Value nz = arith::CmpFOp::create(
                        nb, nloc, arith::CmpFPredicate::UNE, a,
                        createScalarConstant(nb, nloc, accType, 0));
                    return {arith::UIToFPOp::create(nb, nloc, accType, nz)
                                .getResult()};
                  }
                  case NormKind::Two:
                    return {arith::MulFOp::create(nb, nloc, a, a).getResult()};
                  case NormKind::General:
                    return {math::PowFOp::create(nb, nloc, a, pAcc).getResult()};
                  default:
                    return {a};
                  }
                })
          .front();
  if (kind == NormKind::Two)
    return *createElementwiseOp(
        b, loc, cast<RankedTensorType>(sum.getType()), sum,
        [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          return math::SqrtOp::create(nb, nloc, args[0]);
        });
  if (kind == NormKind::General) {
    Value one = createScalarConstant(b, loc, accType, 1.0);
    Value inv = arith::DivFOp::create(b, loc, one, pAcc);
    return *createElementwiseOp(
        b, loc, cast<RankedTensorType>(sum.getType()), sum,
        [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          return math::PowFOp::create(nb, nloc, args[0], inv);
        });
  }
  return sum;
}

std::optional<NormKind> getConstantKind(double p) {
  if (std::isinf(p))
    return p > 0 ? NormKind::Inf : NormKind::NegInf;
  if (p == 0)
    return NormKind::Zero;
  if (p == 1)
    return NormKind::One;
  if (p == 2)
    return NormKind::Two;
  return NormKind::General;
}

/// Ops: linalg_vector_norm (ord, dim?, keepdim, dtype?), norm.ScalarOpt_dim
/// (p?, dim, keepdim), norm.Scalar (p), and the norm overloads with dtype.
template <typename OpTy, bool HasDims>
class ConvertNormOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  static Value getOrd(OpTy op) {
    if constexpr (std::is_same_v<OpTy, torch::AtenLinalgVectorNormOp>)
      return op.getOrd();
    else
      return op.getP();
  }
  static Value getOrd(OpAdaptor adaptor) {
    if constexpr (std::is_same_v<OpTy, torch::AtenLinalgVectorNormOp>)
      return adaptor.getOrd();
    else
      return adaptor.getP();
  }

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return this->fail(op, rewriter, "needs a floating-point result");
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (!isa<FloatType>(selfType.getElementType()))
      return this->fail(op, rewriter, "needs a floating-point self");
    Value dimOperand;
    bool keepdim = false;
    if constexpr (HasDims) {
      dimOperand = op.getDim();
      std::optional<bool> k = getConstantBool(op.getKeepdim());
      if (!k)
        return this->fail(op, rewriter, "keepdim must be a constant");
      keepdim = *k;
    }
    std::string why;
    FailureOr<SmallVector<int64_t>> dims = getCheckedReductionDims(
        dimOperand, selfType.getShape(), keepdim, type.getShape(), why);
    if (failed(dims))
      return this->fail(op, rewriter, why);

    // The order: a constant (None = 2) or a runtime scalar.
    std::optional<NormKind> constKind;
    Value ord = getOrd(op);
    if (isNone(ord)) {
      constKind = NormKind::Two;
    } else if (std::optional<double> c = getConstantFloat(getOrd(adaptor))) {
      constKind = getConstantKind(*c);
    } else if (std::optional<int64_t> c = getConstantInt(getOrd(adaptor))) {
      constKind = getConstantKind(double(*c));
    }
    bool empty = reducesEmptyDim(selfType.getShape(), *dims) ||
                 selfType.getNumElements() == 0;
    if (empty && (!constKind || *constKind == NormKind::Inf ||
                  *constKind == NormKind::NegInf))
      return this->fail(op, rewriter,
                        "an inf norm of an empty tensor raises in eager");

    Location loc = op.getLoc();
    Type elemType = type.getElementType();
    Type accType = getOpmathType(cast<FloatType>(elemType));
    Type f64 = rewriter.getF64Type();
    Value p;
    if (!constKind || *constKind == NormKind::General) {
      Value converted = getOrd(adaptor);
      if (!converted.getType().isIntOrFloat())
        return this->fail(op, rewriter, "ord is not a scalar");
      p = castScalar(rewriter, loc, converted, f64);
    }
    bool selfUnsigned = false;
    SmallVector<int64_t> reducedShape =
        getReducedShape(selfType.getShape(), *dims, false);
    auto accResultType = RankedTensorType::get(reducedShape, accType);
    auto build = [&](OpBuilder &b, Location l, NormKind kind) {
      return createNorm(b, l, kind, self, selfUnsigned, *dims, elemType,
                        accType, p);
    };
    Value norm;
    if (constKind) {
      norm = build(rewriter, loc, *constKind);
    } else {
      // if p == inf ... else if p == -inf ... else if p == 0 ... 1 ... 2 ...
      const std::pair<double, NormKind> cases[] = {
          {std::numeric_limits<double>::infinity(), NormKind::Inf},
          {-std::numeric_limits<double>::infinity(), NormKind::NegInf},
          {0.0, NormKind::Zero},
          {1.0, NormKind::One},
          {2.0, NormKind::Two}};
      std::function<Value(OpBuilder &, Location, size_t)> chain =
          [&](OpBuilder &b, Location l, size_t i) -> Value {
        if (i == std::size(cases))
          return build(b, l, NormKind::General);
        Value is = arith::CmpFOp::create(
            b, l, arith::CmpFPredicate::OEQ, p,
            createScalarConstant(b, l, f64, cases[i].first));
        auto ifOp = scf::IfOp::create(b, l, TypeRange{accResultType}, is,
                                      /*addThenBlock=*/true,
                                      /*addElseBlock=*/true);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(b, l, build(b, l, cases[i].second));
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, l, chain(b, l, i + 1));
        return ifOp.getResult(0);
      };
      norm = chain(rewriter, loc, 0);
    }
    norm = castTensor(rewriter, loc, norm, elemType);
    return this->replaceOrFail(op, rewriter,
                               createReshape(rewriter, loc, norm, type),
                               "cannot reshape the result");
  }
};

} // namespace

void populateNormsPatterns(TorchTypeConverter &typeConverter,
                           RewritePatternSet &patterns) {
  patterns.add<ConvertNormOp<torch::AtenLinalgVectorNormOp, true>,
               ConvertNormOp<torch::AtenNormScalarOptDimOp, true>,
               ConvertNormOp<torch::AtenNormScalarOptDimDtypeOp, true>,
               ConvertNormOp<torch::AtenNormScalarOp, false>,
               ConvertNormOp<torch::AtenNormScalarOptDtypeOp, false>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
