// out_argument_checks: `torch.op(..., out=t)` with a lazy `t` whose dtype is
// not the one the op computes.
//
// torch functionalizes an out= call into the functional op plus a copy
// into `out`, casting on the way. So `torch.mm(a, b, out=long_tensor)`,
// `torch.exp(x, out=long_tensor)` or `torch.argmax(x, 0, out=float_tensor)`
// silently computed a cast result where eager raises ("Expected out tensor
// to have dtype float, but got long int instead", "result type Float can't
// be cast to the desired output type Long"), and `torch.sum(x, 0,
// out=long_tensor)` summed in f32 where eager sums in the out tensor's dtype.
//
// The Functionalize kernel of every aten op with out arguments is wrapped.
// When an out tensor is lazy, the call first runs on meta tensors of the
// same shapes and dtypes: eager's checks, shared by its meta kernels, raise
// eager's message (out= calls are rare in training code; the probe costs
// one meta dispatch). In torch 2.x that takes torch's C++ Meta kernels, not
// the Python ones in front of them (EagerMetaChecks). For the reductions
// whose accumulation type eager takes from the out tensor, an unset `dtype`
// argument is then set to it. Ops without a meta kernel keep the
// functionalized behaviour (a cast copy).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <string>

#include "ltc_backend/lazy_kernels/eager_meta_checks.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"
#include "ltc_backend/view_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

bool HasOutArgument(const c10::FunctionSchema& schema) {
  const auto& args = schema.arguments();
  return std::any_of(args.begin(), args.end(), [](const c10::Argument& a) { return a.is_out(); });
}

// Reductions whose `dtype=None` means "the out tensor's dtype" in eager
// (their structured meta functions infer it from the output).
bool AccumulatesInOutDtype(const c10::OperatorName& name) {
  static const char* const kNames[] = {"aten::sum",    "aten::nansum",  "aten::mean",
                                       "aten::prod",   "aten::cumsum",  "aten::cumprod",
                                       "aten::linalg_vector_norm"};
  return std::any_of(std::begin(kNames), std::end(kNames),
                     [&](const char* n) { return name.name == n; });
}

// Whether an out argument is a lazy tensor.
bool HasLazyOut(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const auto& args = op.schema().arguments();
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_out()) continue;
    const c10::IValue& v = BoxedArgument(op, stack, i);
    if (v.isTensor() && IsLazyFunctional(v.toTensor())) return true;
    if (v.isTensorList())
      for (const at::Tensor& t : v.toTensorList())
        if (IsLazyFunctional(t)) return true;
  }
  return false;
}

at::Tensor OnMeta(const at::Tensor& t) {
  if (!t.defined()) return t;
  // Python scalars arrive as wrapped 0-d CPU tensors, which promote
  // differently: passed as they are, as eager passes them (a Python Meta
  // kernel reads them as numbers and asserts they are on the CPU).
  bool wrapped = t.unsafeGetTensorImpl()->is_wrapped_number();
  if (wrapped && t.device().is_cpu()) return t;
  at::Tensor meta = at::empty(t.sizes(), t.options().device(at::kMeta));
  if (wrapped) meta.unsafeGetTensorImpl()->set_wrapped_number(true);
  return meta;
}

// Runs the op on meta tensors shaped and typed as its arguments. Returns
// false when the op has no meta kernel; eager's argument errors propagate.
bool RunOnMeta(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  torch::jit::Stack probe;
  for (size_t i = 0; i < op.schema().arguments().size(); ++i) {
    const c10::IValue& v = BoxedArgument(op, stack, i);
    if (v.isTensor()) {
      probe.emplace_back(OnMeta(v.toTensor()));
    } else if (v.isTensorList()) {
      c10::List<at::Tensor> list;
      for (const at::Tensor& t : v.toTensorList()) list.push_back(OnMeta(t));
      probe.emplace_back(std::move(list));
    } else if (v.isOptionalTensorList()) {
      c10::List<std::optional<at::Tensor>> list;
      for (const c10::IValue& e : v.toListRef())
        list.push_back(e.isTensor() ? std::optional<at::Tensor>(OnMeta(e.toTensor()))
                                    : std::nullopt);
      probe.emplace_back(std::move(list));
    } else {
      probe.push_back(v);
    }
  }
  try {
    QuietWarnings quiet;  // the real call warns (an out tensor resized) itself
    EagerMetaChecks eager_messages;
    op.callBoxed(&probe);
  } catch (const c10::NotImplementedError&) {
    return false;
  }
  return true;
}

// Sets an unset `dtype` argument to the (single) out tensor's dtype.
void AccumulateInOutDtype(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor& self = BoxedArgument(op, *stack, 0).toTensor();
  const auto& args = op.schema().arguments();
  const size_t n = args.size();
  std::optional<size_t> dtype_arg;
  std::optional<at::ScalarType> out_dtype;
  for (size_t i = 0; i < n; ++i) {
    const c10::IValue& v = (*stack)[stack->size() - n + i];
    if (args[i].name() == "dtype" && v.isNone()) dtype_arg = i;
    if (args[i].is_out() && v.isTensor()) out_dtype = v.toTensor().scalar_type();
  }
  if (!dtype_arg || !out_dtype) return;
  // mean's meta function accepts an integral out tensor; eager's CPU kernel
  // computes in the input's floating type and refuses the cast.
  TORCH_CHECK(op.operator_name().name != "aten::mean" || !at::isFloatingType(self.scalar_type()) ||
                  at::isFloatingType(*out_dtype) || at::isComplexType(*out_dtype),
              "result type ", self.scalar_type(), " can't be cast to the desired output type ",
              *out_dtype);
  (*stack)[stack->size() - n + *dtype_arg] = static_cast<int64_t>(*out_dtype);
}

class OutDtypeCheck final : public c10::OperatorKernel {
 public:
  explicit OutDtypeCheck(c10::KernelFunction inner) : inner_(std::move(inner)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    if (HasLazyOut(op, *stack) && RunOnMeta(op, *stack) &&
        AccumulatesInOutDtype(op.operator_name()))
      AccumulateInOutDtype(op, stack);
    inner_.callBoxed(op, keys, stack);
  }

 private:
  c10::KernelFunction inner_;
};

}  // namespace

size_t InstallOutArgumentChecks() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::Functionalize, __FILE__, __LINE__);
  return WrapFunctionalizeKernels(*lib, HasOutArgument, [](c10::KernelFunction inner) -> BoxedKernel {
    return OutDtypeCheck(std::move(inner));
  });
}

}  // namespace backend
}  // namespace ltc_mlir
