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
        "an in-place op on a view, then detach(), gives a wrongly shaped tensor "
        "(ltc_backend / in-place views)",
    # Found by this fuzzer, not assigned yet (see docs/development.md).
    "stack_mixed_dtypes":
        "torch.stack of tensors of different dtypes is float32 on lazy (torch 1.13's "
        "lazy shape function takes the first tensor's dtype; eager promotes)",
    "sgn_backward":
        "backward of sgn on lazy tensors raises (torch 1.13; TS backend too): "
        "'DispatchStub: unsupported device typelazy', or with a relu after it "
        "'INTERNAL ASSERT FAILED ... mutating a non-functional tensor with a functional "
        "tensor' (sgn's gradient is an _efficientzerotensor from the CPU fallback)",
    "inplace_on_clone_of_view":
        "an in-place write into a view of clone(some view of x), then backward: x.grad "
        "has the view's shape, e.g. (1, 3) for x of shape (3,) (torch 1.13 "
        "functionalization; TS backend too)",
    "zero_size_backward":
        "backward through zero-size tensors segfaults in MLIR's "
        "buffer-results-to-out-params: the graph returns a tensor.empty that a "
        "linalg.generic also uses as its init, so two results share one buffer "
        "(mlir_lowering pipelines)",
}


def include_known():
    return os.environ.get("LTC_MLIR_FUZZ_KNOWN", "") not in ("", "0")
