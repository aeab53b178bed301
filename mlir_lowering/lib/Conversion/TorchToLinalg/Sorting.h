//===- Sorting.h - rank-sort helpers; selection and scan families --*- C++ -*-===//
//
// Internal to lib/Conversion/TorchToLinalg: the order and the stable ranks of
// Sorting.cpp, shared with Selection.cpp (median, kthvalue, mode), and the
// populate functions of the families kept out of Patterns.h (which every
// pattern file includes through Utils.h; move them there when that header
// changes anyway).
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_SORTING_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_SORTING_H

#include "ltc_mlir/Conversion/TorchToLinalg/Patterns.h"

#include "mlir/IR/Builders.h"

namespace ltc_mlir::torch_to_linalg {

/// i1: a comes strictly before c in torch.sort's order on CPU (ascending, or
/// descending), NaN after every number ascending and before every number
/// descending.
mlir::Value createBefore(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                         mlir::Value c, bool descending, bool isUnsigned);

/// i1: a and c tie (equal, or both NaN).
mlir::Value createTie(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                      mlir::Value c);

/// The position (i64) of every element of `self` along `dim` in the stable
/// sort of its line: #{ j : x[j] before x[i], or x[j] ties x[i] and j < i }.
/// One linalg.generic with n comparisons per element.
mlir::Value createStableRanks(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value self, int64_t dim, bool descending,
                              bool isUnsigned);

/// Calls the runtime's `op` ("sort", "topk", "kthvalue", "mode";
/// runtime/sorting.h) on `self` viewed as [outer, n, inner] with `dim` in
/// the middle, then `scalars`; its [outer, count, inner] results reshaped to
/// `valuesType` and `indicesType`. Fails for dtypes without an entry point
/// and dynamic shapes.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
callSortingRuntime(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef op,
                   mlir::Value self, mlir::Type torchDtype, int64_t dim,
                   int64_t count, mlir::RankedTensorType valuesType,
                   mlir::RankedTensorType indicesType,
                   llvm::ArrayRef<int64_t> scalars);

/// A pattern for one torch op named `opName` ("torch.aten.median.dim") whose
/// C++ class is private to its generated shard (ops not in
/// tools/torch_ods_gen/op_table.py yet: adding them regenerates TorchOps.h,
/// which every pattern file includes). Operands are read by schema position.
class NamedTorchPattern : public mlir::ConversionPattern {
public:
  NamedTorchPattern(llvm::StringRef opName,
                    const TorchTypeConverter &typeConverter,
                    mlir::MLIRContext *context)
      : mlir::ConversionPattern(typeConverter, opName, /*benefit=*/1, context),
        converter(typeConverter) {}

protected:
  mlir::LogicalResult fail(mlir::Operation *op,
                           mlir::ConversionPatternRewriter &rewriter,
                           const llvm::Twine &why) const {
    converter.noteFailure(op, why);
    return rewriter.notifyMatchFailure(op, why);
  }
  /// Builtin tensor type of a torch tensor type; null if not convertible.
  mlir::RankedTensorType getTensorType(mlir::Type torchType) const {
    return llvm::dyn_cast_or_null<mlir::RankedTensorType>(
        converter.convertType(torchType));
  }
  const TorchTypeConverter &converter;
};

/// median, nanmedian, kthvalue, mode (Selection.cpp).
void populateSelectionPatterns(TorchTypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
/// unfold_copy, unfold_backward (Unfold.cpp).
void populateUnfoldPatterns(TorchTypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
/// cummax, cummin, logcumsumexp, logsumexp, put (CumulativeOps.cpp).
void populateCumulativePatterns(TorchTypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_SORTING_H
