// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s | FileCheck %s

// Lower triangular solve from the left, row by row (batch, row i in order):
// x[i, :] -= a[i, k] * x[k, :] for k < i (the inner loop along the row),
// then x[i, :] /= a[i, i].
// CHECK-LABEL: func.func @solve_triangular_lower_left(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<3x3xf64>, %[[B:[a-z0-9_]+]]: tensor<3x2xf64>
// CHECK: %[[AB:[a-z0-9_]+]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [1, 3, 3]
// CHECK: %[[BB:[a-z0-9_]+]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1], [2]] output_shape [1, 3, 2]
// CHECK: scf.for %[[BI:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[BB]]) -> (tensor<1x3x2xf64>)
// CHECK: scf.for %[[I:[a-z0-9_]+]] =
// CHECK: %[[R:[a-z0-9_]+]] = scf.for %[[K:[a-z0-9_]+]] = %{{.*}} to %[[I]] step
// CHECK:   %[[AIK:[a-z0-9_]+]] = tensor.extract %[[AB]][%[[BI]], %[[I]], %[[K]]]
// CHECK:   scf.for %[[J:[a-z0-9_]+]] = {{.*}} iter_args(%[[X:[a-z0-9_]+]] = %{{.*}})
// CHECK:     %[[XK:[a-z0-9_]+]] = tensor.extract %[[X]][%[[BI]], %[[K]], %[[J]]]
// CHECK:     %[[XI:[a-z0-9_]+]] = tensor.extract %[[X]][%[[BI]], %[[I]], %[[J]]]
// CHECK:     %[[P:[a-z0-9_]+]] = arith.mulf %[[AIK]], %[[XK]]
// CHECK:     %[[D:[a-z0-9_]+]] = arith.subf %[[XI]], %[[P]]
// CHECK:     tensor.insert %[[D]] into %[[X]][%[[BI]], %[[I]], %[[J]]]
// CHECK: %[[AII:[a-z0-9_]+]] = tensor.extract %[[AB]][%[[BI]], %[[I]], %[[I]]]
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[R]])
// CHECK:   arith.divf %{{.*}}, %[[AII]]
// CHECK: tensor.collapse_shape {{.*}} : tensor<1x3x2xf64> into tensor<3x2xf64>
func.func @solve_triangular_lower_left(%a: !torch.vtensor<[3,3],f64>, %b: !torch.vtensor<[3,2],f64>) -> !torch.vtensor<[3,2],f64> {
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %0 = torch.aten.linalg_solve_triangular %a, %b, %false, %true, %false : (!torch.vtensor<[3,3],f64>, !torch.vtensor<[3,2],f64>, !torch.bool, !torch.bool, !torch.bool) -> !torch.vtensor<[3,2],f64>
  return %0 : !torch.vtensor<[3,2],f64>
}

// -----

// Upper, from the right, unit diagonal: X A = B is solved as A^T X^T = B^T
// (lower in A^T, reading a[k, i]); no division; A's batch broadcasts.
// CHECK-LABEL: func.func @solve_triangular_upper_right_unit(
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x4xf32>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x4x3xf32>) permutation = [0, 2, 1]
// CHECK: scf.for
// CHECK: scf.for %[[I:[a-z0-9_]+]] =
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[K]], %[[I]]] : tensor<2x4x4xf32>
// CHECK-NOT: arith.divf
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x4x3xf32>) outs(%{{.*}} : tensor<2x3x4xf32>) permutation = [0, 2, 1]
func.func @solve_triangular_upper_right_unit(%a: !torch.vtensor<[4,4],f32>, %b: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32> {
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %0 = torch.aten.linalg_solve_triangular %a, %b, %true, %false, %true : (!torch.vtensor<[4,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.bool, !torch.bool, !torch.bool) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// Cholesky: d = a[j, j] - sum_k l[j, k]^2; info = j + 1 at the first d that
// is not > 0 (ule also catches NaN); l[j, j] = sqrt(d); the strict upper
// triangle is zeroed at the end.
// CHECK-LABEL: func.func @cholesky_ex(
// CHECK: %[[RES:[a-z0-9_]+]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<2x3x3xf64>, tensor<2xi32>)
// CHECK: %[[D:[a-z0-9_]+]] = scf.for {{.*}} -> (f64)
// CHECK: %[[BAD:[a-z0-9_]+]] = arith.cmpf ule, %[[D]], %{{.*}} : f64
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: %[[SQ:[a-z0-9_]+]] = math.sqrt %[[D]] : f64
// CHECK: arith.divf %{{.*}}, %[[SQ]] : f64
// CHECK: linalg.generic
// CHECK: arith.cmpi ugt
// CHECK: return %{{.*}}, %[[RES]]#1 : tensor<2x3x3xf64>, tensor<2xi32>
func.func @cholesky_ex(%a: !torch.vtensor<[2,3,3],f64>) -> (!torch.vtensor<[2,3,3],f64>, !torch.vtensor<[2],si32>) {
  %false = torch.constant.bool false
  %0:2 = torch.aten.linalg_cholesky_ex %a, %false, %false : (!torch.vtensor<[2,3,3],f64>, !torch.bool, !torch.bool) -> (!torch.vtensor<[2,3,3],f64>, !torch.vtensor<[2],si32>)
  return %0#0, %0#1 : !torch.vtensor<[2,3,3],f64>, !torch.vtensor<[2],si32>
}

// -----

// LU: the first row of largest |a[i, k]| (strict ogt), pivot p + 1 as i32,
// info at an exactly zero pivot (oeq).
// CHECK-LABEL: func.func @lu_factor_ex(
// CHECK: scf.for {{.*}} -> (tensor<1x4x3xf32>, tensor<1x3xi32>, tensor<1xi32>)
// CHECK: math.absf
// CHECK: arith.cmpf ogt
// CHECK: arith.index_cast %{{.*}} : index to i32
// CHECK: arith.cmpf oeq
// CHECK: arith.divf
// CHECK: arith.mulf
// CHECK: arith.subf
func.func @lu_factor_ex(%a: !torch.vtensor<[4,3],f32>) -> (!torch.vtensor<[4,3],f32>, !torch.vtensor<[3],si32>, !torch.vtensor<[],si32>) {
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %0:3 = torch.aten.linalg_lu_factor_ex %a, %true, %false : (!torch.vtensor<[4,3],f32>, !torch.bool, !torch.bool) -> (!torch.vtensor<[4,3],f32>, !torch.vtensor<[3],si32>, !torch.vtensor<[],si32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[4,3],f32>, !torch.vtensor<[3],si32>, !torch.vtensor<[],si32>
}

// -----

// check_errors=True raises in eager (the graph falls back); so does LU
// without pivoting (not implemented on CPU).
func.func @cholesky_check_errors(%a: !torch.vtensor<[3,3],f64>) -> !torch.vtensor<[3,3],f64> {
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  // expected-error @+1 {{unsupported op 'torch.aten.linalg_cholesky_ex': check_errors=True raises eagerly}}
  %0:2 = torch.aten.linalg_cholesky_ex %a, %false, %true : (!torch.vtensor<[3,3],f64>, !torch.bool, !torch.bool) -> (!torch.vtensor<[3,3],f64>, !torch.vtensor<[],si32>)
  return %0#0 : !torch.vtensor<[3,3],f64>
}

// -----

func.func @lu_no_pivot(%a: !torch.vtensor<[3,3],f64>) -> !torch.vtensor<[3,3],f64> {
  %false = torch.constant.bool false
  // expected-error @+1 {{unsupported op 'torch.aten.linalg_lu_factor_ex': needs pivot=True and check_errors=False (constants)}}
  %0:3 = torch.aten.linalg_lu_factor_ex %a, %false, %false : (!torch.vtensor<[3,3],f64>, !torch.bool, !torch.bool) -> (!torch.vtensor<[3,3],f64>, !torch.vtensor<[3],si32>, !torch.vtensor<[],si32>)
  return %0#0 : !torch.vtensor<[3,3],f64>
}

// -----

// f16 is not lowered (eager's CPU kernels have no f16 either).
func.func @solve_triangular_f16(%a: !torch.vtensor<[3,3],f16>, %b: !torch.vtensor<[3,2],f16>) -> !torch.vtensor<[3,2],f16> {
  %false = torch.constant.bool false
  // expected-error @+1 {{unsupported op 'torch.aten.linalg_solve_triangular': only f32 and f64 are lowered}}
  %0 = torch.aten.linalg_solve_triangular %a, %b, %false, %false, %false : (!torch.vtensor<[3,3],f16>, !torch.vtensor<[3,2],f16>, !torch.bool, !torch.bool, !torch.bool) -> !torch.vtensor<[3,2],f16>
  return %0 : !torch.vtensor<[3,2],f16>
}

// -----

// The deprecated triangular_solve(B, A, upper, transpose): with transpose,
// the lower triangle of A^T is read as a[k, i]; A comes back broadcast.
// CHECK-LABEL: func.func @triangular_solve_transpose(
// CHECK: scf.for
// CHECK: scf.for %[[I:[a-z0-9_]+]] =
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[K]], %[[I]]] : tensor<1x3x3xf64>
// CHECK: arith.divf
func.func @triangular_solve_transpose(%b: !torch.vtensor<[3,2],f64>, %a: !torch.vtensor<[3,3],f64>) -> (!torch.vtensor<[3,2],f64>, !torch.vtensor<[3,3],f64>) {
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %0:2 = torch.aten.triangular_solve %b, %a, %true, %true, %false : (!torch.vtensor<[3,2],f64>, !torch.vtensor<[3,3],f64>, !torch.bool, !torch.bool, !torch.bool) -> (!torch.vtensor<[3,2],f64>, !torch.vtensor<[3,3],f64>)
  return %0#0, %0#1 : !torch.vtensor<[3,2],f64>, !torch.vtensor<[3,3],f64>
}
