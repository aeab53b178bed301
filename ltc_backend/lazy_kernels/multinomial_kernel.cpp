// torch.multinomial on the lazy device as lowered lazy ops; torch's LTC has
// no Lazy kernel for it, so sampling (e.g. a decoder's next token) ran
// eagerly.
//
// The algorithms are eager's, drawn from the lazy device's counter-based
// generator (eager's distribution, not its stream):
//  - without replacement (or one sample): the indices of the n largest
//    p / q with q ~ Exp(1) (topk; argmax for one sample), the exponential
//    race equivalent to Gumbel-top-k;
//  - with replacement: the first category whose normalized cumulative
//    probability reaches u ~ U[0, 1) (searchsorted on the cumsum).
// Eager's checks of the probabilities are data-dependent: one sync reads
// them, and the messages are eager's for each path. A call with an explicit
// generator keeps the eager path (its stream can only be drawn eagerly).
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// Reads [any negative, any inf/NaN, any row summing to <= 0] in one sync.
std::array<bool, 3> ProbabilityFlags(const at::Tensor& rows) {
  at::Tensor flags = at::stack({at::any(at::lt(rows, 0)),
                                at::any(at::logical_not(at::isfinite(rows))),
                                at::any(at::le(at::sum(rows, -1), 0))})
                         .cpu();
  return {flags[0].item<bool>(), flags[1].item<bool>(), flags[2].item<bool>()};
}

// multinomial(self, num_samples, replacement, generator)
void Multinomial(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  int64_t samples = BoxedArgument(op, *stack, 1).toInt();
  bool replacement = BoxedArgument(op, *stack, 2).toBool();
  const c10::IValue& generator = BoxedArgument(op, *stack, 3);
  if (generator.isGenerator() && generator.toGenerator().defined())
    return RunEagerFallback(op, stack);
  TORCH_CHECK(self.dim() > 0 && self.dim() <= 2, "prob_dist must be 1 or 2 dim");
  TORCH_CHECK(at::isFloatingType(self.scalar_type()),
              "multinomial only supports floating-point dtypes for input, got: ",
              self.scalar_type());
  TORCH_CHECK(samples > 0, "cannot sample n_sample <= 0 samples");
  int64_t categories = self.size(-1);
  TORCH_CHECK(replacement || samples <= categories,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  TORCH_CHECK(categories <= (int64_t{1} << 24), "number of categories cannot exceed 2^24");
  std::vector<int64_t> shape{samples};
  if (self.dim() == 2) shape.insert(shape.begin(), self.size(0));
  if (self.numel() == 0) return ReturnBoxed(op, stack, at::empty(shape, self.options().dtype(at::kLong)));
  at::Tensor rows = self.dim() == 1 ? at::unsqueeze_copy(self, 0) : self;
  std::array<bool, 3> bad = ProbabilityFlags(rows);
  at::Tensor result;
  if (!replacement || samples == 1) {
    TORCH_CHECK(!bad[0] && !bad[1], "probability tensor contains either `inf`, `nan` or element < 0");
    TORCH_CHECK(!bad[2], "invalid multinomial distribution (sum of probabilities <= 0)");
    at::Tensor race = at::div(rows, at::exponential(at::empty_like(rows), 1.0, std::nullopt));
    result = samples == 1 ? at::argmax(race, -1, /*keepdim=*/true)
                          : std::get<1>(at::topk(race, samples, -1));
  } else {
    TORCH_CHECK(!bad[0], "invalid multinomial distribution (encountering probability entry < 0)");
    TORCH_CHECK(!bad[1],
                "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
    TORCH_CHECK(!bad[2], "invalid multinomial distribution (sum of probabilities <= 0)");
    // The normalized cumulative sum, its last entry set to 1 as eager's.
    at::Tensor cumulative = at::div(at::cumsum(rows, -1), at::sum(rows, -1, /*keepdim=*/true));
    cumulative = at::cat({at::slice_copy(cumulative, -1, 0, categories - 1),
                          at::ones({rows.size(0), 1}, rows.options())}, -1);
    at::Tensor u = at::uniform(at::empty({rows.size(0), samples}, rows.options()), 0.0, 1.0,
                               std::nullopt);
    result = at::searchsorted(cumulative, u);
  }
  ReturnBoxed(op, stack, at::view_copy(result, shape));
}

}  // namespace

void RegisterMultinomialKernel() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("multinomial", torch::CppFunction::makeFromBoxedFunction<&Multinomial>());
}

}  // namespace backend
}  // namespace ltc_mlir
