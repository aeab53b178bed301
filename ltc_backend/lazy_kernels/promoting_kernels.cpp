// promoting_kernels: stack and cat of tensors with different dtypes.
//
// Eager promotes (`torch.stack([int64, float32])` is float32); torch's
// lazy stack takes the first tensor's dtype for the result, so the values
// were truncated to integers (or to bool) silently. cat got the dtype right
// but mixed operands made our lowering reject the whole graph. Both now
// convert every operand to the promoted dtype (eager's result_type) and
// call LTC's own kernel with operands of one dtype.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

struct LtcKernel {
  c10::OperatorHandle op;
  c10::KernelFunction kernel;  // LTC's, captured before ours replaces it
};

LtcKernel& Original(const char* name) {
  static auto* stack = new LtcKernel{
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::stack", ""), {}};
  static auto* cat = new LtcKernel{
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::cat", ""), {}};
  return std::string(name) == "stack" ? *stack : *cat;
}

// The operands converted to their promoted dtype (unchanged when they agree).
std::vector<at::Tensor> Promoted(at::TensorList tensors) {
  if (tensors.empty()) return tensors.vec();
  c10::ScalarType common = tensors[0].scalar_type();
  bool mixed = false;
  for (const at::Tensor& t : tensors) {
    mixed = mixed || t.scalar_type() != common;
    common = at::promote_types(common, t.scalar_type());
  }
  if (!mixed) return tensors.vec();
  std::vector<at::Tensor> out;
  out.reserve(tensors.size());
  for (const at::Tensor& t : tensors) out.push_back(t.to(common));
  return out;
}

at::Tensor Stack(at::TensorList tensors, int64_t dim) {
  LtcKernel& k = Original("stack");
  std::vector<at::Tensor> promoted = Promoted(tensors);
  return k.kernel.call<at::Tensor, at::TensorList, int64_t>(
      k.op, c10::DispatchKeySet(c10::DispatchKey::Lazy), promoted, dim);
}

at::Tensor Cat(const at::ITensorListRef& tensors, int64_t dim) {
  LtcKernel& k = Original("cat");
  std::vector<at::Tensor> list;
  for (const at::Tensor& t : tensors) list.push_back(t);
  std::vector<at::Tensor> promoted = Promoted(list);
  return k.kernel.call<at::Tensor, const at::ITensorListRef&, int64_t>(
      k.op, c10::DispatchKeySet(c10::DispatchKey::Lazy), at::ITensorListRef(promoted), dim);
}

}  // namespace

void RegisterPromotingKernels() {
  for (const char* name : {"stack", "cat"}) {
    LtcKernel& k = Original(name);
    k.kernel = RegisteredKernel(k.op, c10::DispatchKey::Lazy);
    TORCH_CHECK(k.kernel.isValid(), "ltc_mlir: LTC's ", name,
                " kernel must be registered before ours");
  }
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;  // we override LTC's kernels on purpose
  lib->impl("stack", TORCH_FN(Stack));
  lib->impl("cat", TORCH_FN(Cat));
}

}  // namespace backend
}  // namespace ltc_mlir
