// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// Long float sums are blocked (createSum, Summation.cpp): no accumulator adds
// more than 256 values. A full sum of 10^6 values: the innermost loop is
// split into 16 lanes ([62500, 16]), the lanes' 62500 values into 250 blocks
// of 250 (a divisor, so no tail); level 1 sums each block per lane (block
// number and lane parallel), then the 250 partials per lane, then the lanes.
// CHECK-DAG: #[[L1_IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[L1_OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @sum_1e6(
// CHECK-SAME: %[[A:.*]]: tensor<1000000xf32>) -> tensor<f32>
// CHECK: %[[LANES:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1]] output_shape [62500, 16]
// CHECK: %[[BLOCKS:.*]] = tensor.expand_shape %[[LANES]] {{\[\[}}0, 1], [2]] output_shape [250, 250, 16]
// CHECK: %[[P1:.*]] = linalg.generic {indexing_maps = [#[[L1_IN]], #[[L1_OUT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[BLOCKS]] : tensor<250x250x16xf32>) outs(%{{.*}} : tensor<250x16xf32>)
// CHECK:   arith.addf
// CHECK: %[[P2:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[P1]] : tensor<250x16xf32>) outs(%{{.*}} : tensor<16xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P2]] : tensor<16xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: return %[[SUM]]
func.func @sum_1e6(%a: !torch.vtensor<[1000000],f32>) -> !torch.vtensor<[],f32> {
  %none = torch.constant.none
  %0 = torch.aten.sum %a, %none : (!torch.vtensor<[1000000],f32>, !torch.none) -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// A column sum over a prime number of rows (4099): blocks of 256 rows over
// the first 4096 (vectorized along the columns), the 3-row tail summed on
// its own, both added.
// CHECK-LABEL: func.func @sum_columns_prime(
// CHECK-SAME: %[[A:.*]]: tensor<4099x8xf32>) -> tensor<8xf32>
// CHECK: %[[MAIN:.*]] = tensor.extract_slice %[[A]][0, 0] [4096, 8] [1, 1]
// CHECK: %[[BLOCKS:.*]] = tensor.expand_shape %[[MAIN]] {{\[\[}}0, 1], [2]] output_shape [16, 256, 8]
// CHECK: %[[P1:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[BLOCKS]] : tensor<16x256x8xf32>) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK: %[[P2:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[P1]] : tensor<16x8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: %[[TAIL:.*]] = tensor.extract_slice %[[A]][4096, 0] [3, 8] [1, 1]
// CHECK: %[[T:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[TAIL]] : tensor<3x8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[P2]], %[[T]] : tensor<8xf32>, tensor<8xf32>)
// CHECK:   arith.addf
// CHECK: return %[[SUM]]
func.func @sum_columns_prime(%a: !torch.vtensor<[4099,8],f32>) -> !torch.vtensor<[8],f32> {
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.sum.dim_IntList %a, %dims, %false, %none : (!torch.vtensor<[4099,8],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[8],f32>
  return %0 : !torch.vtensor<[8],f32>
}

// -----

// Rows of 1000 (more than one block): 62 x 16 lanes plus an 8-value tail,
// then mean divides the sum.
// CHECK-LABEL: func.func @mean_rows_lane_tail(
// CHECK-SAME: %[[A:.*]]: tensor<2x1000xf32>) -> tensor<2xf32>
// CHECK: %[[MAIN:.*]] = tensor.extract_slice %[[A]][0, 0] [2, 992] [1, 1]
// CHECK: %[[LANES:.*]] = tensor.expand_shape %[[MAIN]] {{\[\[}}0], [1, 2]] output_shape [2, 62, 16]
// CHECK: %[[P1:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[LANES]] : tensor<2x62x16xf32>) outs(%{{.*}} : tensor<2x16xf32>)
// CHECK: %[[P2:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P1]] : tensor<2x16xf32>)
// CHECK: %[[TAIL:.*]] = tensor.extract_slice %[[A]][0, 992] [2, 8] [1, 1]
// CHECK: %[[T:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[TAIL]] : tensor<2x8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[P2]], %[[T]] : tensor<2xf32>, tensor<2xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<2xf32>)
// CHECK:   arith.divf
func.func @mean_rows_lane_tail(%a: !torch.vtensor<[2,1000],f32>) -> !torch.vtensor<[2],f32> {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.mean.dim %a, %dims, %false, %none : (!torch.vtensor<[2,1000],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// f16 values are accumulated in f32 (ATen's accumulation type) and the sum
// is rounded to f16 once at the end; 320 = 20 x 16 lanes.
// CHECK-LABEL: func.func @sum_f16(
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<20x16xf16>) outs(%{{.*}} : tensor<16xf32>)
// CHECK: ^bb0(%[[X:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK:   %[[XF:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK:   arith.addf %[[XF]], %[[ACC]] : f32
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<f32>) outs(%{{.*}} : tensor<f16>)
// CHECK:   arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: arith.addf {{.*}} : f16
func.func @sum_f16(%a: !torch.vtensor<[320],f16>) -> !torch.vtensor<[],f16> {
  %none = torch.constant.none
  %0 = torch.aten.sum %a, %none : (!torch.vtensor<[320],f16>, !torch.none) -> !torch.vtensor<[],f16>
  return %0 : !torch.vtensor<[],f16>
}

// -----

// Blocking renumbers the loops: nll_loss's class test reads the class loop
// (d2 after [1024] -> [16, 64]) through the term's index function, and both
// sums (loss and total weight) share the blocked passes.
// CHECK-LABEL: func.func @nll_blocked(
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [16, 64, 4] : tensor<1024x4xf32> into tensor<16x64x4xf32>
// CHECK: %[[T:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [16, 64] : tensor<1024xi64> into tensor<16x64xi64>
// CHECK: %[[P:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]], %[[T]] : tensor<16x64x4xf32>, tensor<16x64xi64>)
// CHECK:   %[[C:.*]] = linalg.index 2 : index
// CHECK:   %[[CI:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK:   arith.cmpi eq, %[[CI]], %{{.*}} : i64
// CHECK: %[[S:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P]]#0, %[[P]]#1 : tensor<16xf32>, tensor<16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[S]]#0, %[[S]]#1 : tensor<f32>, tensor<f32>)
// CHECK:   arith.divf
func.func @nll_blocked(%x: !torch.vtensor<[1024,4],f32>, %t: !torch.vtensor<[1024],si64>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %intm100 = torch.constant.int -100
  %0, %1 = torch.aten.nll_loss_forward %x, %t, %none, %int1, %intm100 : (!torch.vtensor<[1024,4],f32>, !torch.vtensor<[1024],si64>, !torch.none, !torch.int, !torch.int) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>)
  return %0, %1 : !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
}

// -----

// A row sum that fits one block and is not a multiple of the lanes stays one
// linalg.generic; integer sums are never split.
// CHECK-LABEL: func.func @short_and_int(
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK-NOT: tensor.expand_shape
func.func @short_and_int(%a: !torch.vtensor<[4,100],f32>, %b: !torch.vtensor<[100000],si64>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[],si64>) {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.sum.dim_IntList %a, %dims, %false, %none : (!torch.vtensor<[4,100],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[4],f32>
  %1 = torch.aten.sum %b, %none : (!torch.vtensor<[100000],si64>, !torch.none) -> !torch.vtensor<[],si64>
  return %0, %1 : !torch.vtensor<[4],f32>, !torch.vtensor<[],si64>
}
