// runtime/convolution.h - f32 2-D convolutions (forward, input gradient,
// weight gradient) through oneDNN's convolution primitives, the kernels
// eager PyTorch's CPU convolutions use.
//
// The lowering (TorchToLinalg Convolution.cpp) calls, with memref
// descriptors of any strides (1-D convolutions come as H = 1):
//   _mlir_ciface_ltc_mlir_rt_conv2d_forward_f32(
//       input[N,C,H,W], weight[F,C/G,KH,KW], bias[F] or [0], out[N,F,OH,OW],
//       strideH, strideW, padH, padW, dilationH, dilationW, groups)
//   _mlir_ciface_ltc_mlir_rt_conv2d_backward_data_f32(
//       grad_out[N,F,OH,OW], weight, grad_input[N,C,H,W], <same scalars>)
//   _mlir_ciface_ltc_mlir_rt_conv2d_backward_weights_f32(
//       input, grad_out, grad_weight[F,C/G,KH,KW], <same scalars>)
// Padding is symmetric (PyTorch's); the output size is PyTorch's.
//
// oneDNN picks the blocked layouts its fastest kernels use for the host's
// ISA; operands are reordered into them and results back, as eager's ideep
// does. One primitive (and its reorders) per shape, parameters and strides
// is created on first use and cached for the process. On T > 1 threads a
// call is cut into T independent convolutions (batch, channel or group
// slices) run in one libomp parallel region, each by oneDNN on one libgomp
// thread: libgomp teams would spin on the cores compiled code's libomp
// loops need next. If oneDNN refuses a shape the call computes it with
// plain loops: slow, never wrong.
#ifndef LTC_MLIR_RUNTIME_CONVOLUTION_H
#define LTC_MLIR_RUNTIME_CONVOLUTION_H

#include <cstdint>
#include <string>

namespace ltc_mlir {
namespace runtime {

/// Address of a convolution entry point
/// ("_mlir_ciface_ltc_mlir_rt_conv2d_forward_f32", ...), or null.
void *resolveConvolutionSymbol(const std::string &name);

/// Calls computed by the plain-loop fallback so far (for tests and
/// diagnostics).
struct ConvolutionStats {
  int64_t fallbackCalls = 0;
};
ConvolutionStats convolutionStats();

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_CONVOLUTION_H
