//===- Utils.h - helpers shared by the TorchToLinalg patterns --*- C++ -*-===//
//
// Reading torch constants, scalar/tensor casts with ATen semantics, ATen
// broadcasting maps and small linalg/tensor builders. Internal to
// lib/Conversion/TorchToLinalg.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_CONVERSION_TORCHTOLINALG_UTILS_H
#define LTC_MLIR_CONVERSION_TORCHTOLINALG_UTILS_H

#include "ltc_mlir/Conversion/TorchToLinalg/Patterns.h"
#include "ltc_mlir/Dialect/Torch/IR/TorchOps.h"
#include "ltc_mlir/Dialect/Torch/Utils/AtenSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <optional>

namespace ltc_mlir::torch_to_linalg {

/// Base of all TorchToLinalg patterns: `fail` records the reason with the
/// type converter (for the pass's "unsupported op" error) and reports a
/// match failure.
template <typename OpTy>
class TorchConversionPattern : public mlir::OpConversionPattern<OpTy> {
public:
  using Base = TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  TorchConversionPattern(const TorchTypeConverter &typeConverter,
                         mlir::MLIRContext *context)
      : mlir::OpConversionPattern<OpTy>(typeConverter, context),
        converter(typeConverter) {}

protected:
  mlir::LogicalResult fail(OpTy op, mlir::ConversionPatternRewriter &rewriter,
                           const llvm::Twine &why) const {
    converter.noteFailure(op, why);
    return rewriter.notifyMatchFailure(op, why);
  }

  /// Replaces `op` by `result`, or fails with `why` when the builder that
  /// produced `result` could not.
  mlir::LogicalResult replaceOrFail(OpTy op,
                                    mlir::ConversionPatternRewriter &rewriter,
                                    mlir::FailureOr<mlir::Value> result,
                                    const llvm::Twine &why) const {
    if (mlir::failed(result))
      return fail(op, rewriter, why);
    rewriter.replaceOp(op, *result);
    return mlir::success();
  }

  /// Builtin tensor type of a torch tensor type; null if not convertible.
  mlir::RankedTensorType getTensorType(mlir::Type torchType) const {
    return llvm::dyn_cast_or_null<mlir::RankedTensorType>(
        converter.convertType(torchType));
  }

  const TorchTypeConverter &converter;
};

//===----------------------------------------------------------------------===//
// Torch constants, dims and dtypes: the ATen rules the verifiers share
// (Dialect/Torch/Utils/AtenSemantics.h). The constant readers look through
// unrealized casts and arith.constant, so they work on original and on
// already converted operands.
//===----------------------------------------------------------------------===//

using torch::getConstantBool;
using torch::getConstantBoolList;
using torch::getConstantFloat;
using torch::getConstantInt;
using torch::getConstantIntList;
using torch::getConstantStr;
using torch::isBoolDtype;
using torch::isNone;
using torch::isUnsignedDtype;
using torch::lookThroughCasts;
using torch::normalizeDim;
/// The value of a 0-dim integer tensor constant (arith.constant or
/// torch.vtensor.literal): zero-extended for bool and when `isUnsigned`
/// (ui8), sign-extended otherwise.
std::optional<int64_t> getConstantScalarTensor(mlir::Value tensor,
                                               bool isUnsigned);

//===----------------------------------------------------------------------===//
// Types and scalars
//===----------------------------------------------------------------------===//

/// The torch dtype of a vtensor-typed value (null if it is not a vtensor).
mlir::Type getTorchDtype(mlir::Value torchValue);

/// Converts a scalar between builtin int/float types like a C++ static_cast
/// in ATen (int->bool and float->bool are `!= 0`). `srcUnsigned` selects
/// zero extension / unsigned int->float for the source.
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Type dstType, bool srcUnsigned = false);
/// ATen's opmath type of a float dtype (the type its CPU kernels compute
/// in): f32 for f16/bf16, the type itself otherwise.
mlir::Type getOpmathType(mlir::FloatType elemType);

/// A scalar constant of an int or float type.
mlir::Value createScalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Type type, double value);
/// An integer constant, wrapped to the width of `type` like a C++ cast.
mlir::Value createIntConstant(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Type type, int64_t value);

/// lhs + rhs and lhs * rhs of two scalars of the same int or float type.
mlir::Value createAdd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                      mlir::Value rhs);
mlir::Value createMul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                      mlir::Value rhs);

//===----------------------------------------------------------------------===//
// Tensor builders
//===----------------------------------------------------------------------===//

mlir::Value createEmptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::RankedTensorType type);
/// tensor.empty + linalg.fill with `scalar` (already of the element type).
mlir::Value createFilledTensor(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::RankedTensorType type, mlir::Value scalar);
mlir::Value createZeroTensor(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType type);

/// The indexing map reading a tensor of `inShape` when iterating over
/// `outShape` with ATen broadcasting: dims are aligned at the right and
/// size-1 dims broadcast. Fails when the shapes are not broadcastable.
mlir::FailureOr<mlir::AffineMap>
getBroadcastMap(llvm::ArrayRef<int64_t> inShape,
                llvm::ArrayRef<int64_t> outShape, mlir::MLIRContext *context);

/// (d0, ..., d{rank-1}) -> (the dims not in `droppedDims`).
mlir::AffineMap getDropDimsMap(unsigned rank,
                               llvm::ArrayRef<int64_t> droppedDims,
                               mlir::MLIRContext *context);

/// Body builder of a linalg.generic: gets the payload arguments of the
/// inputs (not the outputs) and returns the value to yield.
using ScalarBodyBuilder = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// One parallel linalg.generic producing `resultType` from `inputs`, each
/// broadcast to the result shape (see getBroadcastMap).
mlir::FailureOr<mlir::Value>
createElementwiseOp(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::RankedTensorType resultType, mlir::ValueRange inputs,
                    ScalarBodyBuilder body);

/// Casts every element of `tensor` to `elementType` (no-op if equal).
mlir::Value castTensor(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value tensor, mlir::Type elementType,
                       bool srcUnsigned = false);

/// Reshapes a static tensor to `resultType` (same element count) with
/// tensor.collapse_shape / tensor.expand_shape: directly when the shapes
/// are related by merging/splitting adjacent dims, else through 1-D.
mlir::FailureOr<mlir::Value> createReshape(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value tensor,
                                           mlir::RankedTensorType resultType);

/// Reduces `input` over the sorted, unique `dims` with a linalg.generic whose
/// result drops these dims and starts from a fill with `init`. `combine`
/// gets (element cast by the caller as needed, accumulator).
mlir::Value createReduction(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
    llvm::ArrayRef<int64_t> dims, mlir::Value init,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value element, mlir::Value acc)>
        combine);

//===----------------------------------------------------------------------===//
// Sums (Summation.cpp): every floating-point sum of the lowering goes
// through createSum, which splits long sums into blocks and lanes so that
// no accumulator adds more than 256 values (ATen's cascade sums are as
// accurate; one accumulator loses ~n ulps over n values).
//===----------------------------------------------------------------------===//

/// Inside a sum's term: the index (of type index) of loop `dim` of the
/// caller's loop nest (createSum may split and slice the loops it emits).
using LoopIndexFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, unsigned dim)>;
/// Computes the values added to each accumulator from the payload arguments
/// of the inputs (one value per accumulator type, already of that type).
/// Use `index` instead of linalg.index.
using SumTermFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange args,
    LoopIndexFn index)>;

/// Sums `term` over the `reducedDims` of the static loop nest `loopShape`,
/// where input i is read through `inputMaps[i]` (projected permutations,
/// constant 0 for broadcast dims). Returns one tensor per accumulator type,
/// shaped as the loops that are not reduced (in loop order). Float sums are
/// blocked (deterministic for any thread count); integer sums are one
/// linalg.generic.
llvm::SmallVector<mlir::Value>
createSum(mlir::OpBuilder &b, mlir::Location loc,
          llvm::ArrayRef<int64_t> loopShape,
          llvm::ArrayRef<int64_t> reducedDims, mlir::ValueRange inputs,
          llvm::ArrayRef<mlir::AffineMap> inputMaps, mlir::TypeRange accTypes,
          SumTermFn term);
/// Sum of the elements of `input` over the sorted, unique `dims`, each cast
/// to `accType` (`inputUnsigned`: zero-extended ints).
mlir::Value createSum(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value input, llvm::ArrayRef<int64_t> dims,
                      mlir::Type accType, bool inputUnsigned = false);
/// ATen's accumulation type of float sums: f32 for f16 and bf16, the type
/// itself otherwise.
mlir::Type getSumAccumulatorType(mlir::Type elementType);

//===----------------------------------------------------------------------===//
// Runtime checks
//===----------------------------------------------------------------------===//

/// Emits, at the builder's insertion point,
///   scf.if (!ok) { func.call @ltc_mlir_rt_check_failed(<index>) }
/// where <index> is the position of `message` in the enclosing module's
/// `ltc.runtime_checks` string array (appended if new, reused if equal).
/// The private declaration of the callee is added once per module. The call
/// has unknown side effects, so it survives DCE, canonicalization and
/// bufferization; the runtime turns it into an exception after the entry
/// point returns (the outputs of a failed run are discarded). Checks do not
/// stop the computation: the code after them must stay memory-safe for any
/// input (clamp or select), the check only makes the failure visible.
/// Call it only once the pattern is sure to succeed (a rolled-back pattern
/// would leave an unused message, which is harmless but wasteful).
/// `message` should say what went wrong, in which op, and how to fix it,
/// with PyTorch's wording where there is one.
void emitRuntimeCheck(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ok,
                      llvm::StringRef message);

/// An i1 that is true iff `isValid(element)` holds for every element of the
/// static `tensor`: a linalg.generic reducing with `and` into a 0-d tensor,
/// then extracted. `isValid` returns an i1 from the (builtin-typed) element.
mlir::Value createAllOf(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value element)>
        isValid);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_CONVERSION_TORCHTOLINALG_UTILS_H
