// RUN: ltc-mlir-opt --ltc-torch-to-linalg %s | FileCheck %s

// After the elementwise fusion of ltc-torch-to-linalg, the ReLU is the
// epilogue of the normalization generic (x * alpha + beta, then max), and
// the per-channel coefficients stay in their own generic: it has two used
// results, so the square root is not recomputed for every element.
// CHECK-LABEL: func.func @batch_norm_relu(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4x4xf32>
// CHECK: %[[C:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK:   math.sqrt
// CHECK: } -> (tensor<3xf32>, tensor<3xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[C]]#0, %[[C]]#1 :
// CHECK-NOT: math.sqrt
// CHECK:   %[[XA:.*]] = arith.mulf
// CHECK:   %[[T:.*]] = arith.addf %[[XA]]
// CHECK:   %[[R:.*]] = arith.maximumf %[[T]]
// CHECK:   linalg.yield %[[R]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @batch_norm_relu(%x: !torch.vtensor<[2,3,4,4],f32>, %w: !torch.vtensor<[3],f32>, %b: !torch.vtensor<[3],f32>, %rm: !torch.vtensor<[3],f32>, %rv: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4,4],f32> {
  %false = torch.constant.bool false
  %momentum = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.aten.native_batch_norm %x, %w, %b, %rm, %rv, %false, %momentum, %eps : (!torch.vtensor<[2,3,4,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[2,3,4,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>)
  %1 = torch.aten.relu %0#0 : (!torch.vtensor<[2,3,4,4],f32>) -> !torch.vtensor<[2,3,4,4],f32>
  return %1 : !torch.vtensor<[2,3,4,4],f32>
}
