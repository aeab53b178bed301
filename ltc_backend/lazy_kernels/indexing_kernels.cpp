// Advanced indexing with integer index tensors kept in the lazy graph, and
// scatter of a number (ScatterValue below).
//
// torch's LTC has no Lazy kernel for index.Tensor (x[i], x[:, i], x[i, j])
// nor for index_put / _index_put_impl (x[i] = v and x[i] += v reach
// index_put through functionalization; index's backward calls index_put
// with accumulate=True on functional tensors, as lazy tensors are;
// index_put's composite ends in _index_put_impl_): each ran through the
// eager fallback, cutting the graph.
// They become AtenOpNodes whose `Tensor?[]` operand holds the index tensors
// (lazy or CPU) and Nones. Bool/uint8 masks select a data-dependent number
// of elements: they are replaced by the index tensors of their nonzero()
// (ReplaceMaskIndices, mask_kernels.cpp). Lowered by TorchToLinalg
// AdvancedIndexing.cpp.
#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/ops/index_meta_dispatch.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/aten_op_node.h"
#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

using torch::lazy::Shape;

const c10::IValue& Arg(const c10::OperatorHandle& op, const torch::jit::Stack& stack,
                       size_t i) {
  return stack[stack.size() - op.schema().arguments().size() + i];
}

c10::List<std::optional<at::Tensor>> MetaIndices(const c10::IValue& indices) {
  c10::List<std::optional<at::Tensor>> meta;
  for (const c10::IValue& e : indices.toListRef())
    meta.push_back(e.isTensor() && e.toTensor().defined()
                       ? std::optional<at::Tensor>(MetaLike(e.toTensor()))
                       : std::nullopt);
  return meta;
}

// Whether `indices` (a Tensor?[]) holds a bool or uint8 mask.
bool HasMask(const c10::IValue& indices) {
  for (const c10::IValue& e : indices.toListRef()) {
    if (!e.isTensor() || !e.toTensor().defined()) continue;
    at::ScalarType dtype = e.toTensor().scalar_type();
    if (dtype == at::kBool || dtype == at::kByte) return true;
  }
  return false;
}

// self[indices] on meta tensors: the result's shape, and eager's errors for
// bad indices ("too many indices", index dtypes other than long, int, byte,
// bool, shapes that do not broadcast: IndexErrors). torch's C++ Meta
// function, called directly: the Python Meta kernel `import torch` puts in
// front of it raises RuntimeErrors worded its own way ("Attempting to
// broadcast a dimension of length 3"), and takes int8 indices for masks.
at::Tensor MetaIndexResult(const at::Tensor& self, const c10::IValue& indices) {
  return at::meta::index(MetaLike(self), MetaIndices(indices));
}

// index.Tensor(self, indices)
std::vector<Shape> IndexShapes(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  at::Tensor result = MetaIndexResult(Arg(op, stack, 0).toTensor(), Arg(op, stack, 1));
  return {Shape(result.scalar_type(), result.sizes())};
}

// index_put / _index_put_impl(self, indices, values, accumulate[, unsafe]):
// shaped as self, with eager's checks of values (ATen's
// make_index_put_iterator, which the Meta kernel does not run).
std::vector<Shape> IndexPutShapes(const c10::OperatorHandle& op,
                                  const torch::jit::Stack& stack) {
  const at::Tensor& self = Arg(op, stack, 0).toTensor();
  const at::Tensor& values = Arg(op, stack, 2).toTensor();
  at::Tensor result = MetaIndexResult(self, Arg(op, stack, 1));
  TORCH_CHECK(at::is_expandable_to(values.sizes(), result.sizes()), "shape mismatch: value tensor of shape ",
              values.sizes(), " cannot be broadcast to indexing result of shape ", result.sizes());
  TORCH_CHECK(values.scalar_type() == self.scalar_type(),
              "Index put requires the source and destination dtypes match, got ",
              self.scalar_type(), " for the destination and ", values.scalar_type(),
              " for the source.");
  return {Shape(self.scalar_type(), self.sizes())};
}

// Whether `indices` holds a 0-dim mask (x[torch.tensor(True)]), which
// Python's indexing turns into an unsqueeze: left to the eager fallback.
bool HasScalarMask(const c10::IValue& indices) {
  for (const c10::IValue& e : indices.toListRef())
    if (e.isTensor() && e.toTensor().defined() && e.toTensor().dim() == 0 &&
        (e.toTensor().scalar_type() == at::kBool || e.toTensor().scalar_type() == at::kByte))
      return true;
  return false;
}

// The Lazy kernel: masks become the integer indices of their nonzero()
// (mask_kernels.cpp, one sync for the count), then a graph op.
void IndexingKernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const c10::IValue& indices = Arg(op, *stack, 1);
  if (HasMask(indices)) {
    if (HasScalarMask(indices)) return RunEagerFallback(op, stack);
    CheckOperandDevices(op, *stack);
    size_t position = stack->size() - op.schema().arguments().size() + 1;
    (*stack)[position] = ReplaceMaskIndices(Arg(op, *stack, 0).toTensor(), indices);
  }
  CallAtenOpLazily(op, stack);
}

// scatter.value: torch 2.x's LTC passes the number as a 0-dim tensor graph
// input, with which the TorchScript lowering resolves aten::scatter to
// scatter.src: unsupported by our lowering, and in the fallback eager's
// src dtype check failed (multi_margin_loss raised). The value is
// scattered from a tensor filled with it, shaped like the index.
at::Tensor ScatterValue(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                        const at::Scalar& value) {
  return at::scatter(self, dim, index, at::full(index.sizes(), value, self.options()));
}

}  // namespace

void RegisterIndexingKernels() {
  // Records the shape functions (and a plain CallAtenOpLazily kernel, which
  // the mask-aware one below replaces).
  RegisterAtenOpKernel("index.Tensor", &IndexShapes);
  RegisterAtenOpKernel("index_put", &IndexPutShapes);
  RegisterAtenOpKernel("_index_put_impl", &IndexPutShapes);
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;  // replaces the kernels registered just above
  for (const char* name : {"index.Tensor", "index_put", "_index_put_impl"})
    lib->impl(name, torch::CppFunction::makeFromBoxedFunction<&IndexingKernel>());
  lib->impl("scatter.value", TORCH_FN(ScatterValue));
}

}  // namespace backend
}  // namespace ltc_mlir
