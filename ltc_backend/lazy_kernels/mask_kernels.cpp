// Boolean masks on the lazy device: nonzero, masked_select, masked_scatter_
// and x[mask] / x[mask] = v in the lazy graph.
//
// How many elements a mask selects is data: the result shape of nonzero and
// masked_select depends on it, so these ran through the eager fallback,
// which copies their operands to the CPU and cuts the graph. Here one sync
// reads just the count (mask.sum(), a native graph); with it known, the
// result is built from static-shaped lazy ops that compile:
//   position of each selected element = cumsum(mask) - 1 (others go to a
//   spare slot n), scatter of the flat element indices (nonzero) or the
//   values (masked_select) into n + 1 slots, the spare slot dropped.
// masked_scatter_ needs no count: selected element i takes
// source.flatten()[cumsum(mask)[i] - 1] (a gather), the others keep self.
// Index masks become the integer index tensors of their nonzero(), as
// ATen's own index/index_put do (indexing_kernels.cpp calls
// ReplaceMaskIndices). Eager's argument errors are kept.
// unique_consecutive is the same shape problem: a group starts where an
// element (a slice along dim) differs from the previous one; one sync reads
// the group count, the group starts are scattered to their ranks, and the
// output gathers them (index_select); inverse = cumsum(starts) - 1, counts
// are the distances between starts. Empty inputs keep the eager path.
// torch.unique(sorted=True) without dim is the same on the sorted values.
// masked_fill: eager's out-of-place result has the broadcast shape of self
// and mask (nn.MultiheadAttention merges a [1, L, S] attention mask with a
// [B*heads, 1, S] padding mask so), torch's lazy shape is self's; self
// is expanded first, then LTC's kernel runs.
#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <torch/csrc/lazy/core/tensor.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// Inside a Lazy kernel (below functionalization) views are the _copy ops.
at::Tensor Flat(const at::Tensor& t) { return at::view_copy(t, {t.numel()}); }

at::TensorOptions LongOn(const at::Tensor& like) {
  return like.options().dtype(at::kLong);
}

void CheckMaskDtype(const at::Tensor& mask, const char* op) {
  TORCH_CHECK(mask.scalar_type() == at::kByte || mask.scalar_type() == at::kBool, op,
              ": expected BoolTensor or ByteTensor for mask");
  if (mask.scalar_type() == at::kByte)
    TORCH_WARN(op, " received a mask with dtype torch.uint8, this behavior is now deprecated,"
               "please use a mask with dtype torch.bool instead.");
}

// Where each element of the flat bool `mask` goes among n + 1 slots: its
// rank among the selected elements, or the spare slot n.
at::Tensor SlotOfEach(const at::Tensor& mask, int64_t n) {
  at::Tensor rank = at::cumsum(mask, 0, at::kLong) - 1;
  return at::where(mask, rank, at::full({}, n, LongOn(mask)));
}

// The values of flat `values` at the selected elements of flat `mask`
// (same length), in order: n of them.
at::Tensor Compact(const at::Tensor& values, const at::Tensor& mask, int64_t n) {
  at::Tensor slots = at::zeros({n + 1}, values.options());
  return at::slice_copy(at::scatter(slots, 0, SlotOfEach(mask, n), values), 0, 0, n);
}

// mask.sum() read back: the one sync.
int64_t CountSelected(const at::Tensor& flatMask) {
  return at::sum(flatMask, at::kLong).item<int64_t>();
}

at::Tensor Nonzero(const at::Tensor& self) {
  at::Tensor flat = Flat(self.scalar_type() == at::kBool ? self : at::ne(self, 0));
  int64_t n = self.numel() == 0 ? 0 : CountSelected(flat);
  if (self.dim() == 0 || n == 0) return at::zeros({n, self.dim()}, LongOn(self));
  at::Tensor flatIndex = Compact(at::arange(self.numel(), LongOn(self)), flat, n);
  // Row-major unravel: column d = (flat / stride_d) % size_d.
  std::vector<at::Tensor> columns;
  int64_t stride = 1;
  for (int64_t d = self.dim() - 1; d >= 0; --d) {
    columns.push_back(at::remainder(at::floor_divide(flatIndex, stride), self.size(d)));
    stride *= self.size(d);
  }
  std::reverse(columns.begin(), columns.end());
  return at::stack(columns, 1);
}

at::Tensor MaskedSelect(const at::Tensor& self, const at::Tensor& mask) {
  CheckMaskDtype(mask, "masked_select");
  std::vector<int64_t> shape = at::infer_size(self.sizes(), mask.sizes());
  at::Tensor values = Flat(at::expand_copy(self, shape));
  at::Tensor flat = Flat(at::expand_copy(mask.to(at::kBool), shape));
  int64_t n = flat.numel() == 0 ? 0 : CountSelected(flat);
  if (n == 0) return at::empty({0}, self.options());
  return Compact(values, flat, n);
}

at::Tensor& MaskedScatter_(at::Tensor& self, const at::Tensor& mask, const at::Tensor& source) {
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "masked_scatter: expected self and source to have same dtypes but got",
              self.scalar_type(), " and ", source.scalar_type());
  CheckMaskDtype(mask, "masked_scatter");
  TORCH_CHECK(at::is_expandable_to(mask.sizes(), self.sizes()), "The size of the mask ",
              mask.sizes(), " must be broadcastable to the size of self ", self.sizes());
  if (self.numel() == 0) return self;
  at::Tensor flat = Flat(at::expand_copy(mask.to(at::kBool), self.sizes()));
  if (source.numel() < flat.numel())
    // Only then can the mask select more elements than source has: eager's
    // error needs the count (a sync); otherwise every gather is in range.
    TORCH_CHECK(CountSelected(flat) <= source.numel(),
                "Number of elements of source < number of ones in mask");
  at::Tensor rank = at::clamp_min(at::cumsum(flat, 0, at::kLong) - 1, 0);
  rank = at::clamp_max(rank, std::max<int64_t>(source.numel() - 1, 0));
  at::Tensor picked = source.numel() == 0
                          ? Flat(at::zeros_like(self))
                          : at::index_select(Flat(source), 0, rank);
  AssignLazyValue(self, at::view_copy(at::where(flat, picked, Flat(self)), self.sizes()));
  return self;
}

void NonzeroBoxed(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = (*stack)[stack->size() - 1].toTensor();
  torch::jit::drop(*stack, 1);
  torch::jit::push(*stack, Nonzero(self));
}

void MaskedSelectBoxed(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = (*stack)[stack->size() - 2].toTensor();
  at::Tensor mask = (*stack)[stack->size() - 1].toTensor();
  torch::jit::drop(*stack, 2);
  torch::jit::push(*stack, MaskedSelect(self, mask));
}

void MaskedScatterBoxed(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = (*stack)[stack->size() - 3].toTensor();
  at::Tensor mask = (*stack)[stack->size() - 2].toTensor();
  at::Tensor source = (*stack)[stack->size() - 1].toTensor();
  MaskedScatter_(self, mask, source);
  torch::jit::drop(*stack, 3);
  torch::jit::push(*stack, self);
}

// masked_scatter (functionalization's form of masked_scatter_): on a copy
// of self broadcast with the mask, as ATen's composite does.
void MaskedScatterOutOfPlaceBoxed(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = (*stack)[stack->size() - 3].toTensor();
  at::Tensor mask = (*stack)[stack->size() - 2].toTensor();
  at::Tensor source = (*stack)[stack->size() - 1].toTensor();
  std::vector<int64_t> shape = at::infer_size(self.sizes(), mask.sizes());
  at::Tensor result = at::clone(at::expand_copy(self, shape));
  MaskedScatter_(result, mask, source);
  torch::jit::drop(*stack, 3);
  torch::jit::push(*stack, result);
}

// The runs of equal elements (slices along dim) of x: the first of each run
// (output), each element's run (rank) and each run's length (counts).
struct Runs {
  at::Tensor output, rank, counts;
};

Runs ConsecutiveRuns(const at::Tensor& x, int64_t dim, bool returnCounts) {
  int64_t n = x.size(dim);
  at::Tensor first = at::ones({1}, LongOn(x).dtype(at::kBool));
  at::Tensor starts = first;
  if (n > 1) {
    at::Tensor differs = at::ne(at::slice_copy(x, dim, 1, n), at::slice_copy(x, dim, 0, n - 1));
    std::vector<int64_t> others;
    for (int64_t d = 0; d < x.dim(); ++d)
      if (d != dim) others.push_back(d);
    if (!others.empty()) differs = at::gt(at::sum(differs, others), 0);
    starts = at::cat({first, differs});
  }
  Runs runs;
  runs.rank = at::sub(at::cumsum(starts, 0, at::kLong), 1);
  int64_t groups = CountSelected(starts);  // the one sync
  // Group g's first position: scattered to slot g (other positions to the spare slot).
  at::Tensor slot = at::where(starts, runs.rank, at::full_like(runs.rank, groups));
  at::Tensor positions = at::slice_copy(
      at::scatter(at::zeros({groups + 1}, LongOn(x)), 0, slot, at::arange(n, LongOn(x))), 0, 0,
      groups);
  runs.output = at::index_select(x, dim, positions);
  runs.counts = at::empty({0}, LongOn(x));
  if (returnCounts) {
    at::Tensor ends = at::cat({at::slice_copy(positions, 0, 1, groups), at::full({1}, n, LongOn(x))});
    runs.counts = at::sub(ends, positions);
  }
  return runs;
}

// unique_consecutive(self, return_inverse, return_counts, dim)
void UniqueConsecutiveBoxed(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  bool returnInverse = BoxedArgument(op, *stack, 1).toBool();
  bool returnCounts = BoxedArgument(op, *stack, 2).toBool();
  const c10::IValue& dimArg = BoxedArgument(op, *stack, 3);
  bool flat = dimArg.isNone();
  if (self.numel() == 0 || (!flat && self.dim() == 0)) return RunEagerFallback(op, stack);
  at::Tensor x = flat ? Flat(self) : self;
  int64_t dim = flat ? 0 : c10::maybe_wrap_dim(dimArg.toInt(), self.dim());
  Runs runs = ConsecutiveRuns(x, dim, returnCounts);
  at::Tensor inverse = at::empty({0}, LongOn(x));
  if (returnInverse) inverse = flat ? at::view_copy(runs.rank, self.sizes()) : runs.rank;
  torch::jit::drop(*stack, op.schema().arguments().size());
  torch::jit::push(*stack, runs.output, inverse, runs.counts);
}

// _unique2(self, sorted, return_inverse, return_counts) (torch.unique
// without dim): with sorted=True, the runs of the sorted values; an
// element's inverse is its sorted position's run. sorted=False keeps eager's
// kernel: its order is that of its hash set, which only it reproduces.
void Unique2Boxed(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  bool sorted = BoxedArgument(op, *stack, 1).toBool();
  bool returnInverse = BoxedArgument(op, *stack, 2).toBool();
  bool returnCounts = BoxedArgument(op, *stack, 3).toBool();
  // Eager's CPU kernel has no f16/bf16 version: the fallback raises its error.
  if (!sorted || self.numel() == 0 || self.scalar_type() == at::kHalf ||
      self.scalar_type() == at::kBFloat16)
    return RunEagerFallback(op, stack);
  const bool isBool = self.scalar_type() == at::kBool;
  at::Tensor flat = Flat(isBool ? self.to(at::kByte) : self);
  at::Tensor values, order;
  std::tie(values, order) = at::sort(flat, /*stable=*/true, 0, /*descending=*/false);
  Runs runs = ConsecutiveRuns(values, 0, returnCounts);
  at::Tensor inverse = at::empty({0}, LongOn(self));
  if (returnInverse)
    inverse = at::view_copy(at::scatter(at::zeros_like(runs.rank), 0, order, runs.rank),
                            self.sizes());
  at::Tensor output = isBool ? runs.output.to(at::kBool) : runs.output;
  torch::jit::drop(*stack, op.schema().arguments().size());
  torch::jit::push(*stack, output, inverse, runs.counts);
}

}  // namespace

c10::IValue ReplaceMaskIndices(const at::Tensor& self, const c10::IValue& indices) {
  c10::List<std::optional<at::Tensor>> replaced;
  int64_t dim = 0;  // the dim of self the next index applies to
  for (const c10::IValue& e : indices.toListRef()) {
    if (!e.isTensor() || !e.toTensor().defined()) {
      replaced.push_back(std::nullopt);
      ++dim;
      continue;
    }
    const at::Tensor& index = e.toTensor();
    if (index.scalar_type() != at::kBool && index.scalar_type() != at::kByte) {
      replaced.push_back(index);
      ++dim;
      continue;
    }
    if (index.scalar_type() == at::kByte)
      TORCH_WARN("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                 "torch.bool instead.");
    for (int64_t j = 0; j < index.dim(); ++j) {
      int64_t k = dim + j;
      TORCH_CHECK_INDEX(k < self.dim() && index.size(j) == self.size(k), "The shape of the mask ",
                        index.sizes(), " at index ", j,
                        " does not match the shape of the indexed tensor ", self.sizes(),
                        " at index ", k);
    }
    at::Tensor positions = Nonzero(index.to(at::kBool));
    for (int64_t j = 0; j < index.dim(); ++j) replaced.push_back(at::select_copy(positions, 1, j));
    dim += index.dim();
  }
  return replaced;
}

// masked_fill.Scalar / .Tensor (self, mask, value) at the Lazy key.
class BroadcastingMaskedFill final : public c10::OperatorKernel {
 public:
  explicit BroadcastingMaskedFill(c10::KernelFunction inner) : inner_(std::move(inner)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    c10::IValue& self = (*stack)[stack->size() - 3];
    const c10::IValue& mask = (*stack)[stack->size() - 2];
    if (self.isTensor() && mask.isTensor()) {
      const at::Tensor& t = self.toTensor();
      std::vector<int64_t> shape = at::infer_size(t.sizes(), mask.toTensor().sizes());
      if (!t.sizes().equals(shape)) self = at::expand_copy(t, shape);
    }
    inner_.callBoxed(op, keys, stack);
  }

 private:
  c10::KernelFunction inner_;
};

void RegisterMaskKernels() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("nonzero", torch::CppFunction::makeFromBoxedFunction<&NonzeroBoxed>());
  lib->impl("masked_select", torch::CppFunction::makeFromBoxedFunction<&MaskedSelectBoxed>());
  lib->impl("masked_scatter_", torch::CppFunction::makeFromBoxedFunction<&MaskedScatterBoxed>());
  lib->impl("masked_scatter",
            torch::CppFunction::makeFromBoxedFunction<&MaskedScatterOutOfPlaceBoxed>());
  lib->impl("unique_consecutive",
            torch::CppFunction::makeFromBoxedFunction<&UniqueConsecutiveBoxed>());
  lib->impl("_unique2", torch::CppFunction::makeFromBoxedFunction<&Unique2Boxed>());
  for (const char* overload : {"Scalar", "Tensor"}) {
    c10::OperatorHandle op =
        c10::Dispatcher::singleton().findSchemaOrThrow("aten::masked_fill", overload);
    c10::KernelFunction ltc = RegisteredKernel(op, c10::DispatchKey::Lazy);
    if (!ltc.isValid()) continue;
    lib->impl((std::string("masked_fill.") + overload).c_str(),
              torch::CppFunction::makeFromBoxedFunctor(
                  std::make_unique<BroadcastingMaskedFill>(std::move(ltc))));
  }
}

}  // namespace backend
}  // namespace ltc_mlir
