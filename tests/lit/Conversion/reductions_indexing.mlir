// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// argmax carries (value, index) accumulators combined order-independently:
// NaN wins, then the larger value, and among equals the lower index.
// CHECK-LABEL: func.func @argmax_first_index(
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[BIG:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32, %[[IDX:.*]]: i64):
// CHECK:   %[[I:.*]] = arith.index_cast
// CHECK:   %[[LOWER:.*]] = arith.cmpi slt, %[[I]], %[[IDX]] : i64
// CHECK:   arith.cmpf uno, %[[X]], %[[X]]
// CHECK:   arith.cmpf ogt, %[[X]], %[[ACC]]
// CHECK:   arith.select %[[TAKE:.*]], %[[X]], %[[ACC]] : f32
// CHECK-NEXT: arith.select %[[TAKE]], %[[I]], %[[IDX]] : i64
// CHECK: return %[[R]]#1 : tensor<3xi64>
func.func @argmax_first_index(%a: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3],si64> {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %0 = torch.aten.argmax %a, %int1, %false : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[3],si64>
  return %0 : !torch.vtensor<[3],si64>
}

// -----

// scatter_add: a bounds check, then ATen's sequential loop over index
// carrying the result (clamped indices, read-add-insert).
// CHECK: module attributes {ltc.runtime_checks = ["scatter_add(): index out of bounds: every index must be in [0, 3) for dimension 0 with size 3.
// CHECK-LABEL: func.func @scatter_add_loop(
// CHECK-SAME: %[[SELF:.*]]: tensor<3x4xf32>, %[[INDEX:.*]]: tensor<2x4xi64>, %[[SRC:.*]]: tensor<2x4xf32>)
// CHECK: arith.cmpi ult
// CHECK: func.call @ltc_mlir_rt_check_failed
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%[[OUT0:.*]] = %[[SELF]]) -> (tensor<3x4xf32>)
// CHECK:   scf.for %[[J:.*]] = {{.*}} iter_args(%[[OUT:.*]] = %[[OUT0]]) -> (tensor<3x4xf32>)
// CHECK:     %[[K:.*]] = tensor.extract %[[INDEX]][%[[I]], %[[J]]]
// CHECK:     arith.maxsi %[[K]]
// CHECK:     arith.minsi
// CHECK:     %[[ROW:.*]] = arith.index_cast
// CHECK:     %[[S:.*]] = tensor.extract %[[SRC]][%[[I]], %[[J]]]
// CHECK:     %[[OLD:.*]] = tensor.extract %[[OUT]][%[[ROW]], %[[J]]]
// CHECK:     %[[NEW:.*]] = arith.addf %[[OLD]], %[[S]] : f32
// CHECK:     tensor.insert %[[NEW]] into %[[OUT]][%[[ROW]], %[[J]]]
func.func @scatter_add_loop(%self: !torch.vtensor<[3,4],f32>, %index: !torch.vtensor<[2,4],si64>, %src: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[3,4],f32> {
  %int0 = torch.constant.int 0
  %0 = torch.aten.scatter_add %self, %int0, %index, %src : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.vtensor<[2,4],si64>, !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// A runtime ord (a graph input) selects the norm with an scf.if chain:
// inf (max |x|), -inf (min |x|), 0, 1, 2, then the general p.
// CHECK-LABEL: func.func @vector_norm_runtime_ord(
// CHECK-SAME: %{{.*}}: tensor<3x4xf32>, %[[ORD:.*]]: f64) -> tensor<3xf32>
// CHECK: %[[INF:.*]] = arith.constant 0x7FF0000000000000 : f64
// CHECK: %[[ISINF:.*]] = arith.cmpf oeq, %[[ORD]], %[[INF]] : f64
// CHECK: scf.if %[[ISINF]] -> (tensor<3xf32>)
// CHECK:   arith.maximumf
// CHECK: } else {
// CHECK:   arith.cmpf oeq, %[[ORD]], %{{.*}} : f64
// CHECK:   arith.minimumf
// CHECK:   arith.uitofp
// CHECK:   math.sqrt
// CHECK:   math.powf
func.func @vector_norm_runtime_ord(%a: !torch.vtensor<[3,4],f32>, %ord: !torch.float) -> !torch.vtensor<[3],f32> {
  %int1 = torch.constant.int 1
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.linalg_vector_norm %a, %ord, %dims, %false, %none : (!torch.vtensor<[3,4],f32>, !torch.float, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// take (no Meta kernel in torch 1.13, so it reaches graphs only from
// TorchScript): negative indices wrap, the check allows [-n, n).
// CHECK: module attributes {ltc.runtime_checks = ["IndexError: take(): out of range: every index must be in [-6, 6) for a tensor of 6 elements.
// CHECK-LABEL: func.func @take_wraps(
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape
// CHECK: linalg.generic
// CHECK:   arith.cmpi slt
// CHECK:   arith.addi
// CHECK:   arith.select
// CHECK:   tensor.extract %[[FLAT]]
func.func @take_wraps(%a: !torch.vtensor<[2,3],f32>, %i: !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],f32> {
  %0 = torch.aten.take %a, %i : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
