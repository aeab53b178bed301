"""Constructs that hit bugs known and being fixed elsewhere. The chain
generator leaves them out unless LTC_MLIR_FUZZ_KNOWN=1 (then it generates
them too, to see whether they are fixed). Delete an entry once its fix is
merged: the generator then covers the construct in every run.
"""
import os

KNOWN_BUGS = {
    "half_reduction":
        "sum/mean of float16/bfloat16 tensors gives wrong values (mlir_lowering: "
        "reductions accumulate in the narrow type)",
    "large_f32_sum":
        "f32 sum of very large tensors loses precision (mlir_lowering: reductions)",
    "select_write_row0":
        "in-place write into index 0 of a select view (select_scatter) writes the "
        "wrong row (mlir_lowering: in-place/as_strided)",
    "as_strided_on_view":
        "as_strided over a transposed/sliced view reads the wrong elements "
        "(mlir_lowering: in-place/as_strided)",
    "split_chunk_unbind":
        "split/chunk/unbind return tensors on the cpu device; mixing one with a "
        "lazy tensor aborts (ltc_backend: split/chunk kernels, device guard)",
    "view_inplace_detach":
        "detach() of a view of a tensor that was written in place, after the sync, "
        "has the base's shape, e.g. v = x.clone(); v.zero_(); w = v.expand(2, -1, -1); "
        "mark_step(); w.detach() is (3, 3) (torch 1.13, TS backend too). Also hits "
        "gradients (AccumulateGrad detaches): v = x.unsqueeze(0).clone(); "
        "v[:, 1:].zero_(); backward -> x.grad is (1, 3) for x of shape (3,); and "
        "F.linear(x, w, b) for a 1-D x (ATen adds the bias in place into the squeezed "
        "matmul): detach() of the result is (1, 3) instead of (3,)",
    # Found by this fuzzer, not assigned yet (see docs/development.md).
    "stack_mixed_dtypes":
        "torch.stack of tensors of different dtypes is float32 on lazy (torch 1.13's "
        "lazy shape function takes the first tensor's dtype; eager promotes)",
    "sgn_backward":
        "backward of sgn on lazy tensors raises (torch 1.13; TS backend too): "
        "'DispatchStub: unsupported device typelazy', or with a relu after it "
        "'INTERNAL ASSERT FAILED ... mutating a non-functional tensor with a functional "
        "tensor' (sgn's gradient is an _efficientzerotensor from the CPU fallback)",
    "zero_size_backward":
        "backward through zero-size tensors segfaults in MLIR's "
        "buffer-results-to-out-params: the graph returns a tensor.empty that a "
        "linalg.generic also uses as its init, so two results share one buffer "
        "(mlir_lowering pipelines)",
    "int_abs":
        "abs of an int64 tensor does not compile: 'failed to legalize operation "
        "math.absi' (vector<..xi64>) in ltc-linalg-to-llvm; the graph falls back "
        "(values right, not native)",
    "as_strided_backward":
        "backward of as_strided (as_strided_scatter, whole-graph fallback) gives a "
        "wrongly shaped gradient, e.g. (27,) for x of shape (3, 3, 3) when x went "
        "through a broadcasting add first (torch 1.13, TS backend too; see "
        "tests/e2e/test_ops.py)",
    "cat_bool_with_other_dtypes":
        "torch.cat of a bool tensor with tensors of another dtype is not lowered "
        "('unsupported op torch.aten.cat: cannot convert bool tensors'): the graph "
        "falls back (values right, not native)",
}


def include_known():
    return os.environ.get("LTC_MLIR_FUZZ_KNOWN", "") not in ("", "0")
