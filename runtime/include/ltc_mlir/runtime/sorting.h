// runtime/sorting.h - sort, topk, kthvalue and mode as eager computes them.
//
// Which of several equal elements a sort or a selection returns is not
// defined by PyTorch; on CPU it is whatever eager's algorithm does: std::sort
// (introsort) for torch.sort, std::partial_sort / std::nth_element for topk,
// Sedgewick's quickselect for kthvalue, std::sort and a scan of equal runs for
// mode. The TorchToLinalg lowerings (Sorting.cpp, Selection.cpp) call these
// entry points, which run the same algorithms with the same comparisons on
// the same initial order, so that a lazy graph returns eager's indices for
// tied values too, in O(n log n).
//
// Each entry point takes MLIR memref descriptors of rank 3, [outer, n, inner]
// with any strides: the op's dim is the middle one (the dims before and
// after it collapsed). Results are [outer, k, inner] (k = 1 for kthvalue and
// mode). One set of entry points per storage type: f32, f64, f16, bf16, i64,
// i32, i16, i8, u8 and b8 (bool stored as a byte).
#ifndef LTC_MLIR_RUNTIME_SORTING_H
#define LTC_MLIR_RUNTIME_SORTING_H

#include <string>

namespace ltc_mlir {
namespace runtime {

/// Address of a sorting entry point ("_mlir_ciface_ltc_mlir_rt_sort_f32",
/// ...), or null when `name` is not one.
void *resolveSortingSymbol(const std::string &name);

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_SORTING_H
