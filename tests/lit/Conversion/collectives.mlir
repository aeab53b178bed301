// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// Two gradient buckets of a data-parallel step. Each all-reduce starts right
// after its input exists (the second bucket's gradient is computed after
// the first start, while it runs) and is waited for just before the first
// reader of its result; the second collective's `after` operand (the
// chain) does not count as a reader.
// CHECK-LABEL: func.func @two_buckets(
// CHECK: %[[G0:.*]] = linalg.generic
// CHECK: %[[BUF0:.*]] = memref.alloc() : memref<16xi8>
// CHECK: %[[VIEW0:.*]] = memref.view %[[BUF0]]
// CHECK: memref.copy %{{.*}}, %[[VIEW0]]
// CHECK: %[[T0:.*]] = call @ltc_mlir_rt_collective_start(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64, i64, i64, memref<?xi8>, memref<?xi8>) -> i64
// CHECK: linalg.generic
// CHECK: %[[T1:.*]] = call @ltc_mlir_rt_collective_start
// CHECK: call @ltc_mlir_rt_collective_wait(%[[T0]],
// CHECK: bufferization.to_tensor %[[VIEW0]] restrict writable
// CHECK: call @ltc_mlir_rt_collective_wait(%[[T1]],
// CHECK: return
func.func @two_buckets(%a: !torch.vtensor<[4],f32>, %b: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  %g1 = torch.aten.neg %b : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %g0 = torch.aten.relu %a : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %r0 = "torch.ltc_mlir.collective"(%g0, %none, %int0, %int0, %int0, %int0) {ltc.collective = "0 0 0 0", ltc.dtype = 6 : i64} : (!torch.vtensor<[4],f32>, !torch.none, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[4],f32>
  %r1 = "torch.ltc_mlir.collective"(%g1, %r0, %int0, %int0, %int0, %int0) {ltc.collective = "0 0 0 0", ltc.dtype = 6 : i64} : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[4],f32>
  %s0 = torch.aten.sigmoid %r0 : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %s0, %r1 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}

// -----

// all_gather: a separate input buffer, kept alive until the wait; the
// result has the group's rows.
// CHECK-LABEL: func.func @gather(
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<32xi8>
// CHECK: %[[IN:.*]] = memref.alloc() : memref<16xi8>
// CHECK: %[[INARG:.*]] = memref.cast %[[IN]] : memref<16xi8> to memref<?xi8>
// CHECK: %[[T:.*]] = call @ltc_mlir_rt_collective_start(%c2_i64, {{.*}}, %[[INARG]], %{{.*}})
// CHECK: call @ltc_mlir_rt_collective_wait(%[[T]], %[[INARG]])
// CHECK: bufferization.to_tensor {{.*}} : memref<2x4xf32> to tensor<2x4xf32>
func.func @gather(%a: !torch.vtensor<[1,4],f32>) -> !torch.vtensor<[2,4],f32> {
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %none = torch.constant.none
  %r = "torch.ltc_mlir.collective"(%a, %none, %int2, %int0, %int0, %int0) {ltc.collective = "2 0 0 0", ltc.dtype = 6 : i64} : (!torch.vtensor<[1,4],f32>, !torch.none, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,4],f32>
  return %r : !torch.vtensor<[2,4],f32>
}
