// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// repeat([2, 3], [2, 1, 2]): self is read as [1, 2, 3] and written into
// [r0, 1, r1, 2, r2, 3] = [2, 1, 1, 2, 2, 3] by one broadcasting generic
// (self through a projected permutation), then each (r, s) pair is merged.
// CHECK-DAG: #[[SELF:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func.func @repeat(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[T:.*]] = linalg.generic {indexing_maps = [#[[SELF]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x1x1x2x2x3xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2, 3], [4, 5]] : tensor<2x1x1x2x2x3xf32> into tensor<2x2x6xf32>
// CHECK: return %[[R]]
func.func @repeat(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,2,6],f32> {
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %reps = torch.prim.ListConstruct %int2, %int1, %int2 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.repeat %x, %reps : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[2,2,6],f32>
  return %0 : !torch.vtensor<[2,2,6],f32>
}
