// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s | FileCheck %s

// diagonal_copy with offset -1 in dims (2, 0) of a 2x3x4 tensor: dims 0 and
// 2 go, the diagonal (length min(4 - 1, 2) = 2) is last; element i is
// self[i, j, i + 1].
// CHECK-LABEL: func.func @diagonal_copy(
// CHECK-SAME: %[[A:.*]]: tensor<2x3x4xf32>) -> tensor<3x2xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3x2xf32>)
// CHECK:   %[[J:.*]] = linalg.index 0 : index
// CHECK:   %[[I:.*]] = linalg.index 1 : index
// CHECK:   %[[C1:.*]] = arith.constant 1 : index
// CHECK:   %[[R:.*]] = arith.addi %[[I]], %[[C1]] : index
// CHECK:   %[[E:.*]] = tensor.extract %[[A]][%[[I]], %[[J]], %[[R]]] : tensor<2x3x4xf32>
// CHECK:   linalg.yield %[[E]] : f32
func.func @diagonal_copy(%a: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3,2],f32> {
  %int-1 = torch.constant.int -1
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %0 = torch.aten.diagonal_copy %a, %int-1, %int2, %int0 : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[3,2],f32>
  return %0 : !torch.vtensor<[3,2],f32>
}

// -----

// diagonal_scatter with offset 1 of a 3x5 tensor: on the diagonal
// (c - 1 == r, r < 3) src[r], elsewhere self; the read of src is clamped.
// CHECK-LABEL: func.func @diagonal_scatter(
// CHECK-SAME: %[[A:.*]]: tensor<3x5xf32>, %[[SRC:.*]]: tensor<3xf32>) -> tensor<3x5xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]] : tensor<3x5xf32>) outs(%{{.*}} : tensor<3x5xf32>)
// CHECK: ^bb0(%[[SELF:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[I:.*]] = linalg.index 0 : index
// CHECK:   %[[C:.*]] = linalg.index 1 : index
// CHECK:   %[[J:.*]] = arith.subi %[[C]], %{{.*}} : index
// CHECK:   %[[EQ:.*]] = arith.cmpi eq, %[[I]], %[[J]] : index
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[I]], %{{.*}} : index
// CHECK:   %[[ON:.*]] = arith.andi %[[EQ]], %[[IN]] : i1
// CHECK:   %[[SAFE:.*]] = arith.minui %[[I]], %{{.*}} : index
// CHECK:   %[[E:.*]] = tensor.extract %[[SRC]][%[[SAFE]]] : tensor<3xf32>
// CHECK:   %[[V:.*]] = arith.select %[[ON]], %[[E]], %[[SELF]] : f32
// CHECK:   linalg.yield %[[V]] : f32
func.func @diagonal_scatter(%a: !torch.vtensor<[3,5],f32>, %src: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3,5],f32> {
  %int1 = torch.constant.int 1
  %int0 = torch.constant.int 0
  %0 = torch.aten.diagonal_scatter %a, %src, %int1, %int0, %int1 : (!torch.vtensor<[3,5],f32>, !torch.vtensor<[3],f32>, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[3,5],f32>
  return %0 : !torch.vtensor<[3,5],f32>
}

// -----

func.func @same_dims(%a: !torch.vtensor<[3,3],f32>) -> !torch.vtensor<[3],f32> {
  %int0 = torch.constant.int 0
  // expected-error @+1 {{unsupported op 'torch.aten.diagonal_copy': dim1 and dim2 must differ}}
  %0 = torch.aten.diagonal_copy %a, %int0, %int0, %int0 : (!torch.vtensor<[3,3],f32>, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
