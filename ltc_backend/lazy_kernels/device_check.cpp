#include "ltc_backend/lazy_kernels/device_check.h"

#include <c10/util/Exception.h>

#include "ltc_backend/lazy_kernels/kernel_table.h"

namespace ltc_mlir {
namespace backend {
namespace {

// What an argument may hold besides tensors on the op's lazy device.
enum class Tolerates { kCpuScalar, kNothing, kCpu };

struct DeviceScan {
  std::optional<c10::Device> lazy;
  std::optional<c10::Device> foreign;
  size_t foreign_arg = 0;

  void Visit(const at::Tensor& t, Tolerates tolerates, size_t arg) {
    if (!t.defined()) return;
    c10::Device device = t.device();
    if (device.is_lazy()) {
      if (!lazy) {
        lazy = device;
        return;
      }
      if (*lazy == device) return;
    } else if (device.is_cpu() && (tolerates == Tolerates::kCpu ||
                                   (tolerates == Tolerates::kCpuScalar && t.dim() == 0))) {
      return;
    }
    if (!foreign) {
      foreign = device;
      foreign_arg = arg;
    }
  }
};

// Arguments eager's kernels require on the CPU whatever the data's device:
// the lengths and batch sizes of packed sequences (nn.utils.rnn).
bool HostArgument(const c10::OperatorHandle& op, const c10::Argument& arg) {
  const std::string& name = op.schema().name();
  if (arg.name() == "lengths") return name == "aten::_pack_padded_sequence";
  if (arg.name() == "batch_sizes")
    return name == "aten::_pad_packed_sequence" || name == "aten::_pack_padded_sequence_backward" ||
           name == "aten::lstm" || name == "aten::gru" || name == "aten::rnn_tanh" ||
           name == "aten::rnn_relu";
  return false;
}

}  // namespace

std::optional<c10::Device> CheckOperandDevices(const c10::OperatorHandle& op,
                                               const torch::jit::Stack& stack) {
  const auto& schema_args = op.schema().arguments();
  const size_t n = schema_args.size();
  DeviceScan scan;
  for (size_t i = 0; i < n; ++i) {
    const c10::IValue& v = stack[stack.size() - n + i];
    if (v.isTensor()) {
      scan.Visit(v.toTensor(), HostArgument(op, schema_args[i]) ? Tolerates::kCpu : Tolerates::kCpuScalar, i);
    } else if (v.isTensorList() || v.isOptionalTensorList()) {
      Tolerates tolerates = v.isOptionalTensorList() ? Tolerates::kCpu : Tolerates::kNothing;
      for (const c10::IValue& e : v.toListRef())
        if (e.isTensor()) scan.Visit(e.toTensor(), tolerates, i);
    }
  }
  if (scan.foreign && scan.lazy) {
    TORCH_CHECK(false, "Expected all tensors to be on the same device, but found at least two "
                "devices, ", *scan.lazy, " and ", *scan.foreign, "! (argument '",
                schema_args[scan.foreign_arg].name(), "' of ", OperatorFullName(op),
                " is on ", *scan.foreign, "; move it with .to(\"", *scan.lazy, "\") first)");
  }
  return scan.lazy;
}

}  // namespace backend
}  // namespace ltc_mlir
