//===- TorchBase.td - ltc_mlir torch dialect definition ----*- tablegen -*-===//
#ifndef LTC_MLIR_TORCH_BASE
#define LTC_MLIR_TORCH_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Torch_Dialect : Dialect {
  let name = "torch";
  let cppNamespace = "::ltc_mlir::torch";
  let summary = "Value-semantic PyTorch ATen ops with static shapes";
  let description = [{
    The torch dialect models the graphs that PyTorch's LazyTensorCore records:
    ATen operators (`torch.aten.<name>[.<overload>]`) on value-semantic tensors
    (`!torch.vtensor<[2,3],f32>`) with static shapes and dtypes, plus the
    TorchScript scalar types (`!torch.int`, `!torch.float`, `!torch.bool`,
    `!torch.none`, `!torch.list<T>`).
  }];
  let useDefaultTypePrinterParser = 1;
  // Lets canonicalization re-create torch constants that folders produce.
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class Torch_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Torch_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class Torch_Op<string mnemonic, list<Trait> traits = []>
    : Op<Torch_Dialect, mnemonic, traits>;

#endif // LTC_MLIR_TORCH_BASE
