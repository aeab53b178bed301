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
    # Pointwise math (UnaryMath.cpp, BinaryMath.cpp, Division.cpp, Shrink.cpp,
    # SpecialFunctions.cpp).
    "reciprocal": elementwise("1 / self"),
    "ceil": elementwise("ceil(self) (integers: a copy)"),
    "floor": elementwise("floor(self) (integers: a copy)"),
    "trunc": elementwise("trunc(self) (integers: a copy)"),
    "frac": elementwise("self - trunc(self)"),
    "acos": elementwise("acos(self)"),
    "asin": elementwise("asin(self)"),
    "atan": elementwise("atan(self)"),
    "acosh": elementwise("acosh(self)"),
    "asinh": elementwise("asinh(self)"),
    "atanh": elementwise("atanh(self)"),
    "tan": elementwise("tan(self)"),
    "sinh": elementwise("sinh(self)"),
    "cosh": elementwise("cosh(self)"),
    "log1p": elementwise("log(1 + self)"),
    "log10": elementwise("log10(self)"),
    "log2": elementwise("log2(self)"),
    "exp2": elementwise("2 ** self"),
    "expm1": elementwise("exp(self) - 1"),
    "erfc": elementwise("1 - erf(self)"),
    "sinc": elementwise("sin(pi self) / (pi self), 1 at 0"),
    "sign": elementwise("-1, 0 or 1 (0 for NaN); bool: self"),
    "angle": elementwise("argument of self: pi for negatives, 0 otherwise, NaN kept"),
    "logit": elementwise("log(z / (1 - z)), z = self clamped to [eps, 1 - eps] if eps"),
    "logit_backward": elementwise("grad_output / (self (1 - self)) in the domain"),
    "nan_to_num": elementwise("NaN, +inf, -inf replaced (defaults 0, max, lowest)"),
    "isnan": elementwise("self != self (bool)"),
    "isinf": elementwise("|self| == inf (bool)"),
    "isposinf": elementwise("self == inf (bool)"),
    "isneginf": elementwise("self == -inf (bool)"),
    "isfinite": elementwise("not NaN nor infinite (bool)"),
    "signbit": elementwise("sign bit of self (bool; integers: self < 0)"),
    "atan2": elementwise("atan2(self, other)"),
    "hypot": elementwise("sqrt(self^2 + other^2) without overflow"),
    "copysign.Tensor": elementwise("|self| with the sign of other"),
    "copysign.Scalar": elementwise("|self| with the sign of other"),
    "logaddexp": elementwise("log(exp(self) + exp(other))"),
    "logaddexp2": elementwise("log2(2^self + 2^other)"),
    "xlogy.Tensor": elementwise("self * log(other), 0 where self == 0"),
    "xlogy.Scalar_Self": elementwise("self * log(other), 0 where self == 0"),
    "xlogy.Scalar_Other": elementwise("self * log(other), 0 where self == 0"),
    "special_xlog1py": elementwise("self * log1p(other), 0 where self == 0"),
    "special_xlog1py.self_scalar": elementwise("self * log1p(other), 0 where self == 0"),
    "special_xlog1py.other_scalar": elementwise("self * log1p(other), 0 where self == 0"),
    "fmax": elementwise("max ignoring NaN"),
    "fmin": elementwise("min ignoring NaN"),
    "heaviside": elementwise("self == 0 ? values : self > 0"),
    "lerp.Scalar": elementwise("self + weight * (end - self)"),
    "lerp.Tensor": elementwise("self + weight * (end - self)"),
    "clamp_min": elementwise("max(self, min) (NaN propagates)"),
    "clamp_min.Tensor": elementwise("max(self, min) (NaN propagates)"),
    "clamp_max": elementwise("min(self, max) (NaN propagates)"),
    "clamp_max.Tensor": elementwise("min(self, max) (NaN propagates)"),
    "clamp.Tensor": elementwise("min(max(self, min), max); a None bound is not applied"),
    "rsub.Tensor": elementwise("other - alpha * self"),
    "rsub.Scalar": elementwise("other - alpha * self"),
    "pow.Scalar": elementwise("self ** exponent (a number to tensor powers)"),
    "div.Tensor_mode": elementwise("self / other rounded as rounding_mode says"),
    "div.Scalar_mode": elementwise("self / other rounded as rounding_mode says"),
    "floor_divide": elementwise("floor(self / other)"),
    "floor_divide.Scalar": elementwise("floor(self / other)"),
    "remainder.Tensor": elementwise("self mod other, with the sign of other"),
    "remainder.Scalar": elementwise("self mod other, with the sign of other"),
    "fmod.Tensor": elementwise("C fmod: self mod other, with the sign of self"),
    "fmod.Scalar": elementwise("C fmod: self mod other, with the sign of self"),
    "bitwise_and.Tensor": elementwise("self & other (integers, bool)"),
    "bitwise_and.Scalar": elementwise("self & other (integers, bool)"),
    "bitwise_or.Tensor": elementwise("self | other (integers, bool)"),
    "bitwise_or.Scalar": elementwise("self | other (integers, bool)"),
    "bitwise_xor.Tensor": elementwise("self ^ other (integers, bool)"),
    "bitwise_xor.Scalar": elementwise("self ^ other (integers, bool)"),
    "threshold": elementwise("self <= threshold ? value : self"),
    "softshrink": elementwise("self shrunk towards 0 by lambd"),
    "softshrink_backward": elementwise("-lambd <= self <= lambd ? 0 : grad_output"),
    "hardshrink": elementwise("-lambd <= self <= lambd ? 0 : self"),
    "hardshrink_backward": elementwise("-lambd <= self <= lambd ? 0 : grad_out"),
    "log_sigmoid_forward": OpSpec(
        summary="log(sigmoid(self)) and the buffer exp(-|self|) of the backward"),
    "log_sigmoid_backward": elementwise("gradient of log_sigmoid from its buffer"),
    "glu": OpSpec(summary="a * sigmoid(b) of the two halves of self along dim"),
    "glu_backward": OpSpec(summary="gradient of glu"),
    "_prelu_kernel": OpSpec(summary="self > 0 ? self : weight * self (weight per channel, dim 1)"),
    "_prelu_kernel_backward": OpSpec(summary="gradients of _prelu_kernel for self and weight"),
    "lgamma": elementwise("log |gamma(self)|"),
    "digamma": elementwise("d/dx log gamma(self)"),
    "polygamma": elementwise("n-th derivative of digamma at self"),
    "erfinv": elementwise("inverse of erf"),
    "i0": elementwise("modified Bessel function of the first kind, order 0"),
    "special_i0e": elementwise("exp(-|self|) i0(self)"),
    "special_i1": elementwise("modified Bessel function of the first kind, order 1"),
    "special_i1e": elementwise("exp(-|self|) i1(self)"),
    "special_entr": elementwise("-self log(self) (0 at 0, -inf for negatives)"),
    "special_ndtri": elementwise("inverse of the standard normal CDF"),
    "special_log_ndtr": elementwise("log of the standard normal CDF"),
    "special_erfcx": elementwise("exp(self^2) erfc(self)"),
    "special_zeta": elementwise("Hurwitz zeta function zeta(self, other)"),
    "bitwise_left_shift.Tensor": elementwise("self << other (0 for shifts outside [0, bits))"),
    "bitwise_left_shift.Tensor_Scalar": elementwise("self << other"),
    "__lshift__.Tensor": elementwise("self << other"),
    "__lshift__.Scalar": elementwise("self << other"),
    "bitwise_right_shift.Tensor": elementwise("self >> other (sign-filling for signed types)"),
    "bitwise_right_shift.Tensor_Scalar": elementwise("self >> other"),
    "__rshift__.Tensor": elementwise("self >> other"),
    "__rshift__.Scalar": elementwise("self >> other"),
    "gcd": elementwise("greatest common divisor of |self| and |other|"),
    "lcm": elementwise("least common multiple of |self| and |other|"),
    "nextafter": elementwise("next float after self towards other"),
    "special_modified_bessel_i0": elementwise("modified Bessel function I0"),
    "special_modified_bessel_i1": elementwise("modified Bessel function I1"),
    "special_modified_bessel_k0": elementwise("modified Bessel function K0"),
    "special_modified_bessel_k1": elementwise("modified Bessel function K1"),
    "special_scaled_modified_bessel_k0": elementwise("exp(self) K0(self)"),
    "special_scaled_modified_bessel_k1": elementwise("exp(self) K1(self)"),
    "special_bessel_j0": elementwise("Bessel function of the first kind J0"),
    "special_bessel_j1": elementwise("Bessel function of the first kind J1"),
    "special_bessel_y0": elementwise("Bessel function of the second kind Y0"),
    "special_bessel_y1": elementwise("Bessel function of the second kind Y1"),
    "special_spherical_bessel_j0": elementwise("sin(self) / self"),
    "special_airy_ai": elementwise("Airy function Ai"),
    "special_chebyshev_polynomial_t": elementwise("Chebyshev polynomial T_n(x)"),
    "special_chebyshev_polynomial_u": elementwise("Chebyshev polynomial U_n(x)"),
    "special_chebyshev_polynomial_v": elementwise("Chebyshev polynomial V_n(x)"),
    "special_chebyshev_polynomial_w": elementwise("Chebyshev polynomial W_n(x)"),
    "special_shifted_chebyshev_polynomial_t": elementwise(
        "shifted Chebyshev polynomial T*_n(x)"),
    "special_shifted_chebyshev_polynomial_u": elementwise(
        "shifted Chebyshev polynomial U*_n(x)"),
    "special_shifted_chebyshev_polynomial_v": elementwise(
        "shifted Chebyshev polynomial V*_n(x)"),
    "special_shifted_chebyshev_polynomial_w": elementwise(
        "shifted Chebyshev polynomial W*_n(x)"),
    "special_hermite_polynomial_h": elementwise("physicists' Hermite polynomial H_n(x)"),
    "special_hermite_polynomial_he": elementwise("probabilists' Hermite polynomial He_n(x)"),
    "special_laguerre_polynomial_l": elementwise("Laguerre polynomial L_n(x)"),
    "special_legendre_polynomial_p": elementwise("Legendre polynomial P_n(x)"),
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
    "smooth_l1_loss": OpSpec(summary="smooth L1 loss with threshold beta, reduced"),
    "smooth_l1_loss_backward": OpSpec(summary="gradient of smooth_l1_loss"),
    "huber_loss": OpSpec(summary="Huber loss with threshold delta, reduced"),
    "huber_loss_backward": OpSpec(summary="gradient of huber_loss"),
    "binary_cross_entropy": OpSpec(summary="-w (t log(x) + (1 - t) log(1 - x)), logs clamped at -100"),
    "binary_cross_entropy_backward": OpSpec(summary="gradient of binary_cross_entropy"),
    "soft_margin_loss": OpSpec(summary="log(1 + exp(-target * self)), reduced"),
    "soft_margin_loss_backward": OpSpec(summary="gradient of soft_margin_loss"),
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
    "ScalarImplicit": OpSpec(summary="the value of a 0-dim tensor as a Scalar (int or float)"),

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
    # Advanced indexing with index tensors (AdvancedIndexing.cpp; verifiers in
    # AdvancedIndexingOps.cpp).
    "index.Tensor": verified("self[indices]: advanced indexing with index tensors", """
indices is a `torch.prim.ListConstruct` of at most rank(self) vtensors and
Nones (a `Tensor?[]`); element k indexes self's dim k, None (and every dim
past the list) keeps the whole dim. Integer index tensors broadcast
together; their broadcast shape replaces the indexed dims in the result,
where the first indexed dim was when the indexed dims are adjacent, else at
the front. Negative indices count from the end. An index outside
[-size, size) is a runtime check failure ("index ... is out of bounds for
dimension ..."). Bool/ui8 masks give data-dependent shapes (only the dtype
is verified then).
"""),
    "index_put": verified("self with self[indices] = values (or += with accumulate)", """
indices as in `aten.index.Tensor`; values has self's dtype and broadcasts
to the shape of self[indices]; the result has self's type. Without
accumulate, duplicate indices keep one of the values (the lowering writes in
row-major order, so the last one); with accumulate, values add up in
row-major order.
"""),
    "_index_put_impl": verified("index_put (unsafe only skips checks in ATen)", """
The functional form of `_index_put_impl_`, which index's backward calls with
accumulate=True; verified and lowered as `aten.index_put`.
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
    # Reflection / replication padding (Padding.cpp).
    "reflection_pad1d": OpSpec(summary="last 1 dim(s) padded, mirrored at the edges (edge not repeated)"),
    "reflection_pad1d_backward": OpSpec(summary="gradient of reflection_pad1d"),
    "reflection_pad2d": OpSpec(summary="last 2 dim(s) padded, mirrored at the edges (edge not repeated)"),
    "reflection_pad2d_backward": OpSpec(summary="gradient of reflection_pad2d"),
    "reflection_pad3d": OpSpec(summary="last 3 dim(s) padded, mirrored at the edges (edge not repeated)"),
    "reflection_pad3d_backward": OpSpec(summary="gradient of reflection_pad3d"),
    "replication_pad1d": OpSpec(summary="last 1 dim(s) padded, edge elements repeated"),
    "replication_pad1d_backward": OpSpec(summary="gradient of replication_pad1d"),
    "replication_pad2d": OpSpec(summary="last 2 dim(s) padded, edge elements repeated"),
    "replication_pad2d_backward": OpSpec(summary="gradient of replication_pad2d"),
    "replication_pad3d": OpSpec(summary="last 3 dim(s) padded, edge elements repeated"),
    "replication_pad3d_backward": OpSpec(summary="gradient of replication_pad3d"),
    # Random sampling (Random.cpp): counter-based bits, see docs/architecture.md.
    "bernoulli": OpSpec(summary="1 with probability self, else 0"),
    "bernoulli.p": OpSpec(summary="1 with probability p, else 0 (self's shape)"),
    "bernoulli.Tensor": OpSpec(summary="1 with probability p (broadcast), else 0"),
    "uniform": OpSpec(summary="uniform samples in [from, to) of self's shape"),
    "normal_functional": OpSpec(summary="normal samples (mean, std) of self's shape"),
    "normal.Tensor_float": OpSpec(summary="normal samples with tensor mean"),
    "normal.float_Tensor": OpSpec(summary="normal samples with tensor std"),
    "normal.Tensor_Tensor": OpSpec(summary="normal samples with tensor mean and std"),
    "exponential": OpSpec(summary="exponential samples with rate lambd"),
    "random": OpSpec(summary="random integers in [0, 2^mantissa or dtype max]"),
    "random.from": OpSpec(summary="random integers in [from, to)"),
    "random.to": OpSpec(summary="random integers in [0, to)"),
    # Data movement.
    "repeat": OpSpec(summary="self tiled `repeats` times along each dim"),
    "flip": OpSpec(summary="self reversed along each of `dims`"),

    # Reductions beyond sum/mean (Reduction.cpp, MinMax.cpp, Variance.cpp,
    # Norms.cpp). Max/min pick the first index of the extreme value (NaN
    # counts as the extreme and propagates), as ATen's CPU kernels.
    "amax": OpSpec(summary="max over dims ([] = all), NaN propagates"),
    "amin": OpSpec(summary="min over dims ([] = all), NaN propagates"),
    "aminmax": OpSpec(summary="(amin, amax) over dim (None = all)"),
    "max": OpSpec(summary="max of all elements (0-dim), NaN propagates"),
    "min": OpSpec(summary="min of all elements (0-dim), NaN propagates"),
    "max.dim": OpSpec(summary="(values, indices) of the max along dim (first index)"),
    "min.dim": OpSpec(summary="(values, indices) of the min along dim (first index)"),
    "argmax": OpSpec(summary="first index of the max along dim (None: flattened)"),
    "argmin": OpSpec(summary="first index of the min along dim (None: flattened)"),
    "any": OpSpec(summary="any element nonzero (bool; ui8 for ui8 input)"),
    "any.dim": OpSpec(summary="any element nonzero along dim"),
    "all": OpSpec(summary="every element nonzero (bool; ui8 for ui8 input)"),
    "all.dim": OpSpec(summary="every element nonzero along dim"),
    "prod": OpSpec(summary="product of all elements"),
    "prod.dim_int": OpSpec(summary="product along dim"),
    "nansum": OpSpec(summary="sum over dims treating NaN as zero"),
    "count_nonzero.dim_IntList": OpSpec(summary="number of nonzero elements over dims (int64)"),
    "var.correction": OpSpec(summary="sum((x - mean)^2) / max(0, N - correction) over dims"),
    "std.correction": OpSpec(summary="sqrt of var.correction"),
    "var_mean.correction": OpSpec(summary="(var.correction, mean) over dims"),
    "std_mean.correction": OpSpec(summary="(std.correction, mean) over dims"),
    "var.dim": OpSpec(summary="var.correction with correction = unbiased ? 1 : 0"),
    "std.dim": OpSpec(summary="std.correction with correction = unbiased ? 1 : 0"),
    "var_mean.dim": OpSpec(summary="var_mean.correction with correction = unbiased ? 1 : 0"),
    "std_mean.dim": OpSpec(summary="std_mean.correction with correction = unbiased ? 1 : 0"),
    "linalg_vector_norm": OpSpec(summary="vector ord-norm over dims (None = all)"),
    "norm.ScalarOpt_dim": OpSpec(summary="p-norm over dims (p None = 2)"),
    "norm.Scalar": OpSpec(summary="p-norm of all elements"),
    "norm.ScalarOpt_dim_dtype": OpSpec(summary="p-norm over dims, computed in dtype"),
    "norm.ScalarOpt_dtype": OpSpec(summary="p-norm of all elements, computed in dtype"),
    # Gathers and scatters along a dim (Gather.cpp, Scatter.cpp).
    "gather": OpSpec(summary="result[..i..] = self[..index[..i..] at dim..]"),
    "scatter.src": OpSpec(summary="self with self[..index[i] at dim..] = src[i]"),
    "scatter.value": OpSpec(summary="self with self[..index[i] at dim..] = value"),
    "scatter.reduce": OpSpec(summary="scatter.src combined by add or multiply"),
    "scatter.value_reduce": OpSpec(summary="scatter.value combined by add or multiply"),
    "scatter_add": OpSpec(summary="self with src added at index along dim"),
    "scatter_reduce.two": OpSpec(summary="src reduced into self at index along dim"),
    "take": OpSpec(summary="flat(self)[index] (negative indices wrap)"),
    "index_add": OpSpec(summary="self with alpha * source added at index along dim"),
    "index_copy": OpSpec(summary="self with source copied to index along dim"),
    "index_fill.int_Scalar": OpSpec(summary="self with value at index along dim"),
    "index_fill.int_Tensor": OpSpec(summary="self with the 0-dim value at index along dim"),
    # Triangles, diagonals, products of matrices and vectors.
    "tril": OpSpec(summary="self with elements above the diagonal zeroed"),
    "triu": OpSpec(summary="self with elements below the diagonal zeroed"),
    "diag": OpSpec(summary="diagonal of a matrix, or a matrix from a vector"),
    "trace": OpSpec(summary="sum of the main diagonal of a matrix"),
    "dot": OpSpec(summary="inner product of two 1-D tensors"),
    "vdot": OpSpec(summary="inner product of two 1-D tensors (conj of self)"),
    "mv": OpSpec(summary="matrix [N,M] x vector [M]"),
    "addmv": OpSpec(summary="beta * self + alpha * mat x vec"),
    "addbmm": OpSpec(summary="beta * self + alpha * sum_b batch1[b] x batch2[b]"),
    "baddbmm": OpSpec(summary="beta * self + alpha * batch1 x batch2"),
    "linalg_cross": OpSpec(summary="cross product of 3-vectors along dim"),
    # Scans, rolls and sorting.
    "cumprod": OpSpec(summary="inclusive prefix product along dim"),
    "_logcumsumexp": OpSpec(summary="log of the inclusive prefix sum of exp along dim"),
    "roll": OpSpec(summary="self rotated by shifts along dims"),
    "sort": OpSpec(summary="(values, indices) sorted along dim"),
    "sort.stable": OpSpec(summary="(values, indices) sorted along dim (stable)"),
    "topk": OpSpec(summary="(values, indices) of the k largest (smallest) along dim"),
}
