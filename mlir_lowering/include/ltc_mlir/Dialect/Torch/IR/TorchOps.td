//===- TorchOps.td - torch dialect operations --------------*- tablegen -*-===//
//
// Op names follow the ATen schema: `torch.aten.<name>[.<overload>]`, operand
// names follow the schema's argument names (so `getSelf()`, `getAlpha()`...).
// ltc_backend emits these ops from the TorchScript graph LTC builds, using the
// node's schema name and overload; an op missing here is reported as
// unsupported and the graph falls back.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_TORCH_OPS
#define LTC_MLIR_TORCH_OPS

include "ltc_mlir/Dialect/Torch/IR/TorchTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Constants and lists
//===----------------------------------------------------------------------===//

def Torch_ConstantIntOp : Torch_Op<"constant.int", [ConstantLike, Pure]> {
  let summary = "TorchScript int constant";
  let arguments = (ins I64Attr:$value);
  let results = (outs Torch_Int:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}
def Torch_ConstantFloatOp : Torch_Op<"constant.float", [ConstantLike, Pure]> {
  let summary = "TorchScript float constant";
  let arguments = (ins F64Attr:$value);
  let results = (outs Torch_Float:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}
def Torch_ConstantBoolOp : Torch_Op<"constant.bool", [ConstantLike, Pure]> {
  let summary = "TorchScript bool constant";
  let arguments = (ins BoolAttr:$value);
  let results = (outs Torch_Bool:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}
def Torch_ConstantNoneOp : Torch_Op<"constant.none", [ConstantLike, Pure]> {
  let summary = "TorchScript None";
  let arguments = (ins);
  let results = (outs Torch_None:$result);
  let assemblyFormat = "attr-dict";
  let hasFolder = 1;
}
def Torch_ConstantStrOp : Torch_Op<"constant.str", [ConstantLike, Pure]> {
  let summary = "TorchScript str constant";
  let arguments = (ins StrAttr:$value);
  let results = (outs Torch_Str:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}
def Torch_PrimListConstructOp : Torch_Op<"prim.ListConstruct", [Pure]> {
  let summary = "builds a list; every element has the list's element type";
  let description = [{
    Lists of ints, floats, bools and None hold elements of exactly the list's
    element type. A list of tensors (`Tensor[]`, e.g. the operand of
    `aten.cat`) holds tensors of *different* shapes and possibly dtypes, which
    one static element type cannot describe: when the element type is a
    vtensor type it is only a representative (ltc_backend prints the first
    element's type, `!torch.list<vtensor<[3,2],f32>>`), every element must be
    a vtensor of any shape and dtype, and the ops taking the list (cat)
    verify the elements themselves. (A shape-less `!torch.list<vtensor>`
    would need a vtensor type without sizes, which every op verifier and
    pattern would have to reject; the representative keeps the type system
    static.)
  }];
  let arguments = (ins Variadic<AnyType>:$elements);
  let results = (outs Torch_List:$result);
  let assemblyFormat = "$elements attr-dict `:` functional-type($elements, $result)";
  let hasVerifier = 1;
}

def Torch_ValueTensorLiteralOp : Torch_Op<"vtensor.literal", [ConstantLike, Pure]> {
  let summary = "tensor constant";
  let description = [{
    A tensor embedded in the graph, e.g. the 0-dim `1.0` LTC creates as the
    seed of backward. `value` is a dense elements attribute of the builtin
    tensor type that the result converts to (signless integers):
    `%0 = torch.vtensor.literal(dense<1.0> : tensor<f32>) : !torch.vtensor<[],f32>`.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Torch_VTensor:$result);
  let assemblyFormat = "`(` $value `)` attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// ATen ops
//===----------------------------------------------------------------------===//

class Torch_AtenOp<string mnemonic, list<Trait> traits = []>
    : Torch_Op<"aten." # mnemonic, !listconcat([Pure], traits)> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

// Elementwise ops with ATen broadcasting; the result dtype comes from LTC.
class Torch_ElementwiseOp<string mnemonic> : Torch_AtenOp<mnemonic> {
  let hasVerifier = 1;
  // One shared check: every tensor operand broadcasts to the result shape.
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::ltc_mlir::torch::verifyElementwiseOp(getOperation());
    }
  }];
}
class Torch_UnaryOp<string mnemonic> : Torch_ElementwiseOp<mnemonic> {
  let arguments = (ins Torch_VTensor:$self);
  let results = (outs Torch_VTensor:$result);
}
class Torch_BinaryOp<string mnemonic> : Torch_ElementwiseOp<mnemonic> {
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$other);
  let results = (outs Torch_VTensor:$result);
}
class Torch_BinaryAlphaOp<string mnemonic> : Torch_ElementwiseOp<mnemonic> {
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$other, Torch_Scalar:$alpha);
  let results = (outs Torch_VTensor:$result);
}
class Torch_BinaryScalarOp<string mnemonic> : Torch_ElementwiseOp<mnemonic> {
  let arguments = (ins Torch_VTensor:$self, Torch_Scalar:$other);
  let results = (outs Torch_VTensor:$result);
}
class Torch_BinaryScalarAlphaOp<string mnemonic> : Torch_ElementwiseOp<mnemonic> {
  let arguments = (ins Torch_VTensor:$self, Torch_Scalar:$other, Torch_Scalar:$alpha);
  let results = (outs Torch_VTensor:$result);
}

def Torch_AtenAddTensorOp : Torch_BinaryAlphaOp<"add.Tensor"> { let summary = "self + alpha * other"; }
def Torch_AtenSubTensorOp : Torch_BinaryAlphaOp<"sub.Tensor"> { let summary = "self - alpha * other"; }
def Torch_AtenMulTensorOp : Torch_BinaryOp<"mul.Tensor"> { let summary = "self * other"; }
def Torch_AtenDivTensorOp : Torch_BinaryOp<"div.Tensor"> { let summary = "self / other (true division)"; }
def Torch_AtenMaximumOp : Torch_BinaryOp<"maximum"> { let summary = "elementwise max"; }
def Torch_AtenMinimumOp : Torch_BinaryOp<"minimum"> { let summary = "elementwise min"; }
def Torch_AtenAddScalarOp : Torch_BinaryScalarAlphaOp<"add.Scalar"> { let summary = "self + alpha * other"; }
def Torch_AtenSubScalarOp : Torch_BinaryScalarAlphaOp<"sub.Scalar"> { let summary = "self - alpha * other"; }
def Torch_AtenMulScalarOp : Torch_BinaryScalarOp<"mul.Scalar"> { let summary = "self * other"; }
def Torch_AtenDivScalarOp : Torch_BinaryScalarOp<"div.Scalar"> { let summary = "self / other"; }
def Torch_AtenPowTensorScalarOp : Torch_ElementwiseOp<"pow.Tensor_Scalar"> {
  let summary = "self ** exponent";
  let arguments = (ins Torch_VTensor:$self, Torch_Scalar:$exponent);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenPowTensorTensorOp : Torch_ElementwiseOp<"pow.Tensor_Tensor"> {
  let summary = "self ** exponent";
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$exponent);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenAddcmulOp : Torch_ElementwiseOp<"addcmul"> {
  let summary = "self + value * tensor1 * tensor2 (Adam's second moment)";
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$tensor1,
                       Torch_VTensor:$tensor2, Torch_Scalar:$value);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenAddcdivOp : Torch_ElementwiseOp<"addcdiv"> {
  let summary = "self + value * tensor1 / tensor2 (Adam's update)";
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$tensor1,
                       Torch_VTensor:$tensor2, Torch_Scalar:$value);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenNegOp : Torch_UnaryOp<"neg"> { let summary = "-self"; }
def Torch_AtenReluOp : Torch_UnaryOp<"relu"> { let summary = "max(self, 0)"; }
def Torch_AtenExpOp : Torch_UnaryOp<"exp"> { let summary = "exp(self)"; }
def Torch_AtenLogOp : Torch_UnaryOp<"log"> { let summary = "log(self)"; }
def Torch_AtenTanhOp : Torch_UnaryOp<"tanh"> { let summary = "tanh(self)"; }
def Torch_AtenSigmoidOp : Torch_UnaryOp<"sigmoid"> { let summary = "1 / (1 + exp(-self))"; }
def Torch_AtenSqrtOp : Torch_UnaryOp<"sqrt"> { let summary = "sqrt(self)"; }
def Torch_AtenRsqrtOp : Torch_UnaryOp<"rsqrt"> { let summary = "1 / sqrt(self)"; }
def Torch_AtenAbsOp : Torch_UnaryOp<"abs"> { let summary = "|self|"; }
def Torch_AtenSgnOp : Torch_UnaryOp<"sgn"> {
  let summary = "sign of self: -1, 0 or 1 (0 for NaN and -0.0; backward of abs)";
}
def Torch_AtenThresholdBackwardOp : Torch_ElementwiseOp<"threshold_backward"> {
  let summary = "self <= threshold ? 0 : grad_output";
  let arguments = (ins Torch_VTensor:$grad_output, Torch_VTensor:$self, Torch_Scalar:$threshold);
  let results = (outs Torch_VTensor:$result);
}

def Torch_AtenCosOp : Torch_UnaryOp<"cos"> { let summary = "cos(self)"; }
def Torch_AtenTanhBackwardOp : Torch_ElementwiseOp<"tanh_backward"> {
  let summary = "grad_output * (1 - output * output)";
  let arguments = (ins Torch_VTensor:$grad_output, Torch_VTensor:$output);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenSigmoidBackwardOp : Torch_ElementwiseOp<"sigmoid_backward"> {
  let summary = "grad_output * (1 - output) * output";
  let arguments = (ins Torch_VTensor:$grad_output, Torch_VTensor:$output);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenGeluOp : Torch_ElementwiseOp<"gelu"> {
  let summary = "x * Phi(x); approximate is \"none\" (erf) or \"tanh\"";
  let arguments = (ins Torch_VTensor:$self, Torch_Str:$approximate);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenGeluBackwardOp : Torch_ElementwiseOp<"gelu_backward"> {
  let summary = "grad_output * d gelu(self) / d self";
  let arguments = (ins Torch_VTensor:$grad_output, Torch_VTensor:$self,
                       Torch_Str:$approximate);
  let results = (outs Torch_VTensor:$result);
}

// A `Scalar?` argument of an ATen schema.
def Torch_OptionalScalar : AnyTypeOf<[Torch_Int, Torch_Float, Torch_None],
                                     "torch scalar (int or float) or none">;

def Torch_AtenClampOp : Torch_AtenOp<"clamp"> {
  let summary = "min(max(self, min), max); a None bound is not applied";
  let description = [{
    NaN in self propagates. At least one of min and max must not be None.
    The result dtype (from LTC) is self's dtype, or the promoted dtype of an
    integer self with float bounds; bounds are converted to it.
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_OptionalScalar:$min,
                       Torch_OptionalScalar:$max);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}

// Comparisons: elementwise with ATen broadcasting and a bool (i1) result.
// The operands are compared in their promoted dtype (ATen's result_type over
// self and other), not in the result dtype.
class Torch_ComparisonOp<string mnemonic> : Torch_AtenOp<mnemonic> {
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::ltc_mlir::torch::verifyComparisonOp(getOperation());
    }
  }];
}
class Torch_ComparisonTensorOp<string mnemonic> : Torch_ComparisonOp<mnemonic> {
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$other);
}
class Torch_ComparisonScalarOp<string mnemonic> : Torch_ComparisonOp<mnemonic> {
  let arguments = (ins Torch_VTensor:$self, Torch_Scalar:$other);
}
def Torch_AtenGtTensorOp : Torch_ComparisonTensorOp<"gt.Tensor"> { let summary = "self > other"; }
def Torch_AtenLtTensorOp : Torch_ComparisonTensorOp<"lt.Tensor"> { let summary = "self < other"; }
def Torch_AtenGeTensorOp : Torch_ComparisonTensorOp<"ge.Tensor"> { let summary = "self >= other"; }
def Torch_AtenLeTensorOp : Torch_ComparisonTensorOp<"le.Tensor"> { let summary = "self <= other"; }
def Torch_AtenEqTensorOp : Torch_ComparisonTensorOp<"eq.Tensor"> { let summary = "self == other"; }
def Torch_AtenNeTensorOp : Torch_ComparisonTensorOp<"ne.Tensor"> { let summary = "self != other"; }
def Torch_AtenGtScalarOp : Torch_ComparisonScalarOp<"gt.Scalar"> { let summary = "self > other"; }
def Torch_AtenLtScalarOp : Torch_ComparisonScalarOp<"lt.Scalar"> { let summary = "self < other"; }
def Torch_AtenGeScalarOp : Torch_ComparisonScalarOp<"ge.Scalar"> { let summary = "self >= other"; }
def Torch_AtenLeScalarOp : Torch_ComparisonScalarOp<"le.Scalar"> { let summary = "self <= other"; }
def Torch_AtenEqScalarOp : Torch_ComparisonScalarOp<"eq.Scalar"> { let summary = "self == other"; }
def Torch_AtenNeScalarOp : Torch_ComparisonScalarOp<"ne.Scalar"> { let summary = "self != other"; }

def Torch_AtenWhereSelfOp : Torch_ElementwiseOp<"where.self"> {
  let summary = "condition ? self : other, all three broadcast together";
  let description = [{
    `condition` is bool (or, deprecated, ui8: nonzero is true). self and
    other are converted to the result dtype (their promoted dtype).
  }];
  let arguments = (ins Torch_VTensor:$condition, Torch_VTensor:$self,
                       Torch_VTensor:$other);
  let results = (outs Torch_VTensor:$result);
}

// Constructors that only keep the shape of their input.
def Torch_AtenZeroOp : Torch_AtenOp<"zero"> {
  let summary = "zeros shaped like self (functional zero_)";
  let arguments = (ins Torch_VTensor:$self);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenFillScalarOp : Torch_AtenOp<"fill.Scalar"> {
  let summary = "value, shaped like self (functional fill_)";
  let arguments = (ins Torch_VTensor:$self, Torch_Scalar:$value);
  let results = (outs Torch_VTensor:$result);
}

def Torch_AtenIntImplicitOp : Torch_AtenOp<"IntImplicit"> {
  let summary = "the value of a 0-dim integer tensor as an int";
  let description = [{
    TorchScript's implicit tensor -> int conversion (e.g. of a storage
    offset held in a 0-dim tensor). Folds when `a` is a literal.
  }];
  let arguments = (ins Torch_VTensor:$a);
  let results = (outs Torch_Int:$result);
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Torch_AtenMmOp : Torch_AtenOp<"mm"> {
  let summary = "matrix product [M,K] x [K,N] -> [M,N]";
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$mat2);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenBmmOp : Torch_AtenOp<"bmm"> {
  let summary = "batched matrix product [B,M,K] x [B,K,N] -> [B,M,N]";
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$mat2);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenAddmmOp : Torch_AtenOp<"addmm"> {
  let summary = "beta * self + alpha * (mat1 x mat2), self broadcast to [M,N]";
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$mat1, Torch_VTensor:$mat2,
                       Torch_Scalar:$beta, Torch_Scalar:$alpha);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement (LTC functionalizes views into *_copy ops)
//===----------------------------------------------------------------------===//

def Torch_AtenTCopyOp : Torch_AtenOp<"t_copy"> {
  let summary = "transpose of a tensor of rank <= 2";
  let arguments = (ins Torch_VTensor:$self);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenTransposeCopyIntOp : Torch_AtenOp<"transpose_copy.int"> {
  let summary = "swaps dims dim0 and dim1";
  let arguments = (ins Torch_VTensor:$self, Torch_Int:$dim0, Torch_Int:$dim1);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenPermuteCopyOp : Torch_AtenOp<"permute_copy"> {
  let summary = "permutes dims";
  let arguments = (ins Torch_VTensor:$self, Torch_List:$dims);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenViewCopyOp : Torch_AtenOp<"view_copy"> {
  let summary = "reshape of a contiguous tensor (one size may be -1)";
  let arguments = (ins Torch_VTensor:$self, Torch_List:$size);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenExpandCopyOp : Torch_AtenOp<"expand_copy"> {
  let summary = "broadcast to size (-1 keeps a dim)";
  let arguments = (ins Torch_VTensor:$self, Torch_List:$size, Torch_Bool:$implicit);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenUnsqueezeCopyOp : Torch_AtenOp<"unsqueeze_copy"> {
  let summary = "inserts a size-1 dim";
  let arguments = (ins Torch_VTensor:$self, Torch_Int:$dim);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenSqueezeCopyOp : Torch_AtenOp<"squeeze_copy"> {
  let summary = "removes every size-1 dim";
  let arguments = (ins Torch_VTensor:$self);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenSqueezeCopyDimOp : Torch_AtenOp<"squeeze_copy.dim"> {
  let summary = "removes dim if its size is 1 (else the identity)";
  let arguments = (ins Torch_VTensor:$self, Torch_Int:$dim);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenAsStridedCopyOp : Torch_AtenOp<"as_strided_copy"> {
  let summary = "the view of self's elements with sizes, strides and offset";
  let description = [{
    result[i_0, ..., i_n] = flat(self)[storage_offset + sum_k i_k * stride_k],
    where flat(self) is self in row-major order (LTC tensors are contiguous
    with storage offset 0, the offset used when storage_offset is None).
    Autograd emits it when accumulating gradients, typically with the
    contiguous strides of the result and
    `storage_offset = IntImplicit(vtensor.literal 0)`.
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_List:$size, Torch_List:$stride,
                       Torch_OptionalInt:$storage_offset);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenAsStridedScatterOp : Torch_AtenOp<"as_strided_scatter"> {
  let summary = "self with the strided view of its elements replaced by src";
  let description = [{
    flat(result)[storage_offset + sum_k i_k * stride_k] = src[i_0, ..., i_n]
    (converted to self's dtype), every other element is self's; src has the
    shape `size`. as_strided's backward emits it into zeros, and an in-place
    write into an as_strided view becomes one.
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$src, Torch_List:$size,
                       Torch_List:$stride, Torch_OptionalInt:$storage_offset);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}

// Indexing and concatenation. Tensor indexing (x[1:5:2], x[:, 1], x[..., -1])
// produces slice_copy.Tensor/select_copy.int; their backward writes the
// gradient into zeros with slice_scatter/select_scatter. cat's backward is
// slice_copy. dims wrap like ATen's maybe_wrap_dim.
def Torch_AtenDiagonalCopyOp : Torch_AtenOp<"diagonal_copy"> {
  let summary = "the diagonal of self in dims dim1 and dim2, moved last";
  let description = [{
    result[..., i] = self[..., dim1 = i + max(0, -offset), ...,
                          dim2 = i + max(0, offset), ...]: dim1 and dim2 are
    removed and the diagonal (of length min(size1, size2 - offset) for
    offset >= 0, min(size1 + offset, size2) below, at least 0) is the last
    dim. dims wrap like ATen's maybe_wrap_dim.
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_Int:$offset, Torch_Int:$dim1,
                       Torch_Int:$dim2);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenDiagonalScatterOp : Torch_AtenOp<"diagonal_scatter"> {
  let summary = "self with its diagonal (see diagonal_copy) replaced by src";
  let description = [{
    src has diagonal_copy's result shape (and is converted to self's
    dtype); the result has self's type. x.diagonal().mul_(2) on lazy
    tensors writes back with it.
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$src, Torch_Int:$offset,
                       Torch_Int:$dim1, Torch_Int:$dim2);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenSelectCopyIntOp : Torch_AtenOp<"select_copy.int"> {
  let summary = "self[..., index, ...] at dim: the dim is removed";
  let description = [{
    index may be negative (counts from the end) and must be in
    [-size, size) of dim. The result is self's shape without dim.
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_Int:$dim, Torch_Int:$index);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenSelectScatterOp : Torch_AtenOp<"select_scatter"> {
  let summary = "self with self.select(dim, index) replaced by src";
  let description = [{
    src has self's shape without dim (and is converted to self's dtype);
    the result has self's type.
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$src, Torch_Int:$dim,
                       Torch_Int:$index);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenSliceCopyTensorOp : Torch_AtenOp<"slice_copy.Tensor"> {
  let summary = "self[start:end:step] along dim";
  let description = [{
    ATen's slice: start defaults to 0 and end to INT64_MAX (None); negative
    values count from the end; both are then clamped into [0, size] with
    end >= start, so out-of-range bounds give a shorter or empty slice.
    step must be positive. The result has (end - start + step - 1) / step
    elements along dim, self's sizes elsewhere. LTC passes start and end as
    `aten.IntImplicit` of 0-dim literals.
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_Int:$dim,
                       Torch_OptionalInt:$start, Torch_OptionalInt:$end,
                       Torch_Int:$step);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenSliceScatterOp : Torch_AtenOp<"slice_scatter"> {
  let summary = "self with self[start:end:step] along dim replaced by src";
  let description = [{
    start/end/step as in slice_copy.Tensor; src has the slice's shape (and is
    converted to self's dtype); the result has self's type.
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$src, Torch_Int:$dim,
                       Torch_OptionalInt:$start, Torch_OptionalInt:$end,
                       Torch_Int:$step);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenCatOp : Torch_AtenOp<"cat"> {
  let summary = "concatenation of a list of tensors along dim";
  let description = [{
    `tensors` is a `torch.prim.ListConstruct` of vtensors (of different
    shapes: see that op). All have the result's rank and its sizes except at
    dim, where the sizes add up to the result's; 1-D empty tensors ([0]) are
    skipped, as in ATen. Elements are converted to the result dtype (ATen's
    promoted dtype).
  }];
  let arguments = (ins Torch_List:$tensors, Torch_Int:$dim);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenStackOp : Torch_AtenOp<"stack"> {
  let summary = "the list's tensors stacked along a new dim";
  let description = [{
    `tensors` is a `torch.prim.ListConstruct` of vtensors of one shape; the
    result has that shape with a dim of size len(tensors) inserted at dim
    (which wraps with rank + 1). Elements are converted to the result dtype.
  }];
  let arguments = (ins Torch_List:$tensors, Torch_Int:$dim);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenIndexSelectOp : Torch_AtenOp<"index_select"> {
  let summary = "self's entries at the positions index along dim";
  let description = [{
    index is a 0-d or 1-D si64/si32 tensor; the result has self's shape with
    dim's size replaced by index's number of elements. An index outside
    [0, size) is a runtime check failure ("index out of range in self").
    (The backward, index_add, has no lazy kernel in torch 1.13.)
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_Int:$dim, Torch_VTensor:$index);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenEmbeddingOp : Torch_AtenOp<"embedding"> {
  let summary = "rows of weight [V, D] at indices: result indices.shape + [D]";
  let description = [{
    indices is an si64/si32 tensor of any shape. An index outside [0, V) is
    a runtime check failure ("index out of range in self"). padding_idx,
    scale_grad_by_freq and sparse only matter for the backward.
  }];
  let arguments = (ins Torch_VTensor:$weight, Torch_VTensor:$indices,
                       Torch_Int:$padding_idx, Torch_Bool:$scale_grad_by_freq,
                       Torch_Bool:$sparse);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenEmbeddingDenseBackwardOp : Torch_AtenOp<"embedding_dense_backward"> {
  let summary = "[num_weights, D] sums of the grad_output rows per index";
  let description = [{
    grad_output has indices.shape + [D]; rows whose index equals padding_idx
    contribute nothing. With scale_grad_by_freq each row is divided by the
    number of occurrences of its index.
  }];
  let arguments = (ins Torch_VTensor:$grad_output, Torch_VTensor:$indices,
                       Torch_Int:$num_weights, Torch_Int:$padding_idx,
                       Torch_Bool:$scale_grad_by_freq);
  let results = (outs Torch_VTensor:$result);
  let hasVerifier = 1;
}
def Torch_AtenDetachCopyOp : Torch_AtenOp<"detach_copy"> {
  let summary = "identity (autograd detach)";
  let arguments = (ins Torch_VTensor:$self);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenAliasCopyOp : Torch_AtenOp<"alias_copy"> {
  let summary = "identity (an alias view: Tensor.data, torch.ops.aten.alias)";
  let arguments = (ins Torch_VTensor:$self);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenToCopyOp : Torch_AtenOp<"_to_copy"> {
  let summary = "copy converted to the result dtype (Tensor.to(dtype), .float(), ...)";
  let description = [{
    Only the dtype conversion is modelled: layout and device must be None
    (the graph runs on one host device; buffers are dense and row-major);
    a memory format does not change the values (ltc_backend makes as_strided,
    the one op that sees layouts, aware of channels-last).
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_OptionalInt:$dtype,
                       Torch_OptionalInt:$layout, Torch_None:$device,
                       Torch_OptionalBool:$pin_memory, Torch_Bool:$non_blocking,
                       Torch_OptionalInt:$memory_format);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenCloneOp : Torch_AtenOp<"clone"> {
  let summary = "copy";
  let arguments = (ins Torch_VTensor:$self, Torch_OptionalInt:$memory_format);
  let results = (outs Torch_VTensor:$result);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Torch_AtenSumOp : Torch_AtenOp<"sum"> {
  let summary = "sum of all elements (0-dim result)";
  let arguments = (ins Torch_VTensor:$self, Torch_OptionalInt:$dtype);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenSumDimIntListOp : Torch_AtenOp<"sum.dim_IntList"> {
  let summary = "sum over dims (None or [] = all), optionally keeping them";
  let arguments = (ins Torch_VTensor:$self, AnyTypeOf<[Torch_List, Torch_None]>:$dim,
                       Torch_Bool:$keepdim, Torch_OptionalInt:$dtype);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenMeanOp : Torch_AtenOp<"mean"> {
  let summary = "mean of all elements (0-dim result)";
  let arguments = (ins Torch_VTensor:$self, Torch_OptionalInt:$dtype);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenMeanDimOp : Torch_AtenOp<"mean.dim"> {
  let summary = "mean over dims, optionally keeping them";
  let arguments = (ins Torch_VTensor:$self, AnyTypeOf<[Torch_List, Torch_None]>:$dim,
                       Torch_Bool:$keepdim, Torch_OptionalInt:$dtype);
  let results = (outs Torch_VTensor:$result);
}

//===----------------------------------------------------------------------===//
// Softmax family and losses
//===----------------------------------------------------------------------===//

def Torch_AtenLogSoftmaxOp : Torch_AtenOp<"_log_softmax"> {
  let summary = "log(softmax(self, dim))";
  let arguments = (ins Torch_VTensor:$self, Torch_Int:$dim, Torch_Bool:$half_to_float);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenLogSoftmaxBackwardDataOp : Torch_AtenOp<"_log_softmax_backward_data"> {
  let summary = "grad_output - exp(output) * sum(grad_output, dim)";
  let arguments = (ins Torch_VTensor:$grad_output, Torch_VTensor:$output,
                       Torch_Int:$dim, Torch_Int:$input_dtype);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenSoftmaxOp : Torch_AtenOp<"_softmax"> {
  let summary = "softmax(self, dim)";
  let arguments = (ins Torch_VTensor:$self, Torch_Int:$dim, Torch_Bool:$half_to_float);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenSoftmaxBackwardDataOp : Torch_AtenOp<"_softmax_backward_data"> {
  let summary = "output * (grad_output - sum(grad_output * output, dim))";
  let arguments = (ins Torch_VTensor:$grad_output, Torch_VTensor:$output,
                       Torch_Int:$dim, Torch_Int:$input_dtype);
  let results = (outs Torch_VTensor:$result);
}
def Torch_AtenNativeLayerNormOp : Torch_AtenOp<"native_layer_norm"> {
  let summary = "layer norm over the trailing normalized_shape dims; (out, mean, rstd)";
  let description = [{
    `input` ends with the dims `normalized_shape` (a list of int constants);
    weight and bias (optional) have that shape. mean and rstd =
    1 / sqrt(biased var + eps) have input's leading dims followed by one
    size-1 dim per normalized dim.
  }];
  let arguments = (ins Torch_VTensor:$input, Torch_List:$normalized_shape,
                       Torch_OptionalVTensor:$weight, Torch_OptionalVTensor:$bias,
                       Torch_Float:$eps);
  let results = (outs Torch_VTensor:$out, Torch_VTensor:$mean, Torch_VTensor:$rstd);
  let hasVerifier = 1;
}
def Torch_AtenNativeLayerNormBackwardOp : Torch_AtenOp<"native_layer_norm_backward"> {
  let summary = "gradients of native_layer_norm: (grad_input, grad_weight, grad_bias)";
  let description = [{
    mean and rstd are the forward's statistics. output_mask (a list of three
    bool constants) says which gradients are wanted; an unwanted one is an
    undefined tensor in ATen and is returned as zeros (of whatever shape LTC
    gives it) here.
  }];
  let arguments = (ins Torch_VTensor:$grad_out, Torch_VTensor:$input,
                       Torch_List:$normalized_shape, Torch_VTensor:$mean,
                       Torch_VTensor:$rstd, Torch_OptionalVTensor:$weight,
                       Torch_OptionalVTensor:$bias, Torch_List:$output_mask);
  let results = (outs Torch_VTensor:$grad_input, Torch_VTensor:$grad_weight,
                      Torch_VTensor:$grad_bias);
  let hasVerifier = 1;
}
def Torch_AtenNllLossForwardOp : Torch_AtenOp<"nll_loss_forward"> {
  let summary = "negative log likelihood; returns (output, total_weight)";
  let description = [{
    `self` is [N,C] (or [C]) log-probabilities, `target` [N] (or []) class
    indices (si64). reduction: 0 none, 1 mean, 2 sum. Targets equal to
    ignore_index contribute nothing.
  }];
  let arguments = (ins Torch_VTensor:$self, Torch_VTensor:$target,
                       Torch_OptionalVTensor:$weight, Torch_Int:$reduction,
                       Torch_Int:$ignore_index);
  let results = (outs Torch_VTensor:$output, Torch_VTensor:$total_weight);
}
def Torch_AtenNllLossBackwardOp : Torch_AtenOp<"nll_loss_backward"> {
  let summary = "gradient of nll_loss_forward with respect to self";
  let arguments = (ins Torch_VTensor:$grad_output, Torch_VTensor:$self,
                       Torch_VTensor:$target, Torch_OptionalVTensor:$weight,
                       Torch_Int:$reduction, Torch_Int:$ignore_index,
                       Torch_VTensor:$total_weight);
  let results = (outs Torch_VTensor:$result);
}

#endif // LTC_MLIR_TORCH_OPS
