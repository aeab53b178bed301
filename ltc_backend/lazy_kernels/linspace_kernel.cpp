// torch.linspace and torch.logspace on the lazy device as lowered lazy ops;
// torch's LTC has no Lazy kernel for them (nor for their .out forms), so
// F.affine_grid's base grid, and any linspace in a model, ran eagerly.
//
// ATen's values: step = (end - start) / (steps - 1) in the result dtype
// (in double for integer results, from start and end truncated to the
// integer type, and truncated at the end); the first half
// counts up from start, start + step * i, the second half down from end,
// end - step * (steps - 1 - i), so both ends are exact. (Eager's vectorized
// loop computes whole chunks from their first index, which moves the last
// bit of some f32 values, by the host's vector width; for integer results
// it truncates the step to an integer, so int linspace is a staircase that
// differs between AVX2 and AVX-512 hosts: the values here are the exact
// ramp truncated.) logspace raises
// base to those exponents. Complex and bool results keep the eager path.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// The linspace values of a `type` result, computed in `compute` (a floating
// dtype) on `options`' device; start and end are first converted to `type`.
at::Tensor Ramp(const at::Scalar& start, const at::Scalar& end, int64_t steps,
                at::ScalarType type, at::ScalarType compute, const at::TensorOptions& options) {
  at::TensorOptions computeOptions = options.dtype(compute);
  auto endpoint = [&](const at::Scalar& value) {
    return at::scalar_tensor(value, at::TensorOptions().dtype(type)).to(compute);
  };
  at::Tensor first = endpoint(start);
  if (steps == 1) return at::full({1}, first.item<double>(), computeOptions);
  at::Tensor last = endpoint(end);
  // (end - start) / (steps - 1), rounded as eager's scalar arithmetic.
  double step = ((last - first) / static_cast<double>(steps - 1)).item<double>();
  // (LTC's arange has no f16/bf16 shape function: counted in f32, exact.)
  bool reduced = compute == at::kHalf || compute == at::kBFloat16;
  at::Tensor index = at::arange(steps, reduced ? options.dtype(at::kFloat) : computeOptions);
  if (reduced) index = index.to(compute);
  at::Tensor up = at::add(at::mul(index, step), first.item<double>());
  at::Tensor down = at::rsub(at::mul(at::rsub(index, static_cast<double>(steps - 1)), step),
                             last.item<double>());
  return at::where(at::lt(index, static_cast<double>(steps / 2)), up, down);
}

bool Supported(at::ScalarType type) {
  return !at::isComplexType(type) && type != at::kBool;
}

void CheckSteps(int64_t steps) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
}

at::Tensor Linspace(const at::Scalar& start, const at::Scalar& end, int64_t steps,
                    std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
                    std::optional<at::Device> device, std::optional<bool> pinMemory) {
  CheckSteps(steps);
  at::ScalarType type = dtype.value_or(c10::typeMetaToScalarType(at::get_default_dtype()));
  at::TensorOptions options = at::TensorOptions().dtype(type).layout(layout).device(device);
  if (!Supported(type)) {
    at::Tensor host = at::linspace(start, end, steps, options.device(at::kCPU));
    return host.to(options.device());
  }
  if (steps == 0) return at::empty({0}, options);
  bool integral = at::isIntegralType(type, /*includeBool=*/false);
  at::Tensor values = Ramp(start, end, steps, type, integral ? at::kDouble : type, options);
  return integral ? values.to(type) : values;
}

at::Tensor Logspace(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base,
                    std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
                    std::optional<at::Device> device, std::optional<bool> pinMemory) {
  CheckSteps(steps);
  at::ScalarType type = dtype.value_or(c10::typeMetaToScalarType(at::get_default_dtype()));
  at::TensorOptions options = at::TensorOptions().dtype(type).layout(layout).device(device);
  if (!Supported(type) || at::isIntegralType(type, /*includeBool=*/false)) {
    at::Tensor host = at::logspace(start, end, steps, base, options.device(at::kCPU));
    return host.to(options.device());
  }
  if (steps == 0) return at::empty({0}, options);
  return at::pow(base, Ramp(start, end, steps, type, type, options));
}

}  // namespace

void RegisterLinspaceKernels() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("linspace", TORCH_FN(Linspace));
  lib->impl("logspace", TORCH_FN(Logspace));
}

}  // namespace backend
}  // namespace ltc_mlir
