// segment_reduce and _segment_reduce_backward as lowered lazy ops; torch's
// LTC has no Lazy kernel for them, so they ran eagerly.
//
// Segments run along `axis`, the last dim of lengths/offsets, whose leading
// dims are data's leading dims. Each position j of a row gets its segment
// id (how many segment starts are <= j, minus one); positions outside
// [first start, last end) go to a spare segment S that is dropped. Then:
//  - sum / prod / max / min: scatter_reduce into [.., S + 1, ..] filled with
//    the initial value (default 0, 1, -inf, +inf), in position order as
//    ATen's loop (NaN propagates through max/min as there);
//  - mean: the sum from `initial` (default 0) divided by the length, NaN for
//    an empty segment without `initial` (with one: the initial value).
// The backward is ATen's: sum and mean spread the segment's gradient (mean
// divided by the length); max/min give it to every element equal to the
// result (or NaN), and where there are several, divide the positive ones by
// their count (ATen's rule); prod gives grad * result / x, and for a zero or
// NaN x the product of the other elements and the initial value.
// Argument errors, unsupported dtypes and the !unsafe lengths checks that
// fail (one sync reads them) take the eager path, which raises eager's
// messages. Tables larger than kMaxPairs take it too.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cmath>
#include <limits>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

constexpr int64_t kMaxPairs = int64_t{1} << 26;

enum class Reduction { Sum, Mean, Max, Min, Prod };

std::optional<Reduction> ParseReduction(const std::string& name) {
  if (name == "sum") return Reduction::Sum;
  if (name == "mean") return Reduction::Mean;
  if (name == "max") return Reduction::Max;
  if (name == "min") return Reduction::Min;
  if (name == "prod") return Reduction::Prod;
  return std::nullopt;
}

// Segment ids of every position of data along axis.
struct Segments {
  int64_t axis = 0, count = 0;  // count: S
  at::Tensor id;                // [B.., D, 1..] broadcast to data: 0..S (S = outside)
  at::Tensor length;            // [B.., S, 1..] int64
};

// Null when the eager path must handle the call.
std::optional<Segments> BuildSegments(const at::Tensor& data, const at::Tensor& lengths,
                                      const at::Tensor& offsets, int64_t axis) {
  const at::Tensor& table = offsets.defined() ? offsets : lengths;
  if (!table.defined() || !at::isFloatingType(data.scalar_type()) ||
      (table.scalar_type() != at::kLong && table.scalar_type() != at::kInt) ||
      table.dim() == 0 || data.dim() < table.dim())
    return std::nullopt;
  Segments s;
  s.axis = c10::maybe_wrap_dim(axis, data.dim());
  if (s.axis != table.dim() - 1 ||
      !table.sizes().slice(0, s.axis).equals(data.sizes().slice(0, s.axis)))
    return std::nullopt;
  at::Tensor bounds = table.to(at::kLong);
  if (!offsets.defined()) {
    std::vector<int64_t> zeroShape = bounds.sizes().vec();
    zeroShape.back() = 1;
    bounds = at::cat({at::zeros(zeroShape, bounds.options()), at::cumsum(bounds, -1)}, -1);
  }
  s.count = bounds.size(-1) - 1;
  int64_t d = data.size(s.axis);
  int64_t batch = c10::multiply_integers(data.sizes().slice(0, s.axis));
  if (s.count < 0 || batch * std::max<int64_t>(s.count, 1) * d > kMaxPairs) return std::nullopt;
  at::Tensor starts = at::slice_copy(bounds, -1, 0, s.count);      // [B.., S]
  at::Tensor ends = at::slice_copy(bounds, -1, 1, s.count + 1);     // [B.., S]
  at::Tensor position = at::arange(d, bounds.options());           // [D]
  // id = #(starts <= j) - 1 over [B.., S, D]; valid: first start <= j < last end.
  at::Tensor started = at::le(at::unsqueeze_copy(starts, -1), position);
  at::Tensor id = at::sub(at::sum(started, -2), 1);                 // [B.., D]
  at::Tensor first = at::slice_copy(bounds, -1, 0, 1), last = at::slice_copy(bounds, -1, s.count, s.count + 1);
  at::Tensor valid = at::logical_and(at::ge(position, first), at::lt(position, last));
  id = at::where(valid, id, at::full_like(id, s.count));
  std::vector<int64_t> trailing(data.dim() - s.axis - 1, 1);
  std::vector<int64_t> idShape = id.sizes().vec();
  idShape.insert(idShape.end(), trailing.begin(), trailing.end());
  s.id = at::expand_copy(at::view_copy(id, idShape), data.sizes());
  std::vector<int64_t> lengthShape = starts.sizes().vec();
  lengthShape.insert(lengthShape.end(), trailing.begin(), trailing.end());
  s.length = at::view_copy(at::sub(ends, starts), lengthShape);
  return s;
}

// eager's !unsafe checks of lengths (one sync): true when they pass.
bool LengthsAreValid(const at::Tensor& lengths, int64_t axisSize) {
  at::Tensor l = lengths.to(at::kLong);
  at::Tensor bad = at::logical_or(at::any(at::lt(l, 0)), at::any(at::ne(at::sum(l, -1), axisSize)));
  return !bad.item<bool>();
}

double DefaultInitial(Reduction r) {
  switch (r) {
    case Reduction::Max: return -std::numeric_limits<double>::infinity();
    case Reduction::Min: return std::numeric_limits<double>::infinity();
    case Reduction::Prod: return 1.0;
    default: return 0.0;
  }
}

// segment_reduce(data, reduce, *, lengths, indices, offsets, axis, unsafe, initial)
void SegmentReduce(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor data = BoxedArgument(op, *stack, 0).toTensor();
  std::optional<Reduction> reduction = ParseReduction(BoxedArgument(op, *stack, 1).toStringRef());
  at::Tensor lengths = OptionalTensorArgument(BoxedArgument(op, *stack, 2));
  at::Tensor indices = OptionalTensorArgument(BoxedArgument(op, *stack, 3));
  at::Tensor offsets = OptionalTensorArgument(BoxedArgument(op, *stack, 4));
  int64_t axis = BoxedArgument(op, *stack, 5).toInt();
  bool unsafe = BoxedArgument(op, *stack, 6).toBool();
  const c10::IValue& initialArg = BoxedArgument(op, *stack, 7);
  if (!reduction || indices.defined()) return RunEagerFallback(op, stack);
  std::optional<Segments> s = BuildSegments(data, lengths, offsets, axis);
  if (!s) return RunEagerFallback(op, stack);
  if (!offsets.defined() && !unsafe && !LengthsAreValid(lengths, data.size(s->axis)))
    return RunEagerFallback(op, stack);
  bool hasInitial = !initialArg.isNone();
  double initial = hasInitial ? initialArg.toScalar().toDouble() : DefaultInitial(*reduction);
  std::vector<int64_t> outShape = data.sizes().vec();
  outShape[s->axis] = s->count + 1;
  const char* name = *reduction == Reduction::Max   ? "amax"
                     : *reduction == Reduction::Min ? "amin"
                     : *reduction == Reduction::Prod ? "prod"
                                                     : "sum";
  at::Tensor reduced = at::scatter_reduce(at::full(outShape, initial, data.options()), s->axis,
                                          s->id, data, name, /*include_self=*/true);
  reduced = at::slice_copy(reduced, s->axis, 0, s->count);
  if (*reduction == Reduction::Mean) {
    at::Tensor length = s->length.to(data.scalar_type());
    at::Tensor empty = hasInitial ? reduced : at::full_like(reduced, NAN);
    reduced = at::where(at::gt(s->length, 0), at::div(reduced, length), empty);
  }
  ReturnBoxed(op, stack, reduced);
}

// _segment_reduce_backward(grad, output, data, reduce, *, lengths, offsets, axis, initial)
void SegmentReduceBackward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor grad = BoxedArgument(op, *stack, 0).toTensor();
  at::Tensor output = BoxedArgument(op, *stack, 1).toTensor();
  at::Tensor data = BoxedArgument(op, *stack, 2).toTensor();
  std::optional<Reduction> reduction = ParseReduction(BoxedArgument(op, *stack, 3).toStringRef());
  at::Tensor lengths = OptionalTensorArgument(BoxedArgument(op, *stack, 4));
  at::Tensor offsets = OptionalTensorArgument(BoxedArgument(op, *stack, 5));
  int64_t axis = BoxedArgument(op, *stack, 6).toInt();
  const c10::IValue& initialArg = BoxedArgument(op, *stack, 7);
  if (!reduction) return RunEagerFallback(op, stack);
  std::optional<Segments> s = BuildSegments(data, lengths, offsets, axis);
  if (!s) return RunEagerFallback(op, stack);
  // Per-position gathers of per-segment values (the spare segment reads a
  // zero row appended to them).
  auto perPosition = [&](const at::Tensor& perSegment) {
    std::vector<int64_t> padShape = perSegment.sizes().vec();
    padShape[s->axis] = 1;
    at::Tensor padded = at::cat({perSegment, at::zeros(padShape, perSegment.options())}, s->axis);
    std::vector<int64_t> full = data.sizes().vec();
    full[s->axis] = s->count + 1;
    return at::gather(at::expand_copy(padded, full), s->axis, s->id);
  };
  at::Tensor inside = at::lt(s->id, s->count);
  at::Tensor g = perPosition(grad);
  at::Tensor result;
  switch (*reduction) {
    case Reduction::Sum:
      result = g;
      break;
    case Reduction::Mean:
      result = at::div(g, perPosition(at::expand_copy(s->length.to(grad.scalar_type()), grad.sizes())));
      break;
    case Reduction::Max:
    case Reduction::Min: {
      at::Tensor hit = at::logical_and(
          inside, at::logical_or(at::isnan(data), at::eq(data, perPosition(output))));
      std::vector<int64_t> countShape = data.sizes().vec();
      countShape[s->axis] = s->count + 1;
      at::Tensor counts = at::scatter_add(at::zeros(countShape, grad.options()), s->axis, s->id,
                                          hit.to(grad.scalar_type()));
      at::Tensor count = at::gather(counts, s->axis, s->id);
      result = at::where(hit, g, at::zeros_like(g));
      result = at::where(at::logical_and(at::ge(count, 2), at::gt(result, 0)),
                         at::div(result, count), result);
      break;
    }
    case Reduction::Prod: {
      double initial = initialArg.isNone() ? 1.0 : initialArg.toScalar().toDouble();
      at::Tensor zero = at::eq(data, 0), nan = at::isnan(data);
      at::Tensor special = at::logical_or(zero, nan);
      std::vector<int64_t> sumShape = data.sizes().vec();
      sumShape[s->axis] = s->count + 1;
      auto segmentSum = [&](const at::Tensor& values) {
        at::Tensor sums = at::scatter_add(at::zeros(sumShape, values.options()), s->axis, s->id, values);
        return at::gather(sums, s->axis, s->id);
      };
      // Product of the segment's ordinary elements (and the initial value).
      at::Tensor ordinary = at::where(special, at::ones_like(data), data);
      at::Tensor products = at::scatter_reduce(at::full(sumShape, initial, data.options()),
                                               s->axis, s->id, ordinary, "prod", true);
      at::Tensor product = at::gather(products, s->axis, s->id);
      at::Tensor zeros = segmentSum(zero.to(at::kLong)), nans = segmentSum(nan.to(at::kLong));
      // Others of a zero/NaN element: NaN if another NaN, else 0 if another zero.
      at::Tensor otherNans = at::sub(nans, nan.to(at::kLong));
      at::Tensor otherZeros = at::sub(zeros, zero.to(at::kLong));
      at::Tensor exclusive = at::where(at::gt(otherNans, 0), at::full_like(product, NAN),
                                       at::where(at::gt(otherZeros, 0), at::zeros_like(product),
                                                 product));
      at::Tensor regular = at::div(at::mul(g, perPosition(output)), data);
      result = at::where(special, at::mul(g, exclusive), regular);
      break;
    }
  }
  ReturnBoxed(op, stack, at::where(inside, result, at::zeros_like(result)));
}

}  // namespace

void RegisterSegmentReduceKernels() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("segment_reduce", torch::CppFunction::makeFromBoxedFunction<&SegmentReduce>());
  lib->impl("_segment_reduce_backward",
            torch::CppFunction::makeFromBoxedFunction<&SegmentReduceBackward>());
}

}  // namespace backend
}  // namespace ltc_mlir
