// meta_shape_cache: remembers the output shapes AtenOpNode's meta probe
// computed, per operator and argument signature.
//
// Running an op on meta tensors to learn its output shapes is slow: torch
// 2.14's Meta kernels of many ops are Python (hardtanh_backward ~0.5 ms,
// where.self ~0.17 ms per call on a loaded 2-core machine; a C++ one takes
// a few us). A training loop calls the same ops on the same shapes every
// step, so the result is looked up instead.
//
// The key is exact: the operator, and for every argument its kind and
// everything a meta kernel can see of it (a tensor's dtype and sizes; the
// value of every non-tensor argument, Scalars included). Arguments the key
// cannot describe (wrapped Python numbers, symbolic sizes, generators,
// objects) are not cached. Failed probes are not cached either, so an error
// is raised on every call.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <torch/csrc/lazy/core/shape.h>

#include <functional>
#include <vector>

namespace ltc_mlir {
namespace backend {

// The shapes of `op` for the arguments on top of `stack`: the cached ones,
// or `probe()`'s, which are cached when the arguments can be keyed.
std::vector<torch::lazy::Shape> CachedMetaShapes(
    const c10::OperatorHandle& op, const torch::jit::Stack& stack,
    const std::function<std::vector<torch::lazy::Shape>()>& probe);

// Probes and hits are counted in the metrics (meta_shape_probes,
// meta_shape_cache_hits); uncacheable arguments count as probes.

}  // namespace backend
}  // namespace ltc_mlir
