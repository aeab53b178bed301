//===- ConvolutionParams.h - convolution parameters and checks -*- C++ -*-===//
//
// The constant parameters of convolution and convolution_backward, their
// checks and the output shape they give: shared by the im2col lowering
// (Convolution.cpp) and the oneDNN runtime calls (ExternalConvolution.cpp).
// Internal to lib/Conversion/TorchToLinalg.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_CONVOLUTIONPARAMS_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_CONVOLUTIONPARAMS_H

#include "ConvolutionIm2col.h"

#include <optional>
#include <string>

namespace ltc_mlir::torch_to_linalg {

/// The constant parameters shared by convolution and convolution_backward.
struct ConvParams {
  llvm::SmallVector<int64_t> stride, padding, dilation, outputPadding;
  bool transposed = false;
  int64_t groups = 1;
};

/// A list of `n` ints; one value stands for all (like ATen's
/// expand_param_if_needed).
inline std::optional<llvm::SmallVector<int64_t>> getParamList(mlir::Value list, unsigned n) {
  std::optional<llvm::SmallVector<int64_t>> values = getConstantIntList(list);
  if (!values)
    return std::nullopt;
  if (values->size() == 1 && n > 1)
    values->assign(n, values->front());
  if (values->size() != n)
    return std::nullopt;
  return values;
}

/// Reads and checks the constant parameters and the operand types; `why`
/// says what is wrong otherwise.
template <typename AdaptorT>
std::optional<ConvParams> getConvParams(AdaptorT adaptor,
                                        mlir::RankedTensorType inputType,
                                        mlir::RankedTensorType weightType,
                                        mlir::Type torchDtype, std::string &why) {
  int64_t rank = inputType.getRank();
  if (rank < 3 || rank > 5 || weightType.getRank() != rank) {
    why = "expects input and weight of rank 3 to 5 (1-D to 3-D)";
    return std::nullopt;
  }
  mlir::Type elemType = inputType.getElementType();
  // Integers as ATen's CPU kernels (slow_conv2d & co.), which accumulate in
  // the element type (wrapping, as here); bool raises there, and so do
  // transposed and dilated convolutions of integers narrower than int64
  // (checked below): those are left to the eager fallback, which raises
  // eager's error.
  // (From the torch dtype: bool is stored as i8.)
  bool isInteger = torchDtype && torchDtype.isInteger() && !torchDtype.isInteger(1);
  if (!torchDtype || !(llvm::isa<mlir::FloatType>(elemType) || isInteger) ||
      weightType.getElementType() != elemType) {
    why = "expects float or integer input and weight of the same dtype";
    return std::nullopt;
  }
  unsigned nd = rank - 2;
  ConvParams p;
  auto stride = getParamList(adaptor.getStride(), nd);
  auto padding = getParamList(adaptor.getPadding(), nd);
  auto dilation = getParamList(adaptor.getDilation(), nd);
  auto outputPadding = getParamList(adaptor.getOutputPadding(), nd);
  std::optional<bool> transposed = getConstantBool(adaptor.getTransposed());
  std::optional<int64_t> groups = getConstantInt(adaptor.getGroups());
  if (!stride || !padding || !dilation || !outputPadding || !transposed ||
      !groups) {
    why = "stride, padding, dilation, output_padding, transposed and groups "
          "must be constants (one value or one per spatial dim)";
    return std::nullopt;
  }
  p.stride = *stride;
  p.padding = *padding;
  p.dilation = *dilation;
  p.outputPadding = *outputPadding;
  p.transposed = *transposed;
  p.groups = *groups;
  bool dilated = llvm::any_of(p.dilation, [](int64_t d) { return d != 1; });
  if (isInteger && (p.transposed || dilated) && !torchDtype.isSignedInteger(64)) {
    why = "transposed and dilated convolutions of integers are int64 only "
          "(eager raises)";
    return std::nullopt;
  }
  for (unsigned i = 0; i < nd; ++i)
    if (p.stride[i] < 1 || p.dilation[i] < 1 || p.padding[i] < 0 ||
        p.outputPadding[i] < 0) {
      why = "stride and dilation must be >= 1, padding and output_padding "
            ">= 0";
      return std::nullopt;
    }
  int64_t c = inputType.getDimSize(1);
  if (p.groups < 1 || c % p.groups != 0) {
    why = "groups must be >= 1 and divide the input channels";
    return std::nullopt;
  }
  // Regular: weight [F, C / G, K...]; transposed: weight [C, F / G, K...].
  if (p.transposed ? weightType.getDimSize(0) != c
                   : (weightType.getDimSize(1) * p.groups != c ||
                      weightType.getDimSize(0) % p.groups != 0)) {
    why = "weight shape does not match the input channels and groups";
    return std::nullopt;
  }
  return p;
}

/// The input's torch dtype when the weight has the same one (bool and
/// unsigned types are stored as signless integers), else null.
template <typename OpT> mlir::Type getTorchDtype(OpT op) {
  mlir::Type input = llvm::cast<torch::ValueTensorType>(op.getInput().getType()).getDtype();
  mlir::Type weight = llvm::cast<torch::ValueTensorType>(op.getWeight().getType()).getDtype();
  return input == weight ? input : mlir::Type();
}

/// Output channels and spatial sizes of the convolution, or std::nullopt
/// when the input is too small for the kernel.
inline std::optional<llvm::SmallVector<int64_t>>
getOutputShape(const ConvParams &p,
                                                   mlir::RankedTensorType inputType,
                                                   mlir::RankedTensorType weightType) {
  llvm::SmallVector<int64_t> shape = {inputType.getDimSize(0)};
  shape.push_back(p.transposed ? weightType.getDimSize(1) * p.groups
                               : weightType.getDimSize(0));
  for (unsigned i = 0; i + 2 < inputType.getRank(); ++i) {
    int64_t s = inputType.getDimSize(2 + i), k = weightType.getDimSize(2 + i);
    int64_t span = p.dilation[i] * (k - 1);
    int64_t o = p.transposed ? (s - 1) * p.stride[i] - 2 * p.padding[i] +
                                   span + p.outputPadding[i] + 1
                             : floorDiv(s + 2 * p.padding[i] - span - 1,
                                        p.stride[i]) +
                                   1;
    if (o < 0 || k < 1)
      return std::nullopt;
    shape.push_back(o);
  }
  return shape;
}

/// Whether convolution_backward's wanted gradients (`mask`) are typed like
/// their operands (the bias gradient [channels] of the input dtype); the
/// unwanted ones are undefined tensors, typed [] or [0] by LTC.
inline bool backwardTypesMatch(llvm::ArrayRef<bool> mask,
                               mlir::RankedTensorType gradInputType,
                               mlir::RankedTensorType gradWeightType,
                               mlir::RankedTensorType gradBiasType,
                               mlir::RankedTensorType inputType,
                               mlir::RankedTensorType weightType,
                               int64_t channels) {
  return !(mask[0] && gradInputType != inputType) &&
         !(mask[1] && gradWeightType != weightType) &&
         !(mask[2] && gradBiasType != mlir::RankedTensorType::get(
                                          {channels}, inputType.getElementType()));
}

/// Replaces convolution_backward `op` by `gradInput` and `gradWeight` (null
/// when unwanted), the bias gradient from `gradOut` when `mask[2]`, and
/// zeros for the unwanted results (Convolution.cpp).
void replaceConvolutionBackward(mlir::ConversionPatternRewriter &rewriter,
                                const mlir::TypeConverter &converter,
                                mlir::Operation *op, llvm::ArrayRef<bool> mask,
                                mlir::Value gradOut, mlir::Value gradInput,
                                mlir::Value gradWeight);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_CONVOLUTIONPARAMS_H
