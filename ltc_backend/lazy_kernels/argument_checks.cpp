// Predicates for arguments eager rejects but torch's lazy shape functions
// do not survive or do not check (argument_checks.h).
#include "ltc_backend/lazy_kernels/argument_checks.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <string>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// repeat(self, repeats): fewer repeats than dimensions (CHECK_GE in LTC).
bool InvalidRepeat(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const at::Tensor& self = BoxedArgument(op, stack, 0).toTensor();
  return static_cast<int64_t>(BoxedArgument(op, stack, 1).toIntVector().size()) < self.dim();
}

// One entry of a convolution parameter list given once or per spatial dim.
int64_t Param(const std::vector<int64_t>& values, int64_t d) {
  return values.size() == 1 ? values[0] : values[d];
}

// convolution / _convolution(input, weight, bias, stride, padding, dilation,
// transposed, output_padding, groups, ...): the checks of eager's
// check_shape_forward whose absence crashes or mis-shapes the lazy graph.
bool InvalidConvolution(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const at::Tensor& input = BoxedArgument(op, stack, 0).toTensor();
  const at::Tensor& weight = BoxedArgument(op, stack, 1).toTensor();
  const int64_t dims = weight.dim() - 2;
  if (dims < 1 || input.dim() != weight.dim()) return true;
  std::vector<int64_t> stride = BoxedArgument(op, stack, 3).toIntVector();
  std::vector<int64_t> padding = BoxedArgument(op, stack, 4).toIntVector();
  std::vector<int64_t> dilation = BoxedArgument(op, stack, 5).toIntVector();
  const bool transposed = BoxedArgument(op, stack, 6).toBool();
  std::vector<int64_t> outputPadding = BoxedArgument(op, stack, 7).toIntVector();
  const int64_t groups = BoxedArgument(op, stack, 8).toInt();
  for (const std::vector<int64_t>* list : {&stride, &padding, &dilation})
    if (list->size() != 1 && static_cast<int64_t>(list->size()) != dims) return true;
  if (transposed && outputPadding.size() != 1 && static_cast<int64_t>(outputPadding.size()) != dims)
    return true;
  if (groups <= 0) return true;
  for (int64_t d = 0; d < dims; ++d) {
    if (Param(stride, d) <= 0 || Param(padding, d) < 0 || Param(dilation, d) <= 0) return true;
    if (transposed) {
      int64_t extra = Param(outputPadding, d);
      if (extra < 0 || extra >= std::max(Param(stride, d), Param(dilation, d))) return true;
    } else {
      int64_t padded = input.size(d + 2) + 2 * Param(padding, d);
      int64_t extent = Param(dilation, d) * (weight.size(d + 2) - 1) + 1;
      if (padded < extent) return true;
    }
  }
  return false;
}

// tril/triu(self, diagonal): eager needs a matrix; the lazy shape function
// accepted a vector, and the graph then failed at the sync.
bool InvalidTriangle(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  return BoxedArgument(op, stack, 0).toTensor().dim() < 2;
}

// clone(self, memory_format): channels-last formats need a 4-d (5-d for
// ChannelsLast3d) tensor; lazy clones ignored the format.
bool InvalidCloneFormat(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const c10::IValue& format = BoxedArgument(op, stack, 1);
  if (format.isNone()) return false;
  const int64_t dim = BoxedArgument(op, stack, 0).toTensor().dim();
  switch (format.toMemoryFormat()) {
    case at::MemoryFormat::ChannelsLast: return dim != 4;
    case at::MemoryFormat::ChannelsLast3d: return dim != 5;
    default: return false;
  }
}

}  // namespace

InvalidArguments FindArgumentCheck(const c10::OperatorName& name) {
  if (name.name == "aten::repeat") return &InvalidRepeat;
  if (name.name == "aten::convolution" || name.name == "aten::_convolution")
    return &InvalidConvolution;
  if (name.name == "aten::tril" || name.name == "aten::triu") return &InvalidTriangle;
  if (name.name == "aten::clone") return &InvalidCloneFormat;
  return nullptr;
}

}  // namespace backend
}  // namespace ltc_mlir
