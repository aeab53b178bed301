// RUN: ltc-mlir-opt --convert-torch-to-linalg %s | FileCheck %s

// native_batch_norm in eval mode without running statistics (eager torch
// 1.13 crashes on this call): the batch statistics are computed
// (memory-safe) and a check that always fails reports the call.
// CHECK: module attributes {ltc.runtime_checks = ["native_batch_norm: running_mean and running_var must be given in evaluation mode (training=False); pass the running statistics or use training=True (eager torch 1.13 crashes on this call)"]}
// CHECK-LABEL: func.func @batch_norm_eval_without_running_stats(
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: %[[FAILED:.*]] = arith.cmpi eq, %[[FALSE]], %{{.*}} : i1
// CHECK: scf.if %[[FAILED]] {
// CHECK:   func.call @ltc_mlir_rt_check_failed(
func.func @batch_norm_eval_without_running_stats(%x: !torch.vtensor<[4,2],f32>) -> !torch.vtensor<[4,2],f32> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %momentum = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.aten.native_batch_norm %x, %none, %none, %none, %none, %false, %momentum, %eps : (!torch.vtensor<[4,2],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[4,2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>)
  return %0#0 : !torch.vtensor<[4,2],f32>
}
