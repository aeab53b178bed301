// Searching and counting ops with no Lazy kernel in torch's LTC, recorded as
// a few lowered lazy ops so they stay in the graph (they ran through the
// eager fallback, which copies the operands to the CPU and cuts the graph):
//  - count_nonzero(dims): sum of self != 0.
//  - isin: every element compared with every test element (eq, any), the
//    brute force eager itself uses for small test sets; exact.
//  - searchsorted / bucketize: the insertion point is how many boundaries
//    come before the value, counted with eager's own comparisons
//    (!(b >= v) for the left side, !(b > v) for the right), so NaN values
//    land where eager's binary search puts them.
//  - repeat_interleave(repeats): one sync reads the total and checks the
//    repeats; then each output slot's source index is a prefix count of
//    the segment starts (scatter_add of ones, cumsum).
//  - index_reduce: scatter_reduce with the index broadcast along `dim`.
//  - renorm: per-slice p-norms, ATen's scale factor
//    (maxnorm / (norm + 1e-7) where norm > maxnorm).
//  - histc: eager's bin of each element, trunc((x - min) * bins / (max - min))
//    in the input dtype with min, max and max - min rounded to it as
//    eager's edges are (its rightmost bin closed, NaN and out-of-range
//    elements skipped), counted by scatter_add. min == max takes the data's
//    range: one sync reads it, as eager does.
//  - histogram (bin count or edges tensor): the bin of an element is the
//    number of edges <= it, minus one (eager's binary search; the last bin
//    closed), counted or weighted by scatter_add; density divides by the
//    total and the bin widths. Bin-count edges are linspace over the range
//    (the data's, one sync, when none is given).
//  - bincount: one sync reads the data's range (its largest value sizes the
//    result, a negative one raises eager's error), then a scatter_add of
//    ones, or of the weights in eager's result dtype (f32 weights stay f32,
//    others become f64), in element order as eager adds them.
// Argument errors are eager's: shapes run through Meta kernels, or cases
// outside what is handled here take the eager fallback. The brute-force
// comparisons are bounded (kMaxPairs); larger calls take the fallback too.
#include <ATen/ATen.h>
#include <ATen/AccumulateType.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// At most this many element pairs compared by isin/searchsorted in a graph.
constexpr int64_t kMaxPairs = int64_t{1} << 26;

at::Tensor Flat(const at::Tensor& t) { return at::view_copy(t, {t.numel()}); }

void CountNonzero(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  std::vector<int64_t> dims = BoxedArgument(op, *stack, 1).toIntVector();
  ReturnBoxed(op, stack, at::sum(at::ne(self, 0), dims));
}

// isin.Tensor_Tensor(elements, test_elements, assume_unique, invert)
void IsinTensorTensor(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor elements = BoxedArgument(op, *stack, 0).toTensor();
  at::Tensor test = BoxedArgument(op, *stack, 1).toTensor();
  bool invert = BoxedArgument(op, *stack, 3).toBool();
  at::isin(MetaLike(elements), MetaLike(test), false, invert);  // eager's checks
  if (elements.numel() * std::max<int64_t>(test.numel(), 1) > kMaxPairs)
    return RunEagerFallback(op, stack);
  at::Tensor found =
      at::any(at::eq(at::unsqueeze_copy(elements, -1), Flat(test)), -1);
  ReturnBoxed(op, stack, invert ? at::logical_not(found) : found);
}

// The count of boundaries (last dim of `sorted`) before each value.
at::Tensor InsertionPoints(const at::Tensor& sorted, const at::Tensor& values, bool right,
                           bool int32) {
  // [..., n, 1] against [..., 1, m] (1-D boundaries broadcast).
  at::Tensor v = at::unsqueeze_copy(values, -1);
  at::Tensor b = sorted.dim() == 1 ? sorted : at::unsqueeze_copy(sorted, -2);
  at::Tensor before = right ? at::logical_not(at::gt(b, v)) : at::logical_not(at::ge(b, v));
  return at::sum(before, {-1}, false, int32 ? at::kInt : at::kLong);
}

// searchsorted.Tensor(sorted_sequence, self, out_int32, right, side, sorter)
void SearchSorted(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor sorted = BoxedArgument(op, *stack, 0).toTensor();
  at::Tensor values = BoxedArgument(op, *stack, 1).toTensor();
  bool int32 = BoxedArgument(op, *stack, 2).toBool();
  bool right = BoxedArgument(op, *stack, 3).toBool();
  const c10::IValue& side = BoxedArgument(op, *stack, 4);
  const c10::IValue& sorter = BoxedArgument(op, *stack, 5);
  bool hasSorter = sorter.isTensor() && sorter.toTensor().defined();
  bool sameBatch = sorted.dim() >= 1 && sorted.dim() == values.dim() &&
                   sorted.sizes().slice(0, sorted.dim() - 1).equals(
                       values.sizes().slice(0, values.dim() - 1));
  bool handled = sorted.scalar_type() == values.scalar_type() && sorted.dim() >= 1 &&
                 (sorted.dim() == 1 || sameBatch) &&
                 (!hasSorter || (sorter.toTensor().scalar_type() == at::kLong &&
                                 sorter.toTensor().sizes().equals(sorted.sizes()))) &&
                 values.numel() * sorted.size(-1) <= kMaxPairs;
  if (side.isString()) {
    std::string s = side.toStringRef();
    handled = handled && (s == "left" || s == "right") && (s == "right") >= right;
    right = s == "right";
  }
  // Anything else (mismatched shapes or dtypes: eager's errors or type
  // promotion) runs eagerly.
  if (!handled) return RunEagerFallback(op, stack);
  // The sorter's order: the boundaries eager's search reads, in turn.
  if (hasSorter) sorted = at::gather(sorted, -1, sorter.toTensor());
  ReturnBoxed(op, stack, InsertionPoints(sorted, values, right, int32));
}

// bucketize.Tensor(self, boundaries, out_int32, right)
void Bucketize(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor values = BoxedArgument(op, *stack, 0).toTensor();
  at::Tensor boundaries = BoxedArgument(op, *stack, 1).toTensor();
  bool handled = boundaries.dim() == 1 &&
                 boundaries.scalar_type() == values.scalar_type() &&
                 values.numel() * boundaries.numel() <= kMaxPairs;
  if (!handled) return RunEagerFallback(op, stack);
  ReturnBoxed(op, stack,
         InsertionPoints(boundaries, values, BoxedArgument(op, *stack, 3).toBool(),
                         BoxedArgument(op, *stack, 2).toBool()));
}

// repeat_interleave.Tensor(repeats, output_size): the source index of each
// output element.
void RepeatInterleaveIndices(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor repeats = BoxedArgument(op, *stack, 0).toTensor();
  if (repeats.dim() != 1 || repeats.numel() == 0 ||
      (repeats.scalar_type() != at::kLong && repeats.scalar_type() != at::kInt))
    return RunEagerFallback(op, stack);  // eager's errors, or its empty result
  at::Tensor counts = repeats.to(at::kLong);
  // One sync: the total (the result's size) and the smallest repeat.
  at::Tensor summary = at::stack({at::sum(counts), at::amin(counts)}).cpu();
  int64_t total = summary[0].item<int64_t>();
  TORCH_CHECK(summary[1].item<int64_t>() >= 0, "repeats can not be negative");
  const c10::IValue& outputSize = BoxedArgument(op, *stack, 1);
  if (outputSize.isInt())
    TORCH_CHECK(outputSize.toInt() == total, "allocated size does not match required size");
  if (total == 0) return ReturnBoxed(op, stack, at::empty({0}, repeats.options()));
  at::Tensor starts = at::cumsum(counts, 0) - counts;
  at::Tensor marks = at::scatter_add(at::zeros({total + 1}, counts.options()), 0, starts,
                                     at::ones_like(counts));
  at::Tensor index = at::slice_copy(at::cumsum(marks, 0), 0, 0, total) - 1;
  ReturnBoxed(op, stack, index.to(repeats.scalar_type()));
}

// index_reduce(self, dim, index, source, reduce, include_self)
void IndexReduce(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  int64_t dim = BoxedArgument(op, *stack, 1).toInt();
  at::Tensor index = BoxedArgument(op, *stack, 2).toTensor();
  at::Tensor source = BoxedArgument(op, *stack, 3).toTensor();
  std::string reduce = BoxedArgument(op, *stack, 4).toStringRef();
  bool includeSelf = BoxedArgument(op, *stack, 5).toBool();
  at::index_reduce(MetaLike(self), dim, MetaLike(index), MetaLike(source), reduce, includeSelf);
  // 0-dim self and source act as one-element vectors.
  std::vector<int64_t> selfShape = self.sizes().vec();
  if (self.dim() == 0) self = at::view_copy(self, {1});
  if (source.dim() == 0) source = at::view_copy(source, {1});
  dim = c10::maybe_wrap_dim(dim, source.dim());
  std::vector<int64_t> shape(source.dim(), 1);
  shape[dim] = index.numel();
  // Gathering the indices from arange(size) gives them back behind
  // index_select's bounds check: an index out of range raises eager's
  // IndexError ("index out of range in self"), not scatter's RuntimeError.
  at::Tensor checked = at::index_select(
      at::arange(self.size(dim), index.options().dtype(at::kLong)), 0, at::view_copy(index, {-1}));
  at::Tensor expanded = at::expand_copy(at::view_copy(checked, shape), source.sizes());
  at::Tensor result = at::scatter_reduce(self, dim, expanded, source, reduce, includeSelf);
  ReturnBoxed(op, stack, at::view_copy(result, selfShape));
}

// renorm(self, p, dim, maxnorm)
void Renorm(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  at::Scalar p = BoxedArgument(op, *stack, 1).toScalar();
  int64_t dim = BoxedArgument(op, *stack, 2).toInt();
  at::Scalar maxnorm = BoxedArgument(op, *stack, 3).toScalar();
  at::renorm(MetaLike(self), p, dim, maxnorm);  // eager's checks
  if (!at::isFloatingType(self.scalar_type()) || self.dim() == 0)
    return RunEagerFallback(op, stack);
  dim = c10::maybe_wrap_dim(dim, self.dim());
  std::vector<int64_t> reduceDims;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != dim) reduceDims.push_back(d);
  at::ScalarType acc = at::toAccumulateType(self.scalar_type(), /*is_cpu=*/true);
  at::Tensor norm = at::linalg_vector_norm(self, p, reduceDims, /*keepdim=*/true, acc);
  double limit = maxnorm.toDouble();
  at::Tensor factor = at::where(at::gt(norm, limit),
                                at::div(at::full_like(norm, limit), at::add(norm, 1e-7)),
                                at::ones_like(norm));
  ReturnBoxed(op, stack, at::mul(self, factor.to(self.scalar_type())));
}

// The smallest and largest element of a non-empty self, read with one sync
// (eager reads them with two .item() calls).
std::pair<double, double> DataRange(const at::Tensor& self) {
  auto extrema = at::aminmax(self);
  at::Tensor range = at::stack({std::get<0>(extrema), std::get<1>(extrema)}).cpu();
  return {range[0].item<double>(), range[1].item<double>()};
}

// A double rounded to `type` (and back), as eager's edges are stored.
double RoundedTo(double value, at::ScalarType type) {
  return at::scalar_tensor(value, at::TensorOptions().dtype(type)).item<double>();
}

// histc(self, bins, min, max)
void Histc(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  int64_t bins = BoxedArgument(op, *stack, 1).toInt();
  double lo = BoxedArgument(op, *stack, 2).toScalar().toDouble();
  double hi = BoxedArgument(op, *stack, 3).toScalar().toDouble();
  at::ScalarType type = self.scalar_type();
  if (!at::isFloatingType(type)) return RunEagerFallback(op, stack);  // eager's dtype error
  TORCH_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins,
              " for dimension 0");
  if (lo == hi && self.numel() > 0) std::tie(lo, hi) = DataRange(self);
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TORCH_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi,
              "] is not finite");
  TORCH_CHECK(lo < hi, "torch.histc: max must be larger than min");
  if (self.numel() == 0) return ReturnBoxed(op, stack, at::zeros({bins}, self.options()));
  double left = RoundedTo(lo, type), right = RoundedTo(hi, type);
  double width = (at::scalar_tensor(right, at::TensorOptions().dtype(type)) -
                  at::scalar_tensor(left, at::TensorOptions().dtype(type))).item<double>();
  at::Tensor x = Flat(self);
  at::Tensor inRange = at::logical_and(at::ge(x, left), at::le(x, right));
  at::Tensor scaled = at::div(at::mul(at::sub(x, left), bins), width);
  at::Tensor bin = at::where(inRange, scaled, at::zeros_like(scaled)).to(at::kLong);
  // Skipped elements count in an extra last bin, dropped after.
  bin = at::where(inRange, at::clamp_max(bin, bins - 1), at::full_like(bin, bins));
  at::Tensor counts = at::scatter_add(at::zeros({bins + 1}, bin.options()), 0, bin,
                                      at::ones_like(bin));
  ReturnBoxed(op, stack, at::slice_copy(counts, 0, 0, bins).to(type));
}

// Counts (or weights) of the elements of `self` in the bins of the 1-D
// `edges`, eager's histogram.
at::Tensor BinnedCounts(const at::Tensor& self, const at::Tensor& edges,
                        const at::Tensor& weight, bool density) {
  int64_t bins = edges.numel() - 1;
  at::Tensor x = Flat(self);
  at::Tensor first = at::slice_copy(edges, 0, 0, 1), last = at::slice_copy(edges, 0, bins, bins + 1);
  at::Tensor inside = at::logical_and(at::ge(x, first), at::le(x, last));
  at::Tensor bin = at::sub(InsertionPoints(edges, x, /*right=*/true, false), 1);
  bin = at::where(inside, at::clamp(bin, 0, bins - 1), at::full_like(bin, bins));
  at::Tensor amounts = weight.defined() ? Flat(weight) : at::ones_like(x);
  at::Tensor hist = at::slice_copy(
      at::scatter_add(at::zeros({bins + 1}, self.options()), 0, bin, amounts), 0, 0, bins);
  if (!density) return hist;
  at::Tensor widths = at::sub(at::slice_copy(edges, 0, 1, bins + 1), at::slice_copy(edges, 0, 0, bins));
  return at::div(at::div(hist, at::sum(hist)), widths);
}

bool HistogramHandled(const at::Tensor& self, const at::Tensor& weight, int64_t edges) {
  return at::isFloatingType(self.scalar_type()) && edges >= 2 &&
         (!weight.defined() || (weight.scalar_type() == self.scalar_type() &&
                                weight.sizes().equals(self.sizes()))) &&
         self.numel() * edges <= kMaxPairs;
}

void ReturnHistogram(const c10::OperatorHandle& op, torch::jit::Stack* stack, at::Tensor hist,
                     at::Tensor edges) {
  torch::jit::drop(*stack, op.schema().arguments().size());
  torch::jit::push(*stack, std::move(hist), std::move(edges));
}

// histogram.bins_tensor(self, bins, *, weight, density)
void HistogramEdges(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  at::Tensor edges = BoxedArgument(op, *stack, 1).toTensor();
  at::Tensor weight = OptionalTensorArgument(BoxedArgument(op, *stack, 2));
  bool density = BoxedArgument(op, *stack, 3).toBool();
  if (edges.dim() != 1 || edges.scalar_type() != self.scalar_type() ||
      !HistogramHandled(self, weight, edges.numel()))
    return RunEagerFallback(op, stack);  // eager's result or error
  ReturnHistogram(op, stack, BinnedCounts(self, edges, weight, density), edges.clone());
}

// histogram.bin_ct(self, bins, *, range, weight, density)
void HistogramBinCount(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  int64_t bins = BoxedArgument(op, *stack, 1).toInt();
  const c10::IValue& rangeArg = BoxedArgument(op, *stack, 2);
  at::Tensor weight = OptionalTensorArgument(BoxedArgument(op, *stack, 3));
  bool density = BoxedArgument(op, *stack, 4).toBool();
  if (bins <= 0 || !HistogramHandled(self, weight, bins + 1)) return RunEagerFallback(op, stack);
  double lo = 0.0, hi = 1.0;  // numpy's default range of an empty input
  if (!rangeArg.isNone()) {
    std::vector<double> range = rangeArg.toDoubleVector();
    if (range.size() != 2) return RunEagerFallback(op, stack);
    lo = range[0], hi = range[1];
  } else if (self.numel() > 0) {
    std::tie(lo, hi) = DataRange(self);
  }
  if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) return RunEagerFallback(op, stack);
  if (lo == hi) lo -= 0.5, hi += 0.5;
  at::Tensor edges = at::linspace(lo, hi, bins + 1, self.options());
  ReturnHistogram(op, stack, BinnedCounts(self, edges, weight, density), edges);
}

// bincount(self, weights, minlength)
void Bincount(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  at::Tensor weights = OptionalTensorArgument(BoxedArgument(op, *stack, 1));
  int64_t minlength = BoxedArgument(op, *stack, 2).toInt();
  if (self.dim() != 1 || !at::isIntegralType(self.scalar_type(), /*includeBool=*/false) ||
      minlength < 0 || (weights.defined() && !weights.sizes().equals(self.sizes())))
    return RunEagerFallback(op, stack);  // eager's errors
  if (self.numel() == 0)  // eager: int64 zeros, with or without weights
    return ReturnBoxed(op, stack, at::zeros({minlength}, self.options().dtype(at::kLong)));
  double lo, hi;
  std::tie(lo, hi) = DataRange(self);
  TORCH_CHECK(lo >= 0, "bincount only supports 1-d non-negative integral inputs.");
  int64_t size = std::max(static_cast<int64_t>(hi) + 1, minlength);
  at::ScalarType type = !weights.defined()                    ? at::kLong
                        : weights.scalar_type() == at::kFloat ? at::kFloat
                                                              : at::kDouble;
  at::Tensor amounts = weights.defined() ? weights.to(type) : at::ones_like(self, at::kLong);
  ReturnBoxed(op, stack, at::scatter_add(at::zeros({size}, self.options().dtype(type)), 0,
                                         self.to(at::kLong), amounts));
}

}  // namespace

void RegisterSearchKernels() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("count_nonzero.dim_IntList", torch::CppFunction::makeFromBoxedFunction<&CountNonzero>());
  lib->impl("isin.Tensor_Tensor", torch::CppFunction::makeFromBoxedFunction<&IsinTensorTensor>());
  lib->impl("searchsorted.Tensor", torch::CppFunction::makeFromBoxedFunction<&SearchSorted>());
  lib->impl("bucketize.Tensor", torch::CppFunction::makeFromBoxedFunction<&Bucketize>());
  lib->impl("repeat_interleave.Tensor",
            torch::CppFunction::makeFromBoxedFunction<&RepeatInterleaveIndices>());
  lib->impl("index_reduce", torch::CppFunction::makeFromBoxedFunction<&IndexReduce>());
  lib->impl("renorm", torch::CppFunction::makeFromBoxedFunction<&Renorm>());
  lib->impl("histc", torch::CppFunction::makeFromBoxedFunction<&Histc>());
  lib->impl("bincount", torch::CppFunction::makeFromBoxedFunction<&Bincount>());
  lib->impl("histogram.bins_tensor", torch::CppFunction::makeFromBoxedFunction<&HistogramEdges>());
  lib->impl("histogram.bin_ct", torch::CppFunction::makeFromBoxedFunction<&HistogramBinCount>());
}

}  // namespace backend
}  // namespace ltc_mlir
