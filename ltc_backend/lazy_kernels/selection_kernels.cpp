// Selection, scans and flat indexing kept in the lazy graph.
//
// torch's LTC has no Lazy kernel for median, nanmedian, mode, take, and its
// CompositeExplicitAutograd kernels of kthvalue, median.dim, cummax/cummin
// (through _cummax_helper/_cummin_helper on preallocated results),
// logcumsumexp (_logcumsumexp), logsumexp (amax, and resize_ of its result)
// and put (clone + put_) each reach the eager fallback, cutting the graph.
// They become AtenOpNodes here; none has a C++ Meta kernel (median, mode,
// take, kthvalue... only torch's Python ones), so their output shapes come
// from the functions below.
// Their backward ops (scatter, scatter_add, put, take, flip, where...) are
// kept in the graph too. Lowered by TorchToLinalg Selection.cpp,
// CumulativeOps.cpp and Gather.cpp (take).
#include <ATen/ATen.h>
#include <ATen/WrapDimUtils.h>
#include <c10/core/DefaultDtype.h>

#include "ltc_backend/lazy_kernels/aten_op_node.h"

namespace ltc_mlir {
namespace backend {
namespace {

using torch::lazy::Shape;

// self's sizes without (or with size 1 at, when keepdim) `dim`; a 0-d self
// stays 0-d.
std::vector<int64_t> ReducedSizes(const at::Tensor& self, int64_t dim, bool keepdim) {
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end());
  if (sizes.empty()) {
    at::maybe_wrap_dim(dim, 1);  // eager's IndexError for a bad dim
    return sizes;
  }
  int64_t d = at::maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  if (keepdim) {
    sizes[d] = 1;
  } else {
    sizes.erase(sizes.begin() + d);
  }
  return sizes;
}

std::vector<Shape> ValuesAndIndices(const at::Tensor& self, std::vector<int64_t> sizes) {
  return {Shape(self.scalar_type(), sizes), Shape(at::kLong, sizes)};
}

// median(self), nanmedian(self)
std::vector<Shape> AllReduceShape(const c10::IValue* args) {
  return {Shape(args[0].toTensor().scalar_type(), {})};
}

// median.dim, nanmedian.dim, mode: (self, dim, keepdim)
std::vector<Shape> DimReduceShapes(const c10::IValue* args) {
  const at::Tensor& self = args[0].toTensor();
  return ValuesAndIndices(self, ReducedSizes(self, args[1].toInt(), args[2].toBool()));
}

// kthvalue(self, k, dim, keepdim)
std::vector<Shape> KthvalueShapes(const c10::IValue* args) {
  const at::Tensor& self = args[0].toTensor();
  int64_t k = args[1].toInt(), dim = args[2].toInt();
  std::vector<int64_t> sizes = ReducedSizes(self, dim, args[3].toBool());
  int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  TORCH_CHECK(k >= 1 && k <= size, "kthvalue(): selected number k out of range for dimension ",
                    dim, " (k = ", k, ", size ", size, "). Pass a k in [1, ", size, "].");
  return ValuesAndIndices(self, sizes);
}

// cummax, cummin: (self, dim)
std::vector<Shape> ScanShapes(const c10::IValue* args) {
  const at::Tensor& self = args[0].toTensor();
  at::maybe_wrap_dim(args[1].toInt(), std::max<int64_t>(self.dim(), 1));
  return ValuesAndIndices(self, self.sizes().vec());
}

// logcumsumexp(self, dim)
std::vector<Shape> LogcumsumexpShape(const c10::IValue* args) {
  const at::Tensor& self = args[0].toTensor();
  at::maybe_wrap_dim(args[1].toInt(), std::max<int64_t>(self.dim(), 1));
  return {Shape(self.scalar_type(), self.sizes())};
}

// logsumexp(self, dim[], keepdim): integer inputs give the default dtype.
std::vector<Shape> LogsumexpShape(const c10::IValue* args) {
  const at::Tensor& self = args[0].toTensor();
  std::vector<int64_t> dims = args[1].toIntVector();
  bool keepdim = args[2].toBool();
  int64_t rank = self.dim();
  std::vector<bool> reduced(rank, dims.empty());
  for (int64_t d : dims) {
    int64_t nd = at::maybe_wrap_dim(d, std::max<int64_t>(rank, 1));
    if (rank > 0) reduced[nd] = true;
  }
  std::vector<int64_t> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      sizes.push_back(self.size(d));
    } else if (keepdim) {
      sizes.push_back(1);
    }
  }
  at::ScalarType dtype = at::isIntegralType(self.scalar_type(), /*includeBool=*/true)
                             ? c10::typeMetaToScalarType(c10::get_default_dtype())
                             : self.scalar_type();
  return {Shape(dtype, sizes)};
}

// take(self, index): shaped as index.
std::vector<Shape> TakeShape(const c10::IValue* args) {
  const at::Tensor& self = args[0].toTensor();
  const at::Tensor& index = args[1].toTensor();
  TORCH_CHECK(index.scalar_type() == at::kLong, "take(): Expected a long tensor for index, but got ",
              index.scalar_type());
  return {Shape(self.scalar_type(), index.sizes())};
}

// put(self, index, source, accumulate): shaped as self.
std::vector<Shape> PutShape(const c10::IValue* args) {
  const at::Tensor& self = args[0].toTensor();
  const at::Tensor& index = args[1].toTensor();
  const at::Tensor& source = args[2].toTensor();
  TORCH_CHECK(index.scalar_type() == at::kLong, "put_(): Expected a long tensor for index, but got ",
              index.scalar_type());
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "put_(): self and source expected to have the same dtype, but got self.dtype = ",
              self.scalar_type(), " and source.dtype = ", source.scalar_type());
  TORCH_CHECK_INDEX(source.numel() == index.numel(),
              "put_(): Expected source and index to have the same number of elements, but got "
              "source.numel() = ", source.numel(), ", index.numel() = ", index.numel());
  return {Shape(self.scalar_type(), self.sizes())};
}

// Shape functions here take the op's arguments (args[i] is schema
// argument i) and may throw eager's error for bad arguments.
using ShapeFunction = std::vector<Shape> (*)(const c10::IValue* args);

void RegisterAtenOpKernelWithShapes(const std::string& name, ShapeFunction shapes) {
  RegisterAtenOpKernel(name, [shapes](const c10::OperatorHandle& op,
                                      const torch::jit::Stack& stack) {
    return shapes(&stack[stack.size() - op.schema().arguments().size()]);
  });
}

}  // namespace

void RegisterSelectionKernels() {
  RegisterAtenOpKernelWithShapes("median", &AllReduceShape);
  RegisterAtenOpKernelWithShapes("nanmedian", &AllReduceShape);
  RegisterAtenOpKernelWithShapes("median.dim", &DimReduceShapes);
  RegisterAtenOpKernelWithShapes("nanmedian.dim", &DimReduceShapes);
  RegisterAtenOpKernelWithShapes("mode", &DimReduceShapes);
  RegisterAtenOpKernelWithShapes("kthvalue", &KthvalueShapes);
  RegisterAtenOpKernelWithShapes("cummax", &ScanShapes);
  RegisterAtenOpKernelWithShapes("cummin", &ScanShapes);
  RegisterAtenOpKernelWithShapes("logcumsumexp", &LogcumsumexpShape);
  RegisterAtenOpKernelWithShapes("logsumexp", &LogsumexpShape);
  RegisterAtenOpKernelWithShapes("take", &TakeShape);
  RegisterAtenOpKernelWithShapes("put", &PutShape);
}

}  // namespace backend
}  // namespace ltc_mlir
