// inplace_meta_kernels: C++ Meta kernels for the in-place ops a training step
// calls most (optimizer updates, in-place activations).
//
// Before torch 2.x functionalization turns `a.add_(b)` on a lazy tensor into
// `a = add(a, b)`, it runs the in-place op on meta copies of the operands, so
// that what eager rejects (a broadcast that would grow `a`, a result dtype
// that cannot be cast to a's) is rejected here too. `import torch` replaces
// the C++ Meta kernels of these ops with Python ones (torch/_meta_registrations.py,
// meant for symbolic shapes): 40-60 us per call instead of a few. That was
// about half of nanoGPT's trace time (AdamW: 5 in-place ops per parameter)
// and every SGD/BatchNorm update of the CNNs.
//
// Our kernel calls torch's own C++ Meta kernel (at::meta::<op>_: the
// TensorIterator checks eager's CPU kernel makes, hence eager's messages) and
// keeps the Python one for operands with symbolic sizes or numbers
// (FakeTensor under torch.compile(dynamic=True)), which the C++ kernels do
// not handle.
#include <ATen/ATen.h>
#include <ATen/ops/add_meta_dispatch.h>
#include <ATen/ops/addcdiv_meta_dispatch.h>
#include <ATen/ops/addcmul_meta_dispatch.h>
#include <ATen/ops/clamp_max_meta_dispatch.h>
#include <ATen/ops/clamp_meta_dispatch.h>
#include <ATen/ops/clamp_min_meta_dispatch.h>
#include <ATen/ops/div_meta_dispatch.h>
#include <ATen/ops/fill_meta_dispatch.h>
#include <ATen/ops/lerp_meta_dispatch.h>
#include <ATen/ops/mul_meta_dispatch.h>
#include <ATen/ops/neg_meta_dispatch.h>
#include <ATen/ops/sigmoid_meta_dispatch.h>
#include <ATen/ops/silu_meta_dispatch.h>
#include <ATen/ops/sqrt_meta_dispatch.h>
#include <ATen/ops/sub_meta_dispatch.h>
#include <ATen/ops/tanh_meta_dispatch.h>
#include <ATen/ops/threshold_meta_dispatch.h>
#include <ATen/ops/zero_meta_dispatch.h>
#include <torch/library.h>

#include <memory>
#include <optional>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

using Stack = torch::jit::Stack;
using Args = c10::ArrayRef<c10::IValue>;

// Runs torch's C++ Meta kernel of one in-place op on the op's arguments
// (args[0] is self). It raises what eager's kernel raises.
using MetaCheck = void (*)(Args args);

at::Tensor& Self(Args args) { return const_cast<c10::IValue&>(args[0]).toTensor(); }

std::optional<c10::string_view> OptionalString(const c10::IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toStringView();
}

struct InplaceMeta {
  const char* name;  // overload, as torch::Library::impl takes it
  MetaCheck check;
};

// The ops: every in-place op SGD (momentum, weight decay, nesterov), Adam,
// AdamW, RMSprop and Adagrad call per parameter, BatchNorm's statistics, and
// the activations models apply in place (nn.ReLU/ReLU6/SiLU(inplace=True)).
// Each has its at::meta:: function exported by libtorch_cpu.
const InplaceMeta kInplaceMetas[] = {
    {"add_.Tensor", [](Args a) { at::meta::add_(Self(a), a[1].toTensor(), a[2].toScalar()); }},
    {"sub_.Tensor", [](Args a) { at::meta::sub_(Self(a), a[1].toTensor(), a[2].toScalar()); }},
    {"mul_.Tensor", [](Args a) { at::meta::mul_(Self(a), a[1].toTensor()); }},
    {"div_.Tensor", [](Args a) { at::meta::div_(Self(a), a[1].toTensor()); }},
    {"div_.Tensor_mode",
     [](Args a) { at::meta::div_(Self(a), a[1].toTensor(), OptionalString(a[2])); }},
    {"addcmul_", [](Args a) {
       at::meta::addcmul_(Self(a), a[1].toTensor(), a[2].toTensor(), a[3].toScalar());
     }},
    {"addcdiv_", [](Args a) {
       at::meta::addcdiv_(Self(a), a[1].toTensor(), a[2].toTensor(), a[3].toScalar());
     }},
    {"lerp_.Scalar", [](Args a) { at::meta::lerp_(Self(a), a[1].toTensor(), a[2].toScalar()); }},
    {"lerp_.Tensor", [](Args a) { at::meta::lerp_(Self(a), a[1].toTensor(), a[2].toTensor()); }},
    {"clamp_", [](Args a) {
       at::meta::clamp_(Self(a), a[1].toOptional<at::Scalar>(), a[2].toOptional<at::Scalar>());
     }},
    {"clamp_.Tensor", [](Args a) {
       at::meta::clamp_(Self(a), a[1].toOptional<at::Tensor>(), a[2].toOptional<at::Tensor>());
     }},
    {"clamp_min_", [](Args a) { at::meta::clamp_min_(Self(a), a[1].toScalar()); }},
    {"clamp_max_", [](Args a) { at::meta::clamp_max_(Self(a), a[1].toScalar()); }},
    {"sqrt_", [](Args a) { at::meta::sqrt_(Self(a)); }},
    {"neg_", [](Args a) { at::meta::neg_(Self(a)); }},
    {"zero_", [](Args a) { at::meta::zero_(Self(a)); }},
    {"fill_.Scalar", [](Args a) { at::meta::fill_(Self(a), a[1].toScalar()); }},
    // relu_ and hardtanh_ have no exported Meta function; eager's kernels
    // are clamp_min_(self, 0) and clamp_(self, min, max) behind a dtype check.
    {"relu_", [](Args a) {
       TORCH_CHECK_NOT_IMPLEMENTED(Self(a).scalar_type() != at::kBool,
                                   "Boolean inputs not supported for relu");
       at::meta::clamp_min_(Self(a), 0);
     }},
    {"hardtanh_", [](Args a) {
       at::Tensor& self = Self(a);
       TORCH_CHECK_NOT_IMPLEMENTED(self.scalar_type() != at::kBool,
                                   "Bool inputs not supported for hardtanh");
       if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/false) &&
           !c10::isSignedType(self.scalar_type()))
         TORCH_CHECK(a[1].toScalar().to<double>() >= 0 && a[2].toScalar().to<double>() >= 0,
                     "cannot do hardtanh on an unsigned type with negative limits");
       at::meta::clamp_(self, a[1].toScalar(), a[2].toScalar());
     }},
    {"threshold_",
     [](Args a) { at::meta::threshold_(Self(a), a[1].toScalar(), a[2].toScalar()); }},
    {"silu_", [](Args a) { at::meta::silu_(Self(a)); }},
    {"sigmoid_", [](Args a) { at::meta::sigmoid_(Self(a)); }},
    {"tanh_", [](Args a) { at::meta::tanh_(Self(a)); }},
};

bool IsSymbolic(const c10::IValue& v) {
  if (v.isTensor())
    return v.toTensor().defined() &&
           v.toTensor().unsafeGetTensorImpl()->has_symbolic_sizes_strides();
  return v.isSymInt() || v.isSymFloat() || v.isSymBool();
}

class InplaceMetaKernel final : public c10::OperatorKernel {
 public:
  InplaceMetaKernel(MetaCheck check, c10::KernelFunction symbolic)
      : check_(check), symbolic_(std::move(symbolic)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys, Stack* stack) {
    const size_t num_args = op.schema().arguments().size();
    Args args = torch::jit::last(*stack, num_args);
    for (const c10::IValue& v : args) {
      if (IsSymbolic(v)) {
        symbolic_.callBoxed(op, keys, stack);
        return;
      }
    }
    check_(args);
    at::Tensor self = Self(args);
    torch::jit::drop(*stack, num_args);
    stack->emplace_back(std::move(self));
  }

 private:
  MetaCheck check_;
  c10::KernelFunction symbolic_;  // the Meta kernel we replaced
};

}  // namespace

size_t RegisterInplaceMetaKernels() {
  static torch::Library* lib =
      new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::Meta, __FILE__, __LINE__);
  QuietWarnings quiet;  // we override torch's Python Meta kernels on purpose
  size_t registered = 0;
  for (const InplaceMeta& entry : kInplaceMetas) {
    std::string name = entry.name;
    size_t dot = name.find('.');
    std::string overload = dot == std::string::npos ? "" : name.substr(dot + 1);
    std::optional<c10::OperatorHandle> op = c10::Dispatcher::singleton().findOp(
        {"aten::" + name.substr(0, dot), overload});
    if (!op) continue;
    c10::KernelFunction current = RegisteredKernel(*op, c10::DispatchKey::Meta);
    // Without a Python kernel to keep for symbolic operands, leave torch's.
    if (!current.isValid()) continue;
    lib->impl(entry.name, torch::CppFunction::makeFromBoxedFunctor(
                              std::make_unique<InplaceMetaKernel>(entry.check, current)));
    ++registered;
  }
  return registered;
}

}  // namespace backend
}  // namespace ltc_mlir
