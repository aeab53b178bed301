//===- CtcLoss.cpp - _ctc_loss and its backward through the runtime -------===//
//
// The CTC loss is two dynamic programs over time (alpha forward, beta
// backward), each step reading the previous one along the extended target:
// the runtime's entry points (runtime/ctc_loss.h) run them per batch element
// as eager's CPU kernels do. The lengths are constant int lists in the graph
// (the op's int[] arguments): they are passed as constant i64 tensors, and
// 1-D (concatenated) targets as [1, N]. Only f32/f64 log_probs with int64
// targets are lowered; the lazy kernel (ltc_backend ctc_loss_kernel.cpp)
// already sent arguments eager rejects to eager.
//
//===----------------------------------------------------------------------===//

#include "CtcLoss.h"

#include "DenseLinearAlgebra.h"
#include "RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// The operands shared by the forward and the backward.
struct CtcOperands {
  Value logProbs, targets, inputLengths, targetLengths;
  int64_t blank = 0, concatenated = 0;
  Type elem;
};

Value constantLengths(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())}, b.getI64Type());
  return arith::ConstantOp::create(b, loc, type, DenseIntElementsAttr::get(type, values));
}

/// Reads log_probs, targets, input_lengths, target_lengths (operands
/// `first`..`first` + 3) and blank; `why` says what is not lowered.
FailureOr<CtcOperands> readOperands(OpBuilder &b, Operation *op,
                                    ArrayRef<Value> operands, unsigned first,
                                    unsigned blankIndex, std::string &why) {
  Location loc = op->getLoc();
  auto lpType = dyn_cast<RankedTensorType>(operands[first].getType());
  auto tgType = dyn_cast<RankedTensorType>(operands[first + 1].getType());
  if (!lpType || !tgType || !lpType.hasStaticShape() || !tgType.hasStaticShape() ||
      lpType.getRank() != 3 || !dense_la::isRealFloat(lpType.getElementType())) {
    why = "expects static f32/f64 log_probs [T, B, C]";
    return failure();
  }
  if (!tgType.getElementType().isSignlessInteger(64) ||
      (tgType.getRank() != 1 && tgType.getRank() != 2)) {
    why = "expects int64 targets [B, S] or [N]";
    return failure();
  }
  std::optional<SmallVector<int64_t>> inputLengths =
      getConstantIntList(op->getOperand(first + 2));
  std::optional<SmallVector<int64_t>> targetLengths =
      getConstantIntList(op->getOperand(first + 3));
  std::optional<int64_t> blank = getConstantInt(op->getOperand(blankIndex));
  if (!inputLengths || !targetLengths || !blank) {
    why = "the lengths and blank must be constants";
    return failure();
  }
  int64_t steps = lpType.getDimSize(0), batch = lpType.getDimSize(1),
          classes = lpType.getDimSize(2);
  if (static_cast<int64_t>(inputLengths->size()) != batch ||
      static_cast<int64_t>(targetLengths->size()) != batch || *blank < 0 ||
      *blank >= classes) {
    why = "lengths or blank out of range (eager raises)";
    return failure();
  }
  int64_t total = 0;
  for (int64_t i = 0; i < batch; ++i) {
    int64_t t = (*inputLengths)[i], s = (*targetLengths)[i];
    bool targetFits = tgType.getRank() == 2 ? s <= tgType.getDimSize(1) : true;
    if (t < 1 || t > steps || s < 0 || !targetFits) {
      why = "lengths out of range (eager raises or reads past them)";
      return failure();
    }
    total += s;
  }
  CtcOperands r;
  r.concatenated = tgType.getRank() == 1;
  if (r.concatenated && total > tgType.getDimSize(0)) {
    why = "target lengths add up to more than the targets (eager raises)";
    return failure();
  }
  r.logProbs = operands[first];
  r.targets = operands[first + 1];
  if (r.concatenated) {
    FailureOr<Value> reshaped = createReshape(
        b, loc, r.targets,
        RankedTensorType::get({1, tgType.getDimSize(0)}, tgType.getElementType()));
    if (failed(reshaped)) {
      why = "cannot reshape the targets";
      return failure();
    }
    r.targets = *reshaped;
  }
  r.inputLengths = constantLengths(b, loc, *inputLengths);
  r.targetLengths = constantLengths(b, loc, *targetLengths);
  r.blank = *blank;
  r.elem = lpType.getElementType();
  return r;
}

std::string entryName(StringRef op, Type elem) {
  return ("ltc_mlir_rt_" + op + (elem.isF32() ? "_f32" : "_f64")).str();
}

/// _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
/// zero_infinity) -> (neg_log_likelihood, log_alpha). zero_infinity only
/// matters to the composite around it and to the backward.
class ConvertCtcLoss : public dense_la::NamedTorchPattern {
public:
  ConvertCtcLoss(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, "torch.aten._ctc_loss", ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    if (failed(types) || types->size() != 2)
      return fail(op, rewriter, "result types are not static tensors");
    std::string why;
    FailureOr<CtcOperands> x = readOperands(rewriter, op, operands, 0, 4, why);
    if (failed(x))
      return fail(op, rewriter, why);
    SmallVector<Value> r = callRuntime(
        rewriter, op->getLoc(), entryName("ctc_loss", x->elem),
        {x->logProbs, x->targets, x->inputLengths, x->targetLengths},
        {(*types)[0], (*types)[1]}, {x->blank, x->concatenated});
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// _ctc_loss_backward(grad, log_probs, targets, input_lengths,
/// target_lengths, neg_log_likelihood, log_alpha, blank, zero_infinity).
class ConvertCtcLossBackward : public dense_la::NamedTorchPattern {
public:
  ConvertCtcLossBackward(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, "torch.aten._ctc_loss_backward", ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    if (failed(types) || types->size() != 1)
      return fail(op, rewriter, "result type is not a static tensor");
    std::optional<bool> zeroInfinity = getConstantBool(op->getOperand(8));
    auto alphaType = dyn_cast<RankedTensorType>(operands[6].getType());
    if (!zeroInfinity || !alphaType)
      return fail(op, rewriter, "zero_infinity must be a constant");
    std::string why;
    FailureOr<CtcOperands> x = readOperands(rewriter, op, operands, 1, 7, why);
    if (failed(x))
      return fail(op, rewriter, why);
    // The second buffer is the runtime's scratch log_beta.
    SmallVector<Value> r = callRuntime(
        rewriter, op->getLoc(), entryName("ctc_loss_backward", x->elem),
        {operands[0], x->logProbs, x->targets, x->inputLengths, x->targetLengths,
         operands[5], operands[6]},
        {(*types)[0], alphaType}, {x->blank, *zeroInfinity ? 1 : 0, x->concatenated});
    rewriter.replaceOp(op, r[0]);
    return success();
  }
};

} // namespace

void populateCtcLossPatterns(TorchTypeConverter &typeConverter,
                             RewritePatternSet &patterns) {
  patterns.add<ConvertCtcLoss, ConvertCtcLossBackward>(typeConverter,
                                                       patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
