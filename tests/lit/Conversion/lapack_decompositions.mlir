// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s
// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | ltc-mlir-opt --split-input-file --ltc-linalg-to-llvm="vector-bits=256" | FileCheck %s --check-prefix=LLVM

// svd: the batched input as a read-only buffer of any layout, fresh buffers
// for U, S, Vh and info, one call to the runtime's LAPACK entry point (with
// memref descriptors: emit_c_interface), then the info checks.
// CHECK: func.func private @ltc_mlir_rt_svd_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?xi32, strided<[?], offset: ?>>, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @svd_reduced(
// CHECK: %[[A:.*]] = bufferization.to_buffer %{{.*}} read_only {ltc.runtime_operand = 0 : i64} : tensor<2x5x3xf32> to memref<2x5x3xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-DAG: %[[U:.*]] = memref.alloc() : memref<2x5x3xf32>
// CHECK-DAG: %[[S:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK-DAG: %[[VH:.*]] = memref.alloc() : memref<2x3x3xf32>
// CHECK-DAG: %[[INFO:.*]] = memref.alloc() : memref<2xi32>
// CHECK: call @ltc_mlir_rt_svd_f32(
// CHECK: bufferization.to_tensor %[[U]] restrict writable
// CHECK: call @ltc_mlir_rt_check_failed
// CHECK: call @ltc_mlir_rt_check_failed
// LLVM: llvm.call @_mlir_ciface_ltc_mlir_rt_svd_f32(
func.func @svd_reduced(%a: !torch.vtensor<[2,5,3],f32>) -> (!torch.vtensor<[2,5,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3,3],f32>) {
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %none = torch.constant.none
  %u, %s, %vh = torch.aten._linalg_svd %a, %false, %true, %none : (!torch.vtensor<[2,5,3],f32>, !torch.bool, !torch.bool, !torch.none) -> (!torch.vtensor<[2,5,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3,3],f32>)
  return %u, %s, %vh : !torch.vtensor<[2,5,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3,3],f32>
}

// -----

// An empty input needs no call: eager's complete Q of a 3x0 matrix is the
// identity, its R is empty.
// CHECK-LABEL: func.func @qr_empty_complete(
// CHECK-NOT: call @ltc_mlir_rt_qr
// CHECK: linalg.generic
// CHECK: tensor.empty() : tensor<3x0xf64>
func.func @qr_empty_complete(%a: !torch.vtensor<[3,0],f64>) -> (!torch.vtensor<[3,3],f64>, !torch.vtensor<[3,0],f64>) {
  %mode = torch.constant.str "complete"
  %q, %r = torch.aten.linalg_qr %a, %mode : (!torch.vtensor<[3,0],f64>, !torch.str) -> (!torch.vtensor<[3,3],f64>, !torch.vtensor<[3,0],f64>)
  return %q, %r : !torch.vtensor<[3,3],f64>, !torch.vtensor<[3,0],f64>
}
