// batch_norm_kernel: native_batch_norm whose running statistics are updated
// exactly once per call, whatever syncs happen afterwards.
//
// native_batch_norm's schema does not mark running_mean/running_var as
// mutated, yet the op updates them. torch's LTC records the node with the
// running-stat buffers as inputs and its TorchScript lowering updates them in
// place each time a graph containing the node runs: an `.item()` between the
// forward and mark_step ran it twice (running_mean ~1.9x eager's). Here, in
// training mode with running stats, the node gets no running stats (so
// nothing in the graph mutates anything: an AtenOpNode, aten_op_node.h), and
// the update is ordinary lazy in-place ops on the buffers, eager's formula:
//   running_mean = (1 - momentum) * running_mean + momentum * batch_mean
//   running_var  = (1 - momentum) * running_var  + momentum * unbiased_batch_var
// Training without running stats takes the same node, typed as eager types
// it (save_mean/save_invstd in the parameters' or the input's dtype, where
// the Meta kernel says f32); eval calls still go to LTC's kernel.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <initializer_list>

#include "ltc_backend/lazy_kernels/aten_op_node.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

using Result = std::tuple<at::Tensor, at::Tensor, at::Tensor>;
using OptionalTensor = std::optional<at::Tensor>;

struct BatchNormOp {
  c10::OperatorHandle op;
  c10::KernelFunction ltc_kernel;  // LTC's own, for the calls that update nothing
};

BatchNormOp& State() {
  static BatchNormOp* state = [] {
    c10::OperatorHandle op =
        c10::Dispatcher::singleton().findSchemaOrThrow("aten::native_batch_norm", "");
    return new BatchNormOp{op, RegisteredKernel(op, c10::DispatchKey::Lazy)};
  }();
  return *state;
}

bool Defined(const OptionalTensor& t) { return t.has_value() && t->defined(); }

// The dtype eager gives save_mean/save_invstd: the parameters' when they
// differ from the input's (bf16 input, f32 parameters), else the input's.
// torch's Meta kernel types them f32 for an f16/bf16 input whatever the
// parameters.
at::ScalarType StatisticsDtype(const at::Tensor& input,
                               std::initializer_list<const OptionalTensor*> params) {
  for (const OptionalTensor* p : params)
    if (Defined(*p) && (*p)->scalar_type() != input.scalar_type()) return (*p)->scalar_type();
  return input.scalar_type();
}

// Batch output, mean and inverse std computed by a node without running
// stats, typed as eager types them.
Result BatchStatistics(const at::Tensor& input, const OptionalTensor& weight,
                       const OptionalTensor& bias, double eps, at::ScalarType stats_dtype) {
  torch::jit::Stack stack;
  torch::jit::push(stack, input, weight, bias, c10::IValue(), c10::IValue(), /*training=*/true,
                   /*momentum (unused without running stats)=*/0.0, eps);
  if (input.dim() < 2) {
    CallAtenOpLazily(State().op, &stack);  // the Meta kernel raises eager's error
  } else {
    const std::vector<int64_t> channels = {input.size(1)};
    CallAtenOpLazilyWithShapes(
        State().op, &stack,
        {torch::lazy::Shape(input.scalar_type(), input.sizes().vec()),
         torch::lazy::Shape(stats_dtype, channels), torch::lazy::Shape(stats_dtype, channels)});
  }
  return {stack[0].toTensor(), stack[1].toTensor(), stack[2].toTensor()};
}

// A per-channel [C] tensor viewed as [1, C, 1, ...] against `input`.
at::Tensor PerChannel(const at::Tensor& stat, const at::Tensor& input) {
  std::vector<int64_t> shape(input.dim(), 1);
  shape[1] = input.size(1);
  return at::view_copy(stat, shape);  // view_copy: views of raw lazy tensors have no kernel
}

void UpdateRunningStats(const at::Tensor& input, const at::Tensor& batch_mean,
                        const OptionalTensor& running_mean, const OptionalTensor& running_var,
                        double momentum) {
  if (Defined(running_mean)) {
    at::Tensor mean = batch_mean.to(running_mean->scalar_type());
    running_mean->mul_(1.0 - momentum).add_(mean, momentum);
  }
  if (Defined(running_var)) {
    // f16/bf16: the variance in f32, as eager's accumulation.
    const bool reduced =
        input.scalar_type() == at::kBFloat16 || input.scalar_type() == at::kHalf;
    const at::Tensor x = reduced ? input.to(at::kFloat) : input;
    const at::Tensor mean = reduced ? batch_mean.to(at::kFloat) : batch_mean;
    std::vector<int64_t> reduce_dims;
    for (int64_t d = 0; d < input.dim(); ++d)
      if (d != 1) reduce_dims.push_back(d);
    int64_t count = input.numel() / input.size(1);
    at::Tensor centered = at::sub(x, PerChannel(mean, x));
    at::Tensor unbiased_var =
        at::sum(at::mul(centered, centered), reduce_dims).div(static_cast<double>(count - 1));
    running_var->mul_(1.0 - momentum).add_(unbiased_var.to(running_var->scalar_type()), momentum);
  }
}

Result WithStatisticsDtype(Result result, at::ScalarType dtype) {
  if (std::get<1>(result).scalar_type() != dtype) {
    std::get<1>(result) = std::get<1>(result).to(dtype);
    std::get<2>(result) = std::get<2>(result).to(dtype);
  }
  return result;
}

Result NativeBatchNorm(const at::Tensor& input, const OptionalTensor& weight,
                       const OptionalTensor& bias, const OptionalTensor& running_mean,
                       const OptionalTensor& running_var, bool training, double momentum,
                       double eps) {
  const at::ScalarType stats_dtype =
      StatisticsDtype(input, {&weight, &bias, &running_mean, &running_var});
  if (!training) {
    BatchNormOp& state = State();
    Result result = state.ltc_kernel.call<Result, const at::Tensor&, const OptionalTensor&,
                                          const OptionalTensor&, const OptionalTensor&,
                                          const OptionalTensor&, bool, double, double>(
        state.op, c10::DispatchKeySet(c10::DispatchKey::Lazy), input, weight, bias, running_mean,
        running_var, training, momentum, eps);
    // In evaluation eager computes no batch statistics: save_mean and
    // save_invstd are empty (LTC's have C elements).
    if (!training && Defined(running_mean) && Defined(running_var)) {
      std::get<1>(result) = at::empty({0}, std::get<1>(result).options());
      std::get<2>(result) = at::empty({0}, std::get<2>(result).options());
    }
    return WithStatisticsDtype(std::move(result), stats_dtype);
  }
  Result result = BatchStatistics(input, weight, bias, eps, stats_dtype);
  UpdateRunningStats(input, std::get<1>(result), running_mean, running_var, momentum);
  return result;
}

// The _native_batch_norm_legit family, which AOTAutograd's graphs
// (torch.compile) use instead of native_batch_norm: without kernels here
// they ran through the eager per-op fallback.
Result BatchNormLegit(const at::Tensor& input, const OptionalTensor& weight,
                      const OptionalTensor& bias, at::Tensor& running_mean,
                      at::Tensor& running_var, bool training, double momentum, double eps) {
  return NativeBatchNorm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}

Result BatchNormLegitNoStats(const at::Tensor& input, const OptionalTensor& weight,
                             const OptionalTensor& bias, bool training, double momentum,
                             double eps) {
  return NativeBatchNorm(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
}

Result BatchNormLegitNoTraining(const at::Tensor& input, const OptionalTensor& weight,
                                const OptionalTensor& bias, const at::Tensor& running_mean,
                                const at::Tensor& running_var, double momentum, double eps) {
  return NativeBatchNorm(input, weight, bias, running_mean, running_var, /*training=*/false,
                         momentum, eps);
}

// The functional variant returns the updated running statistics instead of
// writing them: the update runs on copies.
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> BatchNormLegitFunctional(
    const at::Tensor& input, const OptionalTensor& weight, const OptionalTensor& bias,
    const at::Tensor& running_mean, const at::Tensor& running_var, bool training,
    double momentum, double eps) {
  at::Tensor new_mean = at::clone(running_mean);
  at::Tensor new_var = at::clone(running_var);
  Result r = NativeBatchNorm(input, weight, bias, new_mean, new_var, training, momentum, eps);
  return {std::get<0>(r), std::get<1>(r), std::get<2>(r), new_mean, new_var};
}

}  // namespace

void RegisterBatchNormKernel() {
  TORCH_CHECK(State().ltc_kernel.isValid(),
              "ltc_mlir: LTC's native_batch_norm kernel must be registered first");
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;  // we override LTC's kernel on purpose
  lib->impl("native_batch_norm", TORCH_FN(NativeBatchNorm));
  lib->impl("_native_batch_norm_legit", TORCH_FN(BatchNormLegit));
  lib->impl("_native_batch_norm_legit.no_stats", TORCH_FN(BatchNormLegitNoStats));
  lib->impl("_native_batch_norm_legit_no_training", TORCH_FN(BatchNormLegitNoTraining));
  lib->impl("_native_batch_norm_legit_functional", TORCH_FN(BatchNormLegitFunctional));
}

}  // namespace backend
}  // namespace ltc_mlir
