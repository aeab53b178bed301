//===- TorchTypes.td - torch dialect types -----------------*- tablegen -*-===//
#ifndef LTC_MLIR_TORCH_TYPES
#define LTC_MLIR_TORCH_TYPES

include "ltc_mlir/Dialect/Torch/IR/TorchBase.td"

def Torch_ValueTensorType : Torch_Type<"ValueTensor", "vtensor"> {
  let summary = "value-semantic tensor with a static shape and a dtype";
  let description = [{
    `!torch.vtensor<[2,3],f32>`; a 0-dim tensor is `!torch.vtensor<[],f64>`.
    Sizes are non-negative; dtypes are f16, bf16, f32, f64, si8, si16, si32,
    si64, ui8 and i1 (bool).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t", "sizes">:$sizes,
                        "::mlir::Type":$dtype);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getSizes().size(); }
    int64_t getNumElements() const;
    /// The builtin tensor type with signless integer element type.
    ::mlir::RankedTensorType toBuiltinTensor() const;
  }];
}

def Torch_IntType : Torch_Type<"Int", "int"> {
  let summary = "TorchScript int (64-bit signed)";
}
def Torch_FloatType : Torch_Type<"Float", "float"> {
  let summary = "TorchScript float (64-bit)";
}
def Torch_BoolType : Torch_Type<"Bool", "bool"> {
  let summary = "TorchScript bool";
}
def Torch_NoneType : Torch_Type<"None", "none"> {
  let summary = "TorchScript None";
}
def Torch_StringType : Torch_Type<"String", "str"> {
  let summary = "TorchScript str (e.g. gelu's `approximate`)";
}
def Torch_ListType : Torch_Type<"List", "list"> {
  let summary = "TorchScript list, e.g. !torch.list<int>";
  let parameters = (ins "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
}

def Torch_VTensor : Type<CPred<"::llvm::isa<::ltc_mlir::torch::ValueTensorType>($_self)">,
                         "torch value tensor", "::ltc_mlir::torch::ValueTensorType">;
def Torch_Int : Type<CPred<"::llvm::isa<::ltc_mlir::torch::IntType>($_self)">,
    "torch int", "::ltc_mlir::torch::IntType">,
    BuildableType<"::ltc_mlir::torch::IntType::get($_builder.getContext())">;
def Torch_Float : Type<CPred<"::llvm::isa<::ltc_mlir::torch::FloatType>($_self)">,
    "torch float", "::ltc_mlir::torch::FloatType">,
    BuildableType<"::ltc_mlir::torch::FloatType::get($_builder.getContext())">;
def Torch_Bool : Type<CPred<"::llvm::isa<::ltc_mlir::torch::BoolType>($_self)">,
    "torch bool", "::ltc_mlir::torch::BoolType">,
    BuildableType<"::ltc_mlir::torch::BoolType::get($_builder.getContext())">;
def Torch_None : Type<CPred<"::llvm::isa<::ltc_mlir::torch::NoneType>($_self)">,
    "torch none", "::ltc_mlir::torch::NoneType">,
    BuildableType<"::ltc_mlir::torch::NoneType::get($_builder.getContext())">;
def Torch_Str : Type<CPred<"::llvm::isa<::ltc_mlir::torch::StringType>($_self)">,
    "torch str", "::ltc_mlir::torch::StringType">,
    BuildableType<"::ltc_mlir::torch::StringType::get($_builder.getContext())">;
def Torch_List : Type<CPred<"::llvm::isa<::ltc_mlir::torch::ListType>($_self)">,
                      "torch list", "::ltc_mlir::torch::ListType">;

// A Scalar argument of an ATen schema: an int or a float (LTC passes alpha,
// lr, exponents as function arguments of these types).
def Torch_Scalar : AnyTypeOf<[Torch_Int, Torch_Float], "torch scalar (int or float)">;
def Torch_OptionalInt : AnyTypeOf<[Torch_Int, Torch_None], "torch int or none">;
def Torch_OptionalVTensor : AnyTypeOf<[Torch_VTensor, Torch_None], "torch tensor or none">;
def Torch_OptionalBool : AnyTypeOf<[Torch_Bool, Torch_None], "torch bool or none">;

#endif // LTC_MLIR_TORCH_TYPES
