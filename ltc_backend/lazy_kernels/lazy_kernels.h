// lazy_kernels: our own kernels for the Lazy dispatch key, fixing lazy-tensor
// bugs of torch that abort the process, corrupt state or leave ops eager. InitBackend()
// (backend_impl.cpp) calls these in this order.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/util/Exception.h>

#include <cstddef>

namespace ltc_mlir {
namespace backend {

// Boxed fallback for ops without a Lazy kernel (eager_fallback.cpp). Must be
// the first fallback registered for the Lazy key (in place of LTC's).
void RegisterLazyEagerFallback();

// split/chunk/unbind/split_with_sizes and their unsafe_ variants as lazy
// slices (split_kernels.cpp): LTC has no kernel and the fallback returned
// the pieces on the CPU.
void RegisterSplitKernels();

// native_batch_norm whose running-stat update is ordinary lazy ops
// (batch_norm_kernel.cpp): LTC's lowering updated them once per graph run.
void RegisterBatchNormKernel();

// stack/cat convert mixed-dtype operands to eager's promoted dtype
// (promoting_kernels.cpp): LTC's stack took the first operand's dtype.
void RegisterPromotingKernels();

// _efficientzerotensor as lazy zeros (zero_tensor_kernel.cpp): the CPU
// ZeroTensor of the eager fallback broke sgn/sign/round backward.
void RegisterZeroTensorKernel();

// index_select of a 0-dim self (zero_dim_kernels.cpp): LTC's shape
// inference raised "Empty output_sizes is not supported.".
void RegisterZeroDimKernels();

// A 0-dim empty()/empty_strided() holds zero (empty_kernel.cpp): otherwise
// its uninitialized value decided whether a graph took it as a constant or
// as an input, and a repeated step could trace a different graph.
void RegisterZeroFilledScalarEmpty();

// resize_ within the storage of a lazy tensor takes its first elements
// (resize_kernel.cpp, a Functionalize-key kernel): torch's kernel views the
// current value, so growing after a shrink raised "setStorage: ... out of
// bounds".
void RegisterResizeKernel();

// Dense linear algebra (solve_triangular, Cholesky, LU and their users)
// as AtenOpNodes (dense_linalg_kernels.cpp): torch's LTC has no Lazy kernel.
void RegisterDenseLinalgKernels();
// median, kthvalue, mode, cummax/cummin, logcumsumexp, logsumexp, take and put
// kept in the graph (TorchToLinalg Selection.cpp, CumulativeOps.cpp, Gather.cpp).
void RegisterSelectionKernels();

// index.Tensor, index_put and _index_put_impl with integer index tensors
// (x[i], x[i] = v, index's backward) kept in the graph (indexing_kernels.cpp;
// TorchToLinalg AdvancedIndexing.cpp); bool/uint8 masks run eagerly.
void RegisterIndexingKernels();

// one_hot with an explicit num_classes as one lazy node (one_hot_kernel.cpp):
// the decomposition synced the graph twice (.item()) and scattered eagerly.
void RegisterOneHotKernel();

// torch.equal as lazy eq + all, read back as one bool (equal_kernel.cpp):
// it copied both operands to the CPU through the eager fallback.
void RegisterEqualKernel();
// __lshift__/__rshift__ of integers as bitwise_left_shift/bitwise_right_shift.
void RegisterShiftOperatorKernels();
// rot90 as flip + permute_copy (its composite's transpose_ fell back).
void RegisterRot90Kernel();
// _safe_softmax (math attention's softmax) as softmax + where
// (safe_softmax_kernel.cpp): its composite called where.self_out eagerly.
void RegisterSafeSoftmaxKernel();
// rrelu_with_noise(_) as leaky_relu (eval) or random slopes (training)
// (rrelu_kernel.cpp): F.rrelu ran eagerly.
void RegisterRreluKernels();
// fractional_max_pool2d/3d (+ backward) as gathers over eager's windows
// (fractional_pool_kernel.cpp): they ran eagerly.
void RegisterFractionalPoolKernels();
// grid_sampler_2d as differentiable lazy ops on the AutogradLazy key
// (grid_sample_kernel.cpp): it and its backward ran eagerly.
void RegisterGridSampleKernel();
// linspace/logspace with eager's two-sided ramp (linspace_kernel.cpp): they
// ran eagerly (affine_grid's base grid).
void RegisterLinspaceKernels();
// segment_reduce and its backward through segment ids and scatter_reduce
// (segment_reduce_kernel.cpp): they ran eagerly.
void RegisterSegmentReduceKernels();
// multinomial with eager's algorithms on the lazy generator
// (multinomial_kernel.cpp): it ran eagerly.
void RegisterMultinomialKernel();
// linalg_lstsq as pinv(A) B with each driver's rank, singular values and
// residuals, on the AutogradLazy key (lstsq_kernel.cpp): it ran eagerly. Also
// batched linalg_pinv, which raised in torch 2.14's LTC kernel.
void RegisterLstsqKernel();
// linalg_matrix_exp by scaling and squaring a Taylor polynomial (one sync
// for the norm; matrix_exp_kernel.cpp): it ran eagerly.
void RegisterMatrixExpKernel();

// nonzero, masked_select and masked_scatter_ as lazy ops after one sync for
// the mask's count (mask_kernels.cpp): they ran through the eager fallback.
void RegisterMaskKernels();

// count_nonzero, isin, searchsorted, bucketize, repeat_interleave(repeats),
// index_reduce, renorm as lowered lazy ops (search_kernels.cpp): they ran
// through the eager fallback.
void RegisterSearchKernels();

// exponential_ on the Lazy key as the functional op copied into self
// (exponential_kernel.cpp): torch 2.14's LTC has none.
void RegisterExponentialKernel();

// embedding_bag in sum/mean mode as differentiable lazy ops on the
// AutogradLazy key (embedding_bag_kernel.cpp): _embedding_bag and its
// backward ran through the eager fallback.
void RegisterEmbeddingBagKernel();

// _pack_padded_sequence as differentiable lazy ops with CPU lengths on the
// AutogradLazy key (packed_sequence_kernel.cpp): its composite failed under
// functionalization, so packed sequences could not reach an RNN.
void RegisterPackedSequenceKernel();

// _cdist_forward / _pdist_forward as differentiable lazy ops on the
// AutogradLazy key (distance_kernels.cpp): they and their backward ran
// through the eager fallback.
void RegisterDistanceKernels();

// torch.frexp as lowered lazy ops (frexp_kernel.cpp): it ran through the
// eager fallback.
void RegisterFrexpKernel();
// `indices` (an index/index_put Tensor?[] of self) with each bool/uint8 mask
// replaced by the index tensors of its nonzero(), as ATen expands them.
c10::IValue ReplaceMaskIndices(const at::Tensor& self, const c10::IValue& indices);

// 3-d pooling and nearest upsampling as AtenOpNodes (pooling_kernels.cpp):
// max_pool3d_with_indices, avg_pool3d, _adaptive_avg_pool3d,
// adaptive_max_pool3d, upsample_nearest3d(.vec) and their backward ran
// eagerly (torch's LTC has no Lazy kernel for them, except
// max_pool3d_with_indices(_backward), whose Lazy kernels call the eager
// fallback).
void RegisterPoolingKernels();

// im2col/col2im, nll_loss2d, max_unpool2d/3d and upsample_bicubic2d as a few
// lowered lazy ops (decomposed_kernels.cpp): they ran eagerly.
void RegisterDecomposedKernels();

// Functional ops whose Lazy kernel is their CompositeExplicitAutograd one
// run it under functionalization once it met a view (functionalized_composites.cpp):
// the composite's views (diag_embed's diagonal, addr's view) reached the eager
// fallback. Returns how many ops it covers.
size_t RegisterFunctionalizedComposites();

// Functional CompositeImplicitAutograd ops without a Lazy kernel decompose at
// the Functionalize key too (implicit_composites.cpp): under
// torch.inference_mode() they reached it and decomposed below it, where
// their views (F.linear's t()) went to the eager fallback. Returns how many.
size_t RegisterImplicitCompositesAtFunctionalize();

// dst = src for lazy tensors of one dtype and shape, recorded in the graph
// (dst.copy_ from a Lazy-key kernel ran a graph for a dst holding host data;
// assign_in_place.cpp). Other cases take copy_.
void AssignLazyValue(at::Tensor& dst, const at::Tensor& src);

// The keys of the regular autograd kernel of an op we override at
// AutogradLazy: the Autograd alias kernel also serves AutogradOther, which
// comes next once the AutogradLazy bit is dropped from the keyset.
inline c10::DispatchKeySet RegularAutogradKeys(c10::DispatchKeySet ks) {
  return (ks - c10::DispatchKeySet(c10::DispatchKey::AutogradFunctionality)) |
         c10::DispatchKeySet(c10::DispatchKey::AutogradOther);
}

// A meta tensor with t's sizes and dtype, for running eager's checks and
// shape logic (undefined stays undefined; aten_op_node.cpp).
at::Tensor MetaLike(const at::Tensor& t);

// The eager fallback for one call (what an op without a Lazy kernel gets).
void RunEagerFallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// The i-th schema argument of a boxed call on `stack`.
inline const c10::IValue& BoxedArgument(const c10::OperatorHandle& op,
                                        const torch::jit::Stack& stack, size_t i) {
  return stack[stack.size() - op.schema().arguments().size() + i];
}

// A Tensor? argument of a boxed call: the tensor, or undefined for None.
inline at::Tensor OptionalTensorArgument(const c10::IValue& v) {
  return v.isTensor() ? v.toTensor() : at::Tensor();
}

// Replaces a boxed call's arguments on `stack` by its one result.
inline void ReturnBoxed(const c10::OperatorHandle& op, torch::jit::Stack* stack,
                        at::Tensor result) {
  torch::jit::drop(*stack, op.schema().arguments().size());
  torch::jit::push(*stack, std::move(result));
}

// Whether `e` is the eager fallback's refusal of a view op (eager_fallback.cpp).
bool IsViewFallbackError(const c10::Error& e);

// set_(source) moves a lazy tensor into the source's alias group; the raw-storage
// overloads raise (storage_ops.cpp).
void RegisterStorageOps();

// _to_copy of sparse/quantized/mkldnn tensors to the lazy device raises a
// clear error (to_lazy_guard.cpp).
void RegisterToLazyGuard();

// Wraps the Functionalize kernels of mutating ops (mutation_guard.cpp): a CPU
// tensor written from lazy operands is copied (copy_) or rejected like eager.
// Returns how many kernels it wrapped.
size_t InstallMutationGuard();

// Wraps the Functionalize kernels of view ops (inference_mode_views.cpp): under
// torch.inference_mode() a view of a normal lazy tensor is a normal tensor, as
// in eager. Returns how many kernels it wrapped.
size_t InstallInferenceModeViewFix();

// C++ Meta kernels for hot in-place ops and empty_like in place of torch's
// Python ones (cpp_meta_kernels.cpp): functionalization runs them before
// every in-place op on a lazy tensor. Returns how many it registered.
size_t RegisterCppMetaKernels();

// AutogradLazy kernels for CompositeImplicitAutograd ops that have a Lazy
// kernel (composite_autograd.cpp): torch left them without a gradient.
// Call after every Lazy registration. Returns how many it registered.
size_t RegisterCompositeAutogradKernels();

// Wraps the Meta kernel of every aten op whose C++ kernel torch's Python one
// hides, so that calls inside an EagerMetaChecks (eager_meta_checks.h) reach
// the C++ kernel. Returns how many kernels it wrapped.
size_t InstallEagerMetaChecks();

// _ctc_loss and its backward as lazy ops (ctc_loss_kernel.cpp).
void RegisterCtcLossKernels();

// nn.Embedding(sparse=True): a dense weight gradient (sparse_embedding_grad.cpp).
void RegisterSparseEmbeddingGrad();

// Wraps the Functionalize kernels of ops with out arguments
// (out_argument_checks.cpp): an out tensor of another dtype than the operands
// gets eager's dtype checks and, for sum/mean/..., eager's accumulation type.
size_t InstallOutArgumentChecks();

// Wraps every kernel registered for the Lazy key so far with the device check
// (device_guard.cpp). Call last. Returns how many kernels it wrapped.
size_t InstallLazyDeviceGuard();

}  // namespace backend
}  // namespace ltc_mlir
