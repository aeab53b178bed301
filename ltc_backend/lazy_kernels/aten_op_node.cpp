#include "ltc_backend/lazy_kernels/aten_op_node.h"

#include <ATen/ATen.h>
#include <torch/csrc/lazy/backend/backend_device.h>
#include <torch/csrc/lazy/core/hash.h>
#include <torch/csrc/lazy/core/ir_builder.h>
#include <torch/csrc/lazy/core/lazy_graph_executor.h>
#include <torch/csrc/lazy/core/tensor.h>
#include <torch/library.h>

#include <unordered_map>
#include <mutex>
#include <sstream>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"
#include "ltc_backend/lazy_kernels/meta_shape_cache.h"

namespace ltc_mlir {
namespace backend {

at::Tensor MetaLike(const at::Tensor& t) {
  if (!t.defined()) return t;
  return at::empty(t.sizes(), t.options().device(c10::kMeta));
}
namespace {

using Kind = AtenOpArg::Kind;

at::Tensor MetaTwin(const at::Tensor& t) {
  if (!t.defined()) return t;
  // A Python number wrapped as a 0-dim CPU tensor (floor_divide(x, 2)) stays
  // as it is: it must keep its wrapped-number flag (it does not take part in
  // type promotion), and meta kernels written in Python assert that wrapped
  // numbers are on the CPU. Meta kernels accept CPU scalars.
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) return t;
  return MetaLike(t);
}

c10::IValue MetaArgument(const c10::IValue& v) {
  if (v.isTensor()) return MetaTwin(v.toTensor());
  if (v.isTensorList()) {
    c10::List<at::Tensor> twins;
    for (const c10::IValue& e : v.toListRef()) twins.push_back(MetaTwin(e.toTensor()));
    return twins;
  }
  if (v.isOptionalTensorList()) {
    c10::List<std::optional<at::Tensor>> twins;
    for (const c10::IValue& e : v.toListRef())
      twins.push_back(e.isTensor() ? std::optional<at::Tensor>(MetaTwin(e.toTensor()))
                                   : std::nullopt);
    return twins;
  }
  if (v.isDevice() && v.toDevice().is_lazy()) return c10::Device(c10::kMeta);
  return v;
}

bool IsScalarArgument(const c10::Argument& arg) {
  c10::TypePtr type = arg.type();
  if (auto optional = type->cast<c10::OptionalType>()) type = optional->getElementType();
  return type->kind() == c10::TypeKind::NumberType;
}

torch::lazy::Value LazyValueOf(const at::Tensor& t, const torch::lazy::BackendDevice& device) {
  return torch::lazy::GetLtcTensorOrCreateForWrappedNumber(t, device)->GetIrValue();
}

// Ops whose one result is given the shape and dtype of one of their tensor
// arguments instead of a meta probe (registered with result_like, e.g.
// reflection_pad2d_backward): full op name -> that argument's position.
std::mutex like_argument_mutex;
std::unordered_map<c10::OperatorName, size_t>& LikeArgumentTable() {
  static auto* table = new std::unordered_map<c10::OperatorName, size_t>();
  return *table;
}

std::optional<size_t> LikeArgument(const c10::OperatorHandle& op) {
  std::lock_guard<std::mutex> lock(like_argument_mutex);
  auto it = LikeArgumentTable().find(op.operator_name());
  if (it == LikeArgumentTable().end()) return std::nullopt;
  return it->second;
}

// Ops whose result shapes a registered function computes.
std::unordered_map<c10::OperatorName, AtenOpShapeFn>& ShapeFnTable() {
  static auto* table = new std::unordered_map<c10::OperatorName, AtenOpShapeFn>();
  return *table;
}

const AtenOpShapeFn* ShapeFnOf(const c10::OperatorHandle& op) {
  std::lock_guard<std::mutex> lock(like_argument_mutex);
  auto it = ShapeFnTable().find(op.operator_name());
  return it == ShapeFnTable().end() ? nullptr : &it->second;
}

}  // namespace

std::vector<torch::lazy::Shape> MetaOutputShapes(const c10::OperatorHandle& op,
                                                 const torch::jit::Stack& stack) {
  const size_t n = op.schema().arguments().size();
  if (const AtenOpShapeFn* fn = ShapeFnOf(op)) return (*fn)(op, stack);
  if (std::optional<size_t> like = LikeArgument(op)) {
    const at::Tensor& t = stack[stack.size() - n + *like].toTensor();
    return {torch::lazy::Shape(t.scalar_type(), t.sizes())};
  }
  return CachedMetaShapes(op, stack, [&] {
    torch::jit::Stack meta;
    meta.reserve(n);
    for (size_t i = 0; i < n; ++i) meta.push_back(MetaArgument(stack[stack.size() - n + i]));
    op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::Meta), &meta);
    std::vector<torch::lazy::Shape> shapes;
    for (const c10::IValue& result : meta) {
      TORCH_CHECK(result.isTensor(), "ltc_mlir: ", OperatorFullName(op),
                  " returns a ", result.tagKind(), "; AtenOpNode takes tensor results only");
      const at::Tensor& t = result.toTensor();
      shapes.emplace_back(t.scalar_type(), t.sizes());
    }
    return shapes;
  });
}

void CallAtenOpLazily(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CallAtenOpLazilyWithShapes(op, stack, {});
}

void CallAtenOpLazilyWithShapes(const c10::OperatorHandle& op, torch::jit::Stack* stack,
                                std::vector<torch::lazy::Shape> shapes) {
  const auto& schema_args = op.schema().arguments();
  const size_t n = schema_args.size();
  // An explicit random generator: its stream can only be drawn eagerly.
  for (size_t i = 0; i < n; ++i) {
    const c10::IValue& v = (*stack)[stack->size() - n + i];
    if (v.isGenerator() && v.toGenerator().defined()) return RunEagerFallback(op, stack);
  }
  std::optional<c10::Device> device = CheckOperandDevices(op, *stack);
  for (size_t i = 0; i < n && !device; ++i) {  // a factory: its device argument
    const c10::IValue& v = (*stack)[stack->size() - n + i];
    if (v.isDevice() && v.toDevice().is_lazy()) device = v.toDevice();
  }
  torch::lazy::BackendDevice backend_device =
      device ? torch::lazy::atenDeviceToBackendDevice(*device) : torch::lazy::BackendDevice();
  if (shapes.empty()) shapes = MetaOutputShapes(op, *stack);

  std::vector<torch::lazy::Value> operands;
  std::vector<AtenOpArg> args(n);
  for (size_t i = 0; i < n; ++i) {
    const c10::IValue& v = (*stack)[stack->size() - n + i];
    AtenOpArg& arg = args[i];
    arg.first_operand = operands.size();
    if (v.isTensor() && v.toTensor().defined()) {
      arg.kind = Kind::kOperand;
      operands.push_back(LazyValueOf(v.toTensor(), backend_device));
    } else if (v.isTensorList()) {
      arg.kind = Kind::kOperandList;
      for (const c10::IValue& e : v.toListRef())
        operands.push_back(LazyValueOf(e.toTensor(), backend_device));
      arg.num_operands = operands.size() - arg.first_operand;
    } else if (v.isOptionalTensorList()) {
      // Index tensors may be CPU tensors of any shape: uploaded as inputs.
      arg.kind = Kind::kOptionalOperandList;
      for (const c10::IValue& e : v.toListRef()) {
        bool present = e.isTensor() && e.toTensor().defined();
        arg.present.push_back(present);
        if (present)
          operands.push_back(
              torch::lazy::GetOrCreateLtcTensor(e.toTensor(), backend_device)->GetIrValue());
      }
      arg.num_operands = operands.size() - arg.first_operand;
    } else if (!v.isNone() && IsScalarArgument(schema_args[i])) {
      // A graph input, as LTC's own kernels do: the value is not in the hash.
      arg.kind = Kind::kOperand;
      operands.push_back(torch::lazy::LazyGraphExecutor::Get()->GetIrValueForScalarFromCodegen(
          v.toScalar(), backend_device));
    } else {
      arg.kind = Kind::kConstant;
      if (v.isTensor()) {
        arg.constant = c10::IValue();  // an undefined optional tensor
      } else if (v.isSymInt()) {
        arg.constant = v.toSymInt().expect_int();
      } else {
        arg.constant = v;
      }
    }
  }
  size_t num_outputs = shapes.size();
  torch::lazy::NodePtr node = MakeAtenOpNode(op, operands, std::move(args), std::move(shapes));
  torch::jit::drop(*stack, n);
  for (size_t i = 0; i < num_outputs; ++i) {
    torch::jit::push(*stack, torch::lazy::CreateAtenFromLtcTensor(torch::lazy::LazyTensor::Create(
                                 torch::lazy::Value(node, i), backend_device)));
  }
}

void RegisterAtenOpKernel(const std::string& name, AtenOpShapeFn shapes) {
  c10::OperatorHandle op = FindAtenOp(name);
  {
    std::lock_guard<std::mutex> lock(like_argument_mutex);
    ShapeFnTable()[op.operator_name()] = std::move(shapes);
  }
  RegisterAtenOpKernel(name);
}

void RegisterAtenOpKernel(const std::string& name, const std::string& result_like) {
  c10::OperatorHandle op = FindAtenOp(name);
  if (!result_like.empty()) {
    const auto& args = op.schema().arguments();
    size_t i = 0;
    while (i < args.size() && args[i].name() != result_like) ++i;
    TORCH_CHECK(i < args.size() && args[i].type()->kind() == c10::TypeKind::TensorType &&
                    op.schema().returns().size() == 1,
                "ltc_mlir: aten::", name, " has no Tensor argument '", result_like,
                "' (or more than one result)");
    std::lock_guard<std::mutex> lock(like_argument_mutex);
    LikeArgumentTable()[op.operator_name()] = i;
  }
  for (const c10::Argument& arg : op.schema().arguments())
    TORCH_CHECK(arg.alias_info() == nullptr, "ltc_mlir: aten::", name,
                " mutates or aliases its argument '", arg.name(),
                "'; AtenOpNode takes functional ops only");
  for (const c10::Argument& ret : op.schema().returns())
    TORCH_CHECK(ret.alias_info() == nullptr && ret.type()->kind() == c10::TypeKind::TensorType,
                "ltc_mlir: aten::", name, " must return new tensors for AtenOpNode");
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;  // replacing LTC's own kernel is a deliberate choice here
  lib->impl(name.c_str(), torch::CppFunction::makeFromBoxedFunction<&CallAtenOpLazily>());
}


}  // namespace backend
}  // namespace ltc_mlir
