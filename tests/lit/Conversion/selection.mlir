// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// median.dim: NaNs per line, the target rank ((n - 1) / 2, or the first
// NaN's rank n - nanCount), the stable ranks (n comparisons per element),
// then the element whose rank is the target.
// CHECK-LABEL: func.func @median_dim(
// CHECK: %[[NANS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:   arith.cmpf uno
// CHECK: %[[TARGET:.*]] = linalg.generic {{.*}} ins(%[[NANS]] : tensor<3xi64>)
// CHECK:   %[[NUMBERS:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK:   %[[NONAN:.*]] = arith.cmpi eq
// CHECK:   %[[HALF:.*]] = arith.divsi
// CHECK:   arith.select %[[NONAN]], %[[HALF]], %[[NUMBERS]] : i64
// CHECK: %[[RANKS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:   arith.cmpi ult
// CHECK:   arith.cmpf olt
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[RANKS]], %{{.*}}, %[[TARGET]] :
// CHECK:   %[[HERE:.*]] = arith.cmpi eq
// CHECK:   arith.select %[[HERE]]
// CHECK: return %[[R]]#0, %[[R]]#1 : tensor<3xf32>, tensor<3xi64>
func.func @median_dim(%a: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],si64>) {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %0:2 = "torch.aten.median.dim"(%a, %int1, %false) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],si64>)
  return %0#0, %0#1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],si64>
}

// -----

// mode: the runtime's mode (eager's std::sort and scan of equal runs) on
// self viewed as [outer, n, inner], results [outer, 1, inner].
// CHECK: func.func private @ltc_mlir_rt_mode_i64(memref<?x?x?xi64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xi64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xi64, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @mode(
// CHECK: %[[LINES:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [3, 4, 1] : tensor<3x4xi64> into tensor<3x4x1xi64>
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[LINES]] read_only
// CHECK: %[[VALUES:.*]] = memref.alloc() : memref<3x1x1xi64>
// CHECK: %[[INDICES:.*]] = memref.alloc() : memref<3x1x1xi64>
// CHECK: call @ltc_mlir_rt_mode_i64(
// CHECK: bufferization.to_tensor %[[VALUES]] restrict writable
// CHECK: bufferization.to_tensor %[[INDICES]] restrict writable
func.func @mode(%a: !torch.vtensor<[3,4],si64>) -> (!torch.vtensor<[3,1],si64>, !torch.vtensor<[3,1],si64>) {
  %int1 = torch.constant.int 1
  %true = torch.constant.bool true
  %0:2 = "torch.aten.mode"(%a, %int1, %true) : (!torch.vtensor<[3,4],si64>, !torch.int, !torch.bool) -> (!torch.vtensor<[3,1],si64>, !torch.vtensor<[3,1],si64>)
  return %0#0, %0#1 : !torch.vtensor<[3,1],si64>, !torch.vtensor<[3,1],si64>
}

// -----

// sort of lines longer than 16 (std::sort is no longer an insertion sort):
// the runtime's sort with descending = 1, stable = 0.
// CHECK: func.func private @ltc_mlir_rt_sort_bf16(
// CHECK-LABEL: func.func @sort_long_lines(
// CHECK-DAG: %[[DESC:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[STABLE:.*]] = arith.constant 0 : i64
// CHECK: call @ltc_mlir_rt_sort_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %[[DESC]], %[[STABLE]])
func.func @sort_long_lines(%a: !torch.vtensor<[2,20,3],bf16>) -> (!torch.vtensor<[2,20,3],bf16>, !torch.vtensor<[2,20,3],si64>) {
  %int1 = torch.constant.int 1
  %true = torch.constant.bool true
  %0:2 = torch.aten.sort %a, %int1, %true : (!torch.vtensor<[2,20,3],bf16>, !torch.int, !torch.bool) -> (!torch.vtensor<[2,20,3],bf16>, !torch.vtensor<[2,20,3],si64>)
  return %0#0, %0#1 : !torch.vtensor<[2,20,3],bf16>, !torch.vtensor<[2,20,3],si64>
}

// -----

// cummax: a loop over dim; x replaces the running max when x >= max or x is
// NaN (later index for ties, NaN stays).
// CHECK-LABEL: func.func @cummax(
// CHECK: %[[L:.*]]:4 = scf.for %[[K:.*]] = %{{.*}} to %c4 step %c1
// CHECK:   ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32, %[[IDX:.*]]: i64):
// CHECK:     %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK:     %[[GE:.*]] = arith.cmpf oge, %[[X]], %[[ACC]] : f32
// CHECK:     %[[TAKE:.*]] = arith.ori %[[NAN]], %[[GE]] : i1
// CHECK:     arith.select %[[TAKE]], %[[X]], %[[ACC]] : f32
// CHECK: return %[[L]]#2, %[[L]]#3
func.func @cummax(%a: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],si64>) {
  %int1 = torch.constant.int 1
  %0:2 = "torch.aten.cummax"(%a, %int1) : (!torch.vtensor<[3,4],f32>, !torch.int) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],si64>)
  return %0#0, %0#1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],si64>
}

// -----

// logcumsumexp: ATen's _log_add_exp_helper in f64 for f32.
// CHECK-LABEL: func.func @logcumsumexp(
// CHECK: arith.constant 0xFFF0000000000000 : f64
// CHECK: scf.for
// CHECK:   arith.extf %{{.*}} : f32 to f64
// CHECK:   math.exp %{{.*}} : f64
// CHECK:   math.log1p %{{.*}} : f64
// CHECK:   arith.truncf %{{.*}} : f64 to f32
func.func @logcumsumexp(%a: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> {
  %int0 = torch.constant.int 0
  %0 = torch.aten.logcumsumexp %a, %int0 : (!torch.vtensor<[3,4],f32>, !torch.int) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// put: a bounds check, then a loop over the indices in order, read-add-insert
// at the wrapped, clamped flat position.
// CHECK: module attributes {ltc.runtime_checks = ["IndexError: put(): out of range: every index must be in [-12, 12) for a tensor of 12 elements.
// CHECK-LABEL: func.func @put(
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x4xf32> into tensor<12xf32>
// CHECK: scf.for
// CHECK:   arith.maxsi
// CHECK:   arith.minsi
// CHECK:   %[[OLD:.*]] = tensor.extract %{{.*}} : tensor<12xf32>
// CHECK:   %[[SUM:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// CHECK:   tensor.insert %[[SUM]]
// CHECK: tensor.expand_shape
func.func @put(%a: !torch.vtensor<[3,4],f32>, %i: !torch.vtensor<[2],si64>, %s: !torch.vtensor<[2],f32>) -> !torch.vtensor<[3,4],f32> {
  %true = torch.constant.bool true
  %0 = torch.aten.put %a, %i, %s, %true : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[2],si64>, !torch.vtensor<[2],f32>, !torch.bool) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
