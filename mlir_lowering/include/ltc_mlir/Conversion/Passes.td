//===- Passes.td - ltc_mlir conversion passes --------------*- tablegen -*-===//
#ifndef LTC_MLIR_CONVERSION_PASSES
#define LTC_MLIR_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTorchToLinalg : Pass<"convert-torch-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower torch dialect ops to linalg-on-tensors";
  let description = [{
    Converts the torch dialect (value-semantic tensors with static shapes) to
    builtin types and linalg-on-tensors, tensor, arith and math ops, including
    the signatures of `func.func`: `!torch.vtensor<[2,3],si64>` becomes
    `tensor<2x3xi64>` (signless), `!torch.int` `i64`, `!torch.float` `f64`.

    - Elementwise ops become one parallel `linalg.generic` with ATen
      broadcasting (right-aligned dims, size-1 dims read at index 0). Tensor
      elements and scalars are cast to the result element type, so a 0-dim
      f64 tensor or a f64 scalar combined with f32 computes in f32.
    - mm/bmm/addmm become `linalg.matmul`/`linalg.batch_matmul` into a
      zero-filled init (addmm adds `beta * self + alpha * product` after).
    - Reductions and softmax are `linalg.generic` reductions whose results
      drop the reduced dims (keepdim re-inserts them with expand_shape).
    - View-like `*_copy` ops become `linalg.transpose`,
      `tensor.collapse_shape`/`expand_shape` or broadcasting generics.
    - Int lists, bools, None and dims must be `torch.constant.*` /
      `torch.prim.ListConstruct` (they are erased once unused); scalars used
      as values (alpha, lr) may be function arguments.

    Checks that depend on run-time values (e.g. nll_loss targets within
    [0, C)) become `scf.if (!ok) { func.call @ltc_mlir_rt_check_failed(i) }`
    with message `i` in the module attribute `ltc.runtime_checks`.

    An op that cannot be converted is reported as
    `unsupported op '<op name>': <reason>` and the pass fails.

    Before:
    ```mlir
    func.func @forward(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[3],f32>,
                       %alpha: !torch.float) -> !torch.vtensor<[2,3],f32> {
      %0 = torch.aten.add.Tensor %a, %b, %alpha : (!torch.vtensor<[2,3],f32>,
             !torch.vtensor<[3],f32>, !torch.float) -> !torch.vtensor<[2,3],f32>
      return %0 : !torch.vtensor<[2,3],f32>
    }
    ```
    After:
    ```mlir
    #map = affine_map<(d0, d1) -> (d0, d1)>
    #map1 = affine_map<(d0, d1) -> (d1)>
    func.func @forward(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>,
                       %arg2: f64) -> tensor<2x3xf32> {
      %0 = arith.truncf %arg2 : f64 to f32
      %1 = tensor.empty() : tensor<2x3xf32>
      %2 = linalg.generic {indexing_maps = [#map, #map1, #map],
                           iterator_types = ["parallel", "parallel"]}
          ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>)
          outs(%1 : tensor<2x3xf32>) {
      ^bb0(%in: f32, %in_0: f32, %out: f32):
        %3 = arith.mulf %0, %in_0 : f32
        %4 = arith.addf %in, %3 : f32
        linalg.yield %4 : f32
      } -> tensor<2x3xf32>
      return %2 : tensor<2x3xf32>
    }
    ```
  }];
  let options = [
    Option<"externalConvolutions", "external-convolutions", "bool",
           /*default=*/"true",
           "f32 1-D and 2-D convolutions (forward and both gradients) call "
           "oneDNN through the runtime (false: im2col + matmul)">
  ];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::func::FuncDialect", "mlir::scf::SCFDialect",
    "mlir::bufferization::BufferizationDialect", "mlir::memref::MemRefDialect"
  ];
}

#endif // LTC_MLIR_CONVERSION_PASSES
