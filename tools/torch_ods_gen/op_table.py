"""Hand-written extras of the generated ATen ops (read by torch_ods_gen.py).

Only ops that need more than their schema have an entry: a verifier or
folder implemented in lib/Dialect/Torch/IR/TorchOps.cpp, an ODS base class
from TorchOpBase.td (Torch_ElementwiseOp verifies ATen broadcasting,
Torch_ComparisonOp also a bool result), result names the schema leaves out,
or a summary/description worth more than the schema. Keys are
`<name>.<overload>` as in the mnemonic.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class OpSpec:
    base: str = "Torch_AtenOp"  # ODS class of TorchOpBase.td
    summary: str = ""  # default: the schema's name
    description: str = ""
    verifier: bool = False  # `verify()` in TorchOps.cpp (or from `base`)
    folder: bool = False  # `fold()` in TorchOps.cpp
    canonicalizer: bool = False  # `getCanonicalizationPatterns()`
    traits: tuple = ()  # extra ODS traits (Pure comes from the generator)
    results: tuple = ()  # result names, when the schema has none


def elementwise(summary, description=""):
    return OpSpec(base="Torch_ElementwiseOp", summary=summary,
                  description=description)


def comparison(summary):
    return OpSpec(base="Torch_ComparisonOp", summary=summary)


def verified(summary, description="", **kwargs):
    return OpSpec(summary=summary, description=description, verifier=True,
                  **kwargs)


OPS = {
    # Elementwise arithmetic (ATen broadcasting; the result dtype comes from LTC).
    "add.Tensor": elementwise("self + alpha * other"),
    "sub.Tensor": elementwise("self - alpha * other"),
    "mul.Tensor": elementwise("self * other"),
    "div.Tensor": elementwise("self / other (true division)"),
    "maximum": elementwise("elementwise max"),
    "minimum": elementwise("elementwise min"),
    "add.Scalar": elementwise("self + alpha * other"),
    "sub.Scalar": elementwise("self - alpha * other"),
    "mul.Scalar": elementwise("self * other"),
    "div.Scalar": elementwise("self / other"),
    "pow.Tensor_Scalar": elementwise("self ** exponent"),
    "pow.Tensor_Tensor": elementwise("self ** exponent"),
    "addcmul": elementwise("self + value * tensor1 * tensor2 (Adam's second moment)"),
    "addcdiv": elementwise("self + value * tensor1 / tensor2 (Adam's update)"),
    "neg": elementwise("-self"),
    "relu": elementwise("max(self, 0)"),
    "exp": elementwise("exp(self)"),
    "log": elementwise("log(self)"),
    "tanh": elementwise("tanh(self)"),
    "sigmoid": elementwise("1 / (1 + exp(-self))"),
    "sqrt": elementwise("sqrt(self)"),
    "rsqrt": elementwise("1 / sqrt(self)"),
    "abs": elementwise("|self|"),
    "sgn": elementwise(
        "sign of self: -1, 0 or 1 (0 for NaN and -0.0; backward of abs)"),
    "cos": elementwise("cos(self)"),
    "threshold_backward": elementwise("self <= threshold ? 0 : grad_output"),
    "tanh_backward": elementwise("grad_output * (1 - output * output)"),
    "sigmoid_backward": elementwise("grad_output * (1 - output) * output"),
    "gelu": elementwise(
        'x * Phi(x); approximate is "none" (erf) or "tanh"'),
    "gelu_backward": elementwise("grad_output * d gelu(self) / d self"),
    "hardtanh": elementwise("min(max(self, min_val), max_val) (ReLU6: 0, 6)"),
    "hardtanh_backward": elementwise(
        "self <= min_val || self >= max_val ? 0 : grad_output"),
    "hardsigmoid": elementwise("min(max(self + 3, 0), 6) / 6"),
    "hardsigmoid_backward": elementwise(
        "-3 < self < 3 ? grad_output / 6 : 0"),
    "hardswish": elementwise("self * min(max(self + 3, 0), 6) / 6"),
    "hardswish_backward": elementwise(
        "grad_output * d hardswish(self) / d self (0 below -3, 1 above 3)"),
    "silu": elementwise("self * sigmoid(self)"),
    "silu_backward": elementwise("grad_output * d silu(self) / d self"),
    "native_dropout_backward": elementwise("grad_output * mask * scale"),
    "native_dropout": OpSpec(summary="dropout: self * mask / (1 - p)", description="""
In training (train true or None) mask is Bernoulli(1 - p) (bool) and the
output self * mask * (1 / (1 - p)) (0 when p == 1); otherwise the output
is self and the mask all true. The lowering draws the mask from a
counter-based hash of the function's `ltc.rng_seed` argument, the op's
`ltc.rng_stream` attribute and the element index.
""", results=("output", "mask")),
    "sin": elementwise("sin(self)"),
    "erf": elementwise("erf(self)"),
    "round": elementwise("self rounded half to even"),
    "round.decimals": elementwise(
        "self rounded half to even at `decimals` decimal digits"),
    "mish": elementwise("self * tanh(softplus(self))"),
    "elu": elementwise(
        "self > 0 ? scale * self : alpha * scale * (exp(self * input_scale) - 1)"),
    "elu_backward": elementwise(
        "grad_output * d elu / d x, from self or (is_result) the result"),
    "leaky_relu": elementwise("self > 0 ? self : self * negative_slope"),
    "leaky_relu_backward": elementwise(
        "self > 0 ? grad_output : grad_output * negative_slope"),
    "softplus": elementwise(
        "self * beta > threshold ? self : log1p(exp(self * beta)) / beta"),
    "softplus_backward": elementwise(
        "grad_output * d softplus(self) / d self"),
    "logical_and": elementwise("self != 0 && other != 0 (bool)"),
    "logical_or": elementwise("self != 0 || other != 0 (bool)"),
    "logical_xor": elementwise("(self != 0) != (other != 0) (bool)"),
    "logical_not": elementwise("self == 0 (bool)"),
    "bitwise_not": elementwise("~self (bool: !self); integer dtypes only"),
    "masked_fill.Scalar": OpSpec(
        summary="mask ? value : self, mask broadcast to self's shape"),
    "masked_fill.Tensor": OpSpec(
        summary="mask ? value : self, value a 0-dim tensor"),
    "where.self": elementwise(
        "condition ? self : other, all three broadcast together", """
`condition` is bool (or, deprecated, ui8: nonzero is true). self and
other are converted to the result dtype (their promoted dtype).
"""),
    "clamp": verified("min(max(self, min), max); a None bound is not applied", """
NaN in self propagates. At least one of min and max must not be None.
The result dtype (from LTC) is self's dtype, or the promoted dtype of an
integer self with float bounds; bounds are converted to it.
"""),

    "mse_loss": OpSpec(
        summary="(self - target)^2, reduced by reduction (0 none, 1 mean, 2 sum)"),
    "mse_loss_backward": OpSpec(
        summary="grad_output * (self - target) * (mean ? 2 / numel : 2)"),
    "eye": OpSpec(summary="n x n identity matrix"),
    "eye.m": OpSpec(summary="n x m matrix with ones on the diagonal"),
    "one_hot": OpSpec(
        summary="self[...] == class ? 1 : 0 over a new last dim of num_classes"),

    # Comparisons: broadcasting and a bool (i1) result. The operands are
    # compared in their promoted dtype, not in the result dtype.
    "gt.Tensor": comparison("self > other"),
    "lt.Tensor": comparison("self < other"),
    "ge.Tensor": comparison("self >= other"),
    "le.Tensor": comparison("self <= other"),
    "eq.Tensor": comparison("self == other"),
    "ne.Tensor": comparison("self != other"),
    "gt.Scalar": comparison("self > other"),
    "lt.Scalar": comparison("self < other"),
    "ge.Scalar": comparison("self >= other"),
    "le.Scalar": comparison("self <= other"),
    "eq.Scalar": comparison("self == other"),
    "ne.Scalar": comparison("self != other"),

    # Constructors that only keep the shape of their input.
    "zero": OpSpec(summary="zeros shaped like self (functional zero_)"),
    "fill.Scalar": OpSpec(summary="value, shaped like self (functional fill_)"),
    "arange": OpSpec(summary="[0, end) in steps of 1"),
    "arange.start": OpSpec(summary="[start, end) in steps of 1"),
    "arange.start_step": OpSpec(
        summary="start + step * i for i in [0, ceil((end - start) / step))",
        description="""
The emitter also produces it for LTC's `arange.start_out` (the dialect has
no out= ops), with `dtype` set to the dtype of `out`.
"""),
    "IntImplicit": verified("the value of a 0-dim integer tensor as an int", """
TorchScript's implicit tensor -> int conversion (e.g. of a storage
offset held in a 0-dim tensor). Folds when `a` is a literal.
""", folder=True),

    # Linear algebra.
    "mm": verified("matrix product [M,K] x [K,N] -> [M,N]"),
    "bmm": verified("batched matrix product [B,M,K] x [B,K,N] -> [B,M,N]"),
    "addmm": verified("beta * self + alpha * (mat1 x mat2), self broadcast to [M,N]"),

    # Data movement (LTC functionalizes views into *_copy ops).
    "t_copy": OpSpec(summary="transpose of a tensor of rank <= 2"),
    "transpose_copy.int": OpSpec(summary="swaps dims dim0 and dim1"),
    "permute_copy": OpSpec(summary="permutes dims"),
    "view_copy": verified("reshape of a contiguous tensor (one size may be -1)"),
    "expand_copy": OpSpec(summary="broadcast to size (-1 keeps a dim)"),
    "unsqueeze_copy": OpSpec(summary="inserts a size-1 dim"),
    "squeeze_copy": verified("removes every size-1 dim"),
    "squeeze_copy.dim": verified("removes dim if its size is 1 (else the identity)"),
    "as_strided_copy": verified(
        "the view of self's elements with sizes, strides and offset", """
result[i_0, ..., i_n] = flat(self)[storage_offset + sum_k i_k * stride_k],
where flat(self) is self in row-major order (LTC tensors are contiguous
with storage offset 0, the offset used when storage_offset is None).
Autograd emits it when accumulating gradients, typically with the
contiguous strides of the result and
`storage_offset = IntImplicit(vtensor.literal 0)`.
"""),
    "as_strided_scatter": verified("self with the strided view of its elements replaced by src", """
flat(result)[storage_offset + sum_k i_k * stride_k] = src[i_0, ..., i_n]
(converted to self's dtype), every other element is self's; src has the
shape `size`. as_strided's backward emits it into zeros, and an in-place
write into an as_strided view becomes one.
"""),
    "diagonal_copy": verified("the diagonal of self in dims dim1 and dim2, moved last", """
result[..., i] = self[..., dim1 = i + max(0, -offset), ...,
dim2 = i + max(0, offset), ...]: dim1 and dim2 are removed and the
diagonal (of length min(size1, size2 - offset) for offset >= 0,
min(size1 + offset, size2) below, at least 0) is the last dim. dims wrap
like ATen's maybe_wrap_dim.
"""),
    "diagonal_scatter": verified("self with its diagonal (see diagonal_copy) replaced by src", """
src has diagonal_copy's result shape (and is converted to self's dtype);
the result has self's type. x.diagonal().mul_(2) on lazy tensors writes
back with it.
"""),
    "detach_copy": OpSpec(summary="identity (autograd detach)"),
    "alias_copy": OpSpec(summary="identity (an alias view: Tensor.data, torch.ops.aten.alias)"),
    "_to_copy": OpSpec(
        summary="copy converted to the result dtype (Tensor.to(dtype), .float(), ...)",
        description="""
Only the dtype conversion is lowered: layout and device must be None
(the graph runs on one host device; buffers are dense and row-major); a
memory format does not change the values (ltc_backend makes as_strided,
the one op that sees layouts, aware of channels-last).
"""),
    "clone": OpSpec(summary="copy"),

    # Indexing and concatenation. Tensor indexing (x[1:5:2], x[:, 1],
    # x[..., -1]) produces slice_copy.Tensor/select_copy.int; their backward
    # writes the gradient into zeros with slice_scatter/select_scatter. dims
    # wrap like ATen's maybe_wrap_dim.
    "select_copy.int": verified("self[..., index, ...] at dim: the dim is removed", """
index may be negative (counts from the end) and must be in
[-size, size) of dim. The result is self's shape without dim.
"""),
    "select_scatter": verified("self with self.select(dim, index) replaced by src", """
src has self's shape without dim (and is converted to self's dtype);
the result has self's type.
"""),
    "slice_copy.Tensor": verified("self[start:end:step] along dim", """
ATen's slice: start defaults to 0 and end to INT64_MAX (None); negative
values count from the end; both are then clamped into [0, size] with
end >= start, so out-of-range bounds give a shorter or empty slice.
step must be positive. The result has (end - start + step - 1) / step
elements along dim, self's sizes elsewhere. LTC passes start and end as
`aten.IntImplicit` of 0-dim literals.
"""),
    "slice_scatter": verified("self with self[start:end:step] along dim replaced by src", """
start/end/step as in slice_copy.Tensor; src has the slice's shape (and is
converted to self's dtype); the result has self's type.
"""),
    "cat": verified("concatenation of a list of tensors along dim", """
`tensors` is a `torch.prim.ListConstruct` of vtensors (of different
shapes: see that op). All have the result's rank and its sizes except at
dim, where the sizes add up to the result's; 1-D empty tensors ([0]) are
skipped, as in ATen. Elements are converted to the result dtype (ATen's
promoted dtype).
"""),
    "stack": verified("the list's tensors stacked along a new dim", """
`tensors` is a `torch.prim.ListConstruct` of vtensors of one shape; the
result has that shape with a dim of size len(tensors) inserted at dim
(which wraps with rank + 1). Elements are converted to the result dtype.
"""),
    "index_select": verified("self's entries at the positions index along dim", """
index is a 0-d or 1-D si64/si32 tensor; the result has self's shape with
dim's size replaced by index's number of elements. An index outside
[0, size) is a runtime check failure ("index out of range in self").
(The backward, index_add, has no lazy kernel in torch 1.13.)
"""),
    "embedding": verified("rows of weight [V, D] at indices: result indices.shape + [D]", """
indices is an si64/si32 tensor of any shape. An index outside [0, V) is
a runtime check failure ("index out of range in self"). padding_idx,
scale_grad_by_freq and sparse only matter for the backward.
"""),
    "embedding_dense_backward": verified(
        "[num_weights, D] sums of the grad_output rows per index", """
grad_output has indices.shape + [D]; rows whose index equals padding_idx
contribute nothing. With scale_grad_by_freq each row is divided by the
number of occurrences of its index.
"""),

    # Reductions.
    "sum": OpSpec(summary="sum of all elements (0-dim result)"),
    "sum.dim_IntList": OpSpec(
        summary="sum over dims (None or [] = all), optionally keeping them"),
    "mean": OpSpec(summary="mean of all elements (0-dim result)"),
    "mean.dim": OpSpec(summary="mean over dims, optionally keeping them"),
    "cumsum": OpSpec(summary="inclusive prefix sum along dim"),

    # Softmax family, normalization and losses.
    "_log_softmax": OpSpec(summary="log(softmax(self, dim))"),
    "_log_softmax_backward_data": OpSpec(
        summary="grad_output - exp(output) * sum(grad_output, dim)"),
    "_softmax": OpSpec(summary="softmax(self, dim)"),
    "_softmax_backward_data": OpSpec(
        summary="output * (grad_output - sum(grad_output * output, dim))"),
    "native_layer_norm": verified(
        "layer norm over the trailing normalized_shape dims; (out, mean, rstd)", """
`input` ends with the dims `normalized_shape` (a list of int constants);
weight and bias (optional) have that shape. mean and rstd =
1 / sqrt(biased var + eps) have input's leading dims followed by one
size-1 dim per normalized dim.
""", results=("out", "mean", "rstd")),
    "native_layer_norm_backward": verified(
        "gradients of native_layer_norm: (grad_input, grad_weight, grad_bias)", """
mean and rstd are the forward's statistics. output_mask (a list of three
bool constants) says which gradients are wanted; an unwanted one is an
undefined tensor in ATen and is returned as zeros (of whatever shape LTC
gives it) here.
""", results=("grad_input", "grad_weight", "grad_bias")),
    # Convolution family (Convolution.cpp, Padding.cpp).
    "convolution": OpSpec(
        summary="1-D to 3-D convolution, transposed or not, with groups",
        description="""
input [N, C, S...]; weight [F, C / groups, K...] or, when `transposed`,
[C, F / groups, K...]; bias None or [F]. stride, padding, dilation and
output_padding (transposed only) are int lists with one value per spatial
dim; `padding="same"` with an even kernel arrives as a constant_pad_nd of
the input.
"""),
    "convolution_backward": OpSpec(
        summary="gradients of convolution: (grad_input, grad_weight, grad_bias)",
        description="""
Parameters as in convolution; bias_sizes is [F] or None. output_mask (three
bool constants) says which gradients are wanted; an unwanted one is an
undefined tensor in ATen, typed [] or [0] by LTC, and returned as zeros here.
""", results=("grad_input", "grad_weight", "grad_bias")),
    "constant_pad_nd": OpSpec(
        summary="pads (or crops, with negative pads) the trailing dims with value",
        description="""
pad is [before_last, after_last, before_second_last, ...], at most two
entries per dim; negative entries remove elements.
"""),
    "native_batch_norm": OpSpec(
        summary="batch norm over dim 1 of [N, C, ...]; (output, save_mean, save_invstd)",
        description="""
training: statistics of the batch (mean, 1 / sqrt(biased var + eps) per
channel); eval: running_mean/running_var. On value tensors the op never
updates the running statistics (in training they are not read). Eager CPU
returns empty save_mean/save_invstd in eval.
""", results=("output", "save_mean", "save_invstd")),
    "native_batch_norm_backward": OpSpec(
        summary="gradients of native_batch_norm: (grad_input, grad_weight, grad_bias)",
        description="""
train: uses save_mean/save_invstd; eval: running_mean/running_var.
output_mask (three bool constants) says which gradients are wanted; an
unwanted one is an undefined tensor in ATen and is returned as zeros here.
""", results=("grad_input", "grad_weight", "grad_bias")),
    "native_group_norm": OpSpec(
        summary="group norm of [N, C, ...] in `group` groups; (output, mean, rstd)",
        results=("output", "mean", "rstd")),
    "native_group_norm_backward": OpSpec(
        summary="gradients of native_group_norm: (grad_input, grad_weight, grad_bias)",
        results=("grad_input", "grad_weight", "grad_bias")),
    "nll_loss_forward": OpSpec(
        summary="negative log likelihood; returns (output, total_weight)",
        description="""
`self` is [N,C] (or [C]) log-probabilities, `target` [N] (or []) class
indices (si64). reduction: 0 none, 1 mean, 2 sum. Targets equal to
ignore_index contribute nothing.
"""),
    "nll_loss_backward": OpSpec(
        summary="gradient of nll_loss_forward with respect to self"),

    # Pooling and upsampling (Pooling.cpp, AdaptivePooling.cpp, Upsample.cpp).
    "max_pool2d_with_indices": OpSpec(
        summary="max pooling over [N,]C,H,W; returns (values, indices)",
        description="""
indices (si64) are flat positions in the input plane (h * W + w). Padding
never wins, the first maximum of a window wins and a NaN always replaces
the current maximum (ATen's CPU kernel).
""", results=("values", "indices")),
    "max_pool2d_with_indices_backward": OpSpec(
        summary="gradient of max_pool2d_with_indices: grad_output summed at indices"),
    "max_pool3d_with_indices": OpSpec(
        summary="max pooling over [N,]C,D,H,W; returns (values, indices)",
        results=("values", "indices")),
    "max_pool3d_with_indices_backward": OpSpec(
        summary="gradient of max_pool3d_with_indices: grad_output summed at indices"),
    "avg_pool2d": OpSpec(summary="average pooling over [N,]C,H,W"),
    "avg_pool2d_backward": OpSpec(summary="gradient of avg_pool2d"),
    "avg_pool3d": OpSpec(summary="average pooling over [N,]C,D,H,W"),
    "avg_pool3d_backward": OpSpec(summary="gradient of avg_pool3d"),
    "_adaptive_avg_pool2d": OpSpec(
        summary="average over bins [floor(i*in/out), ceil((i+1)*in/out)) per dim"),
    "_adaptive_avg_pool2d_backward": OpSpec(summary="gradient of _adaptive_avg_pool2d"),
    "_adaptive_avg_pool3d": OpSpec(
        summary="average over bins [floor(i*in/out), ceil((i+1)*in/out)) per dim"),
    "_adaptive_avg_pool3d_backward": OpSpec(summary="gradient of _adaptive_avg_pool3d"),
    "adaptive_max_pool2d": OpSpec(
        summary="max over adaptive bins; returns (values, indices)",
        results=("values", "indices")),
    "adaptive_max_pool2d_backward": OpSpec(summary="gradient of adaptive_max_pool2d"),
    "adaptive_max_pool3d": OpSpec(
        summary="max over adaptive bins; returns (values, indices)",
        results=("values", "indices")),
    "adaptive_max_pool3d_backward": OpSpec(summary="gradient of adaptive_max_pool3d"),
    "upsample_nearest1d": OpSpec(summary="nearest-neighbour upsampling of [N,C,W]"),
    "upsample_nearest1d_backward": OpSpec(summary="gradient of upsample_nearest1d"),
    "upsample_nearest2d": OpSpec(summary="nearest-neighbour upsampling of [N,C,H,W]"),
    "upsample_nearest2d_backward": OpSpec(summary="gradient of upsample_nearest2d"),
    "upsample_nearest3d": OpSpec(summary="nearest-neighbour upsampling of [N,C,D,H,W]"),
    "upsample_nearest3d_backward": OpSpec(summary="gradient of upsample_nearest3d"),
    "upsample_linear1d": OpSpec(summary="linear interpolation of [N,C,W]"),
    "upsample_linear1d_backward": OpSpec(summary="gradient of upsample_linear1d"),
    "upsample_bilinear2d": OpSpec(summary="bilinear interpolation of [N,C,H,W]"),
    "upsample_bilinear2d_backward": OpSpec(summary="gradient of upsample_bilinear2d"),
    "upsample_trilinear3d": OpSpec(summary="trilinear interpolation of [N,C,D,H,W]"),
    "upsample_trilinear3d_backward": OpSpec(summary="gradient of upsample_trilinear3d"),
    # Data movement.
    "repeat": OpSpec(summary="self tiled `repeats` times along each dim"),
    "flip": OpSpec(summary="self reversed along each of `dims`"),
}
