// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s
// RUN: ltc-mlir-opt --ltc-torch-to-llvm %s | FileCheck %s --check-prefix=LLVM

// nll_loss forward and backward check that every target is ignore_index or
// a class index in [0, C): an `and` reduction over the targets, then
// scf.if (!ok) call @ltc_mlir_rt_check_failed(<index of the message>).
// Forward and backward have their own message (index 0 and 1), the callee
// is declared once.
// CHECK: module attributes {ltc.runtime_checks = [
// CHECK-SAME: "IndexError: nll_loss_forward: Target is out of bounds: every target must be a class index in [0, 4) or equal to ignore_index (-100).
// CHECK-SAME: "IndexError: nll_loss_backward: Target is out of bounds: every target must be a class index in [0, 4) or equal to ignore_index (-100).
// CHECK: func.func private @ltc_mlir_rt_check_failed(i64)
// CHECK-NOT: func.func private @ltc_mlir_rt_check_failed
// CHECK-LABEL: func.func @nll(
// CHECK-SAME: %[[X:.*]]: tensor<3x4xf32>, %[[T:.*]]: tensor<3xi64>
// CHECK: %[[IGNORE:.*]] = arith.constant -100 : i64
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[TRUE]] : i1)
// CHECK: %[[ALL:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[T]] : tensor<3xi64>) outs(%[[INIT]] : tensor<i1>)
// CHECK: ^bb0(%[[TV:.*]]: i64, %[[ACC:.*]]: i1):
// CHECK:   %[[C:.*]] = arith.constant 4 : i64
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[TV]], %[[C]] : i64
// CHECK:   %[[IGN:.*]] = arith.cmpi eq, %[[TV]], %[[IGNORE]] : i64
// CHECK:   %[[VALID:.*]] = arith.ori %[[IN]], %[[IGN]] : i1
// CHECK:   %[[AND:.*]] = arith.andi %[[VALID]], %[[ACC]] : i1
// CHECK:   linalg.yield %[[AND]] : i1
// CHECK: %[[OK:.*]] = tensor.extract %[[ALL]][] : tensor<i1>
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: %[[BAD:.*]] = arith.cmpi eq, %[[OK]], %[[FALSE]] : i1
// CHECK: scf.if %[[BAD]] {
// CHECK:   %[[I0:.*]] = arith.constant 0 : i64
// CHECK:   func.call @ltc_mlir_rt_check_failed(%[[I0]]) : (i64) -> ()
// CHECK: }
// The forward's loss comes after its check, the backward's check after it.
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[T]]
// CHECK: scf.if
// CHECK:   %[[I1:.*]] = arith.constant 1 : i64
// CHECK:   func.call @ltc_mlir_rt_check_failed(%[[I1]]) : (i64) -> ()
// CHECK: return

// After the whole pipeline the call is still there, in @forward's body
// (not in a parallel region), before it returns.
// LLVM: module attributes {ltc.runtime_checks =
// LLVM: llvm.func @ltc_mlir_rt_check_failed(i64)
// LLVM-LABEL: llvm.func @nll(
// LLVM: llvm.call @ltc_mlir_rt_check_failed(
// LLVM: llvm.call @ltc_mlir_rt_check_failed(
// LLVM: llvm.return
func.func @nll(%x: !torch.vtensor<[3,4],f32>, %t: !torch.vtensor<[3],si64>, %g: !torch.vtensor<[],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[3,4],f32>) {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %ignore = torch.constant.int -100
  %0, %1 = torch.aten.nll_loss_forward %x, %t, %none, %int1, %ignore : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3],si64>, !torch.none, !torch.int, !torch.int) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>)
  %2 = torch.aten.nll_loss_backward %g, %x, %t, %none, %int1, %ignore, %1 : (!torch.vtensor<[],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3],si64>, !torch.none, !torch.int, !torch.int, !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4],f32>
  return %0, %2 : !torch.vtensor<[],f32>, !torch.vtensor<[3,4],f32>
}

// -----

// as_strided_copy with a run-time storage offset: offset <= 15 (unsigned,
// so negative offsets fail too).
// CHECK: module attributes {ltc.runtime_checks = ["as_strided_copy: storage offset is out of bounds for storage of size 20: sizes [2, 2] and strides [3, 1] need a storage offset in [0, 15]. Check the storage_offset passed to as_strided."]}
// CHECK-LABEL: func.func @as_strided_runtime_offset(
// CHECK: %[[OFF:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[LAST:.*]] = arith.constant 15 : i64
// CHECK: %[[OK:.*]] = arith.cmpi ule, %[[OFF]], %[[LAST]] : i64
// CHECK: %[[BAD:.*]] = arith.cmpi eq, %[[OK]], %{{.*}} : i1
// CHECK: scf.if %[[BAD]] {
// CHECK:   func.call @ltc_mlir_rt_check_failed(%{{.*}}) : (i64) -> ()
func.func @as_strided_runtime_offset(%a: !torch.vtensor<[4,5],f32>, %t: !torch.vtensor<[],si32>) -> !torch.vtensor<[2,2],f32> {
  %offset = torch.aten.IntImplicit %t : (!torch.vtensor<[],si32>) -> !torch.int
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %size = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int3, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided_copy %a, %size, %stride, %offset : (!torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,2],f32>
  return %0 : !torch.vtensor<[2,2],f32>
}
