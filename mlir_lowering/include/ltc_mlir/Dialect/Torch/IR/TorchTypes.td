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
def Torch_DeviceType : Torch_Type<"Device", "Device"> {
  let summary = "TorchScript Device (ops' `device=` argument)";
  let description = [{
    Only ever passed through: the graph runs on one host device, and the
    lowering accepts `device` arguments that are None. It exists so that
    every ATen schema with a `Device` argument has an op.
  }];
}
def Torch_GeneratorType : Torch_Type<"Generator", "Generator"> {
  let summary = "TorchScript random Generator (`generator=` of random ops)";
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
def Torch_Device : Type<CPred<"::llvm::isa<::ltc_mlir::torch::DeviceType>($_self)">,
    "torch Device", "::ltc_mlir::torch::DeviceType">,
    BuildableType<"::ltc_mlir::torch::DeviceType::get($_builder.getContext())">;
def Torch_Generator : Type<CPred<"::llvm::isa<::ltc_mlir::torch::GeneratorType>($_self)">,
    "torch Generator", "::ltc_mlir::torch::GeneratorType">,
    BuildableType<"::ltc_mlir::torch::GeneratorType::get($_builder.getContext())">;

// A Scalar argument of an ATen schema: an int or a float (LTC passes alpha,
// lr, exponents as function arguments of these types).
def Torch_Scalar : AnyTypeOf<[Torch_Int, Torch_Float], "torch scalar (int or float)">;

// `T?` arguments of ATen schemas (the constraints the op generator uses).
def Torch_OptionalInt : AnyTypeOf<[Torch_Int, Torch_None], "torch int or none">;
def Torch_OptionalVTensor : AnyTypeOf<[Torch_VTensor, Torch_None], "torch tensor or none">;
def Torch_OptionalBool : AnyTypeOf<[Torch_Bool, Torch_None], "torch bool or none">;
def Torch_OptionalFloat : AnyTypeOf<[Torch_Float, Torch_None], "torch float or none">;
def Torch_OptionalStr : AnyTypeOf<[Torch_Str, Torch_None], "torch str or none">;
def Torch_OptionalScalar : AnyTypeOf<[Torch_Int, Torch_Float, Torch_None],
                                     "torch scalar (int or float) or none">;
def Torch_OptionalList : AnyTypeOf<[Torch_List, Torch_None], "torch list or none">;
def Torch_OptionalDevice : AnyTypeOf<[Torch_Device, Torch_None], "torch Device or none">;
def Torch_OptionalGenerator : AnyTypeOf<[Torch_Generator, Torch_None],
                                        "torch Generator or none">;

#endif // LTC_MLIR_TORCH_TYPES
