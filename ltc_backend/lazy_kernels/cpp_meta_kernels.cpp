// cpp_meta_kernels: C++ Meta kernels for the ops a lazy training step
// runs on meta tensors most often: in-place updates and empty_like.
//
// Before torch 2.x functionalization turns `a.add_(b)` on a lazy tensor into
// `a = add(a, b)`, it runs the in-place op on meta copies of the operands, so
// that what eager rejects (a broadcast that would grow `a`, a result dtype
// that cannot be cast to a's) is rejected here too. `import torch` replaces
// the C++ Meta kernels of these ops with Python ones (torch/_meta_registrations.py,
// meant for symbolic shapes): 40-60 us per call instead of a few. That was
// about half of nanoGPT's trace time (AdamW: 5 in-place ops per parameter)
// and every SGD/BatchNorm update of the CNNs. empty_like on meta tensors
// (LTC's shape functions, autograd's zeros) is the same story, ~190 calls
// per nanoGPT step.
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
#include <ATen/ops/empty_like_native.h>
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

// Runs torch's C++ Meta kernel of one op on the op's arguments and returns
// its result (self for an in-place op). It raises what eager's kernel raises.
using MetaKernel = at::Tensor (*)(Args args);

at::Tensor& Self(Args args) { return const_cast<c10::IValue&>(args[0]).toTensor(); }

std::optional<c10::string_view> OptionalString(const c10::IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toStringView();
}

struct CppMeta {
  const char* name;  // overload, as torch::Library::impl takes it
  MetaKernel kernel;
};

// The ops: empty_like (its C++ kernel, which allocates a meta tensor when
// given one); every in-place op SGD (momentum, weight decay, nesterov), Adam,
// AdamW, RMSprop and Adagrad call per parameter, BatchNorm's statistics, and
// the activations models apply in place (nn.ReLU/ReLU6/SiLU(inplace=True)),
// each through its at::meta:: function exported by libtorch_cpu.
const CppMeta kCppMetas[] = {
    {"empty_like", [](Args a) {
       return at::native::empty_like(
           a[0].toTensor(), a[1].toOptional<at::ScalarType>(), a[2].toOptional<at::Layout>(),
           a[3].toOptional<at::Device>(), a[4].toOptional<bool>(),
           a[5].toOptional<at::MemoryFormat>());
     }},
    {"add_.Tensor", [](Args a) { return at::meta::add_(Self(a), a[1].toTensor(), a[2].toScalar()); }},
    {"sub_.Tensor", [](Args a) { return at::meta::sub_(Self(a), a[1].toTensor(), a[2].toScalar()); }},
    {"mul_.Tensor", [](Args a) { return at::meta::mul_(Self(a), a[1].toTensor()); }},
    {"div_.Tensor", [](Args a) { return at::meta::div_(Self(a), a[1].toTensor()); }},
    {"div_.Tensor_mode",
     [](Args a) { return at::meta::div_(Self(a), a[1].toTensor(), OptionalString(a[2])); }},
    {"addcmul_", [](Args a) {
       return at::meta::addcmul_(Self(a), a[1].toTensor(), a[2].toTensor(), a[3].toScalar());
     }},
    {"addcdiv_", [](Args a) {
       return at::meta::addcdiv_(Self(a), a[1].toTensor(), a[2].toTensor(), a[3].toScalar());
     }},
    {"lerp_.Scalar", [](Args a) { return at::meta::lerp_(Self(a), a[1].toTensor(), a[2].toScalar()); }},
    {"lerp_.Tensor", [](Args a) { return at::meta::lerp_(Self(a), a[1].toTensor(), a[2].toTensor()); }},
    {"clamp_", [](Args a) {
       return at::meta::clamp_(Self(a), a[1].toOptional<at::Scalar>(), a[2].toOptional<at::Scalar>());
     }},
    {"clamp_.Tensor", [](Args a) {
       return at::meta::clamp_(Self(a), a[1].toOptional<at::Tensor>(), a[2].toOptional<at::Tensor>());
     }},
    {"clamp_min_", [](Args a) { return at::meta::clamp_min_(Self(a), a[1].toScalar()); }},
    {"clamp_max_", [](Args a) { return at::meta::clamp_max_(Self(a), a[1].toScalar()); }},
    {"sqrt_", [](Args a) { return at::meta::sqrt_(Self(a)); }},
    {"neg_", [](Args a) { return at::meta::neg_(Self(a)); }},
    {"zero_", [](Args a) { return at::meta::zero_(Self(a)); }},
    {"fill_.Scalar", [](Args a) { return at::meta::fill_(Self(a), a[1].toScalar()); }},
    // relu_ and hardtanh_ have no exported Meta function; eager's kernels
    // are clamp_min_(self, 0) and clamp_(self, min, max) behind a dtype check.
    {"relu_", [](Args a) {
       TORCH_CHECK_NOT_IMPLEMENTED(Self(a).scalar_type() != at::kBool,
                                   "Boolean inputs not supported for relu");
       return at::meta::clamp_min_(Self(a), 0);
     }},
    {"hardtanh_", [](Args a) {
       at::Tensor& self = Self(a);
       TORCH_CHECK_NOT_IMPLEMENTED(self.scalar_type() != at::kBool,
                                   "Bool inputs not supported for hardtanh");
       if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/false) &&
           !c10::isSignedType(self.scalar_type()))
         TORCH_CHECK(a[1].toScalar().to<double>() >= 0 && a[2].toScalar().to<double>() >= 0,
                     "cannot do hardtanh on an unsigned type with negative limits");
       return at::meta::clamp_(self, a[1].toScalar(), a[2].toScalar());
     }},
    {"threshold_",
     [](Args a) { return at::meta::threshold_(Self(a), a[1].toScalar(), a[2].toScalar()); }},
    {"silu_", [](Args a) { return at::meta::silu_(Self(a)); }},
    {"sigmoid_", [](Args a) { return at::meta::sigmoid_(Self(a)); }},
    {"tanh_", [](Args a) { return at::meta::tanh_(Self(a)); }},
};

bool IsSymbolic(const c10::IValue& v) {
  if (v.isTensor())
    return v.toTensor().defined() &&
           v.toTensor().unsafeGetTensorImpl()->has_symbolic_sizes_strides();
  return v.isSymInt() || v.isSymFloat() || v.isSymBool();
}

class CppMetaKernel final : public c10::OperatorKernel {
 public:
  CppMetaKernel(MetaKernel kernel, c10::KernelFunction symbolic)
      : kernel_(kernel), symbolic_(std::move(symbolic)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys, Stack* stack) {
    const size_t num_args = op.schema().arguments().size();
    Args args = torch::jit::last(*stack, num_args);
    for (const c10::IValue& v : args) {
      if (IsSymbolic(v)) {
        symbolic_.callBoxed(op, keys, stack);
        return;
      }
    }
    at::Tensor result = kernel_(args);
    torch::jit::drop(*stack, num_args);
    stack->emplace_back(std::move(result));
  }

 private:
  MetaKernel kernel_;
  c10::KernelFunction symbolic_;  // the Meta kernel we replaced
};

}  // namespace

size_t RegisterCppMetaKernels() {
  static torch::Library* lib =
      new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::Meta, __FILE__, __LINE__);
  QuietWarnings quiet;  // we override torch's Python Meta kernels on purpose
  size_t registered = 0;
  for (const CppMeta& entry : kCppMetas) {
    c10::KernelFunction current =
        RegisteredKernel(FindAtenOp(entry.name), c10::DispatchKey::Meta);
    // Without a Python kernel to keep for symbolic operands, leave torch's.
    if (!current.isValid()) continue;
    lib->impl(entry.name, torch::CppFunction::makeFromBoxedFunctor(
                              std::make_unique<CppMetaKernel>(entry.kernel, current)));
    ++registered;
  }
  return registered;
}

}  // namespace backend
}  // namespace ltc_mlir
