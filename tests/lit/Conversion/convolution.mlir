// RUN: ltc-mlir-opt --convert-torch-to-linalg="external-convolutions=false" --split-input-file %s | FileCheck %s

// The im2col lowering (external-convolutions=false; f32 1-D/2-D convolutions
// otherwise call oneDNN, external_convolution.mlir; the other cases below
// take this path either way).

// conv2d, groups 2, stride 2, padding 1, 3x3 kernel, bias: the im2col tensor
// [G=2, Cg=2, T=9, N=2, 3, 3] starts as zeros (taps that read padding), each
// tap copies a strided box of the input (viewed [N, G, Cg, H, W]) into its
// slice, then one batch_matmul per group [3, Cg*T] x [Cg*T, N*P] and an
// epilogue that adds the bias and moves N back in front.
// CHECK-DAG: #[[TAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d0, d1, d3, d4)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[PROD:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d0, d3, d4)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-LABEL: func.func @conv2d_groups_stride_pad(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x5x5xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x2x9x2x3x3xf32>)
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 5, 5]
// Tap (0, 0) reads rows/cols 1 and 3 into output positions 1..2.
// CHECK: %[[SRC0:.*]] = tensor.extract_slice %[[XG]][0, 0, 0, 1, 1] [2, 2, 2, 2, 2] [1, 1, 1, 2, 2] : tensor<2x2x2x5x5xf32> to tensor<2x2x2x2x2xf32>
// CHECK: %[[DST0:.*]] = tensor.extract_slice %[[ZERO]][0, 0, 0, 0, 1, 1] [2, 2, 1, 2, 2, 2] [1, 1, 1, 1, 1, 1] : tensor<2x2x9x2x3x3xf32> to tensor<2x2x2x2x2xf32>
// CHECK: %[[COPY0:.*]] = linalg.generic {indexing_maps = [#[[TAP]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[SRC0]] : {{.*}}) outs(%[[DST0]] : {{.*}})
// CHECK: %[[COL0:.*]] = tensor.insert_slice %[[COPY0]] into %[[ZERO]][0, 0, 0, 0, 1, 1] [2, 2, 1, 2, 2, 2] [1, 1, 1, 1, 1, 1]
// The center tap reads every output position.
// CHECK: tensor.extract_slice %[[XG]][0, 0, 0, 0, 0] [2, 2, 2, 3, 3] [1, 1, 1, 2, 2]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 4, 0, 0, 0] [2, 2, 1, 2, 3, 3] [1, 1, 1, 1, 1, 1]
// CHECK: %[[COLN:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 8, 0, 0, 0] [2, 2, 1, 2, 2, 2] [1, 1, 1, 1, 1, 1]
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[COLN]] {{\[\[}}0], [1, 2], [3, 4, 5]] : tensor<2x2x9x2x3x3xf32> into tensor<2x18x18xf32>
// CHECK: %[[W3:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [2, 3, 18] : tensor<108xf32> into tensor<2x3x18xf32>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3x18xf32>)
// CHECK: %[[MM:.*]] = linalg.batch_matmul ins(%[[W3]], %[[COL]] : tensor<2x3x18xf32>, tensor<2x18x18xf32>) outs(%[[ACC]] : tensor<2x3x18xf32>)
// CHECK: %[[MM5:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0], [1], [2, 3, 4]] output_shape [2, 3, 2, 3, 3]
// CHECK: %[[B2:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [2, 3]
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[PROD]], #[[BIAS]], #[[ID]]], {{.*}}} ins(%[[MM5]], %[[B2]] : tensor<2x3x2x3x3xf32>, tensor<2x3xf32>) outs(%{{.*}} : tensor<2x2x3x3x3xf32>)
// CHECK:   arith.addf
// CHECK: %[[RES:.*]] = tensor.collapse_shape %[[OUT]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x2x3x3x3xf32> into tensor<2x6x3x3xf32>
// CHECK: return %[[RES]]
func.func @conv2d_groups_stride_pad(%x: !torch.vtensor<[2,4,5,5],f32>, %w: !torch.vtensor<[6,2,3,3],f32>, %b: !torch.vtensor<[6],f32>) -> !torch.vtensor<[2,6,3,3],f32> {
  %false = torch.constant.bool false
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %stride = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %pad = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %dil = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %opad = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.convolution %x, %w, %b, %stride, %pad, %dil, %false, %opad, %int2 : (!torch.vtensor<[2,4,5,5],f32>, !torch.vtensor<[6,2,3,3],f32>, !torch.vtensor<[6],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,6,3,3],f32>
  return %0 : !torch.vtensor<[2,6,3,3],f32>
}

// -----

// conv_transpose1d, stride 2, padding 1, output_padding 1, kernel 3, input
// length 4 -> 8: im2col of the input spread out by 2 (stride-2 slices of the
// im2col tensor, the zeros in between never written) with the taps flipped
// (slot 0 is kernel tap 2, which reads x[1..3] into positions 1, 3, 5); the
// weight [Cin=2, Cout=3, 3] is swapped to [3, 2 * 3]. N == 1 and no bias:
// the batch_matmul result is already the output.
// CHECK-DAG: #[[SWAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @conv_transpose1d(
// CHECK-SAME: %[[X:.*]]: tensor<1x2x4xf32>, %[[W:.*]]: tensor<2x3x3xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x3x1x8xf32>)
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[X]]
// CHECK: tensor.extract_slice %[[XG]][0, 0, 0, 1] [1, 1, 2, 3] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[ZERO]][0, 0, 0, 0, 1] [1, 2, 1, 1, 3] [1, 1, 1, 1, 2]
// CHECK: tensor.insert_slice %{{.*}} into %[[ZERO]][0, 0, 0, 0, 1] [1, 2, 1, 1, 3] [1, 1, 1, 1, 2]
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 1, 0, 0] [1, 2, 1, 1, 4] [1, 1, 1, 1, 2]
// CHECK: %[[COLN:.*]] = tensor.insert_slice %{{.*}}[0, 0, 2, 0, 1] [1, 2, 1, 1, 4] [1, 1, 1, 1, 2]
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[COLN]] {{\[\[}}0], [1, 2], [3, 4]] : tensor<1x2x3x1x8xf32> into tensor<1x6x8xf32>
// CHECK: %[[W4:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 2, 3, 3]
// CHECK: %[[SW:.*]] = linalg.generic {indexing_maps = [#[[SWAP]], {{.*}}]{{.*}} ins(%[[W4]] : tensor<1x2x3x3xf32>) outs(%{{.*}} : tensor<1x3x2x3xf32>)
// CHECK: %[[W3:.*]] = tensor.collapse_shape %[[SW]] {{\[\[}}0], [1], [2, 3]] : tensor<1x3x2x3xf32> into tensor<1x3x6xf32>
// CHECK: %[[MM:.*]] = linalg.batch_matmul ins(%[[W3]], %[[COL]] : tensor<1x3x6xf32>, tensor<1x6x8xf32>)
// CHECK: return %[[MM]] : tensor<1x3x8xf32>
func.func @conv_transpose1d(%x: !torch.vtensor<[1,2,4],f32>, %w: !torch.vtensor<[2,3,3],f32>) -> !torch.vtensor<[1,3,8],f32> {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %stride = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  %pad = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %dil = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %opad = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.convolution %x, %w, %none, %stride, %pad, %dil, %true, %opad, %int1 : (!torch.vtensor<[1,2,4],f32>, !torch.vtensor<[2,3,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,3,8],f32>
  return %0 : !torch.vtensor<[1,3,8],f32>
}

// -----

// convolution_backward of conv1d (stride 2, kernel 2, [2,3,6] -> [2,4,3]):
// grad_input is the transposed convolution of grad_output (im2col of
// grad_output spread out by 2, swapped weight); grad_weight multiplies the
// im2col of the input [3 * 2, N * 3] by grad_output^T [N * 3, 4] and swaps
// the result to [4, 3 * 2]; grad_bias sums grad_output over N and the
// length in f64.
// CHECK-DAG: #[[GT:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3, d2)>
// CHECK-DAG: #[[T3:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @conv1d_backward(
// CHECK-SAME: %[[GO:.*]]: tensor<2x4x3xf32>, %[[X:.*]]: tensor<2x3x6xf32>, %[[W:.*]]: tensor<4x3x2xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x2x2x6xf32>)
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 0, 0, 0] [1, 4, 1, 2, 3] [1, 1, 1, 1, 2]
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 1, 0, 1] [1, 4, 1, 2, 3] [1, 1, 1, 1, 2]
// CHECK: %[[GIMM:.*]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x3x8xf32>, tensor<1x8x12xf32>)
// CHECK: %[[GI:.*]] = tensor.collapse_shape %{{.*}} : tensor<2x1x3x6xf32> into tensor<2x3x6xf32>
// Every input position is read, so the im2col of x needs no zero fill.
// CHECK: %[[XCOL0:.*]] = tensor.empty() : tensor<1x3x2x2x3xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [2, 1, 3, 3] [1, 1, 1, 2]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 1] [2, 1, 3, 3] [1, 1, 1, 2]
// CHECK: %[[XCOL:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x3x2x2x3xf32> into tensor<1x6x6xf32>
// CHECK: %[[GOG:.*]] = tensor.expand_shape %[[GO]]
// CHECK: %[[GOT:.*]] = linalg.generic {indexing_maps = [#[[GT]], {{.*}}]{{.*}} ins(%[[GOG]] : tensor<2x1x4x3xf32>) outs(%{{.*}} : tensor<1x2x3x4xf32>)
// CHECK: %[[GOT3:.*]] = tensor.collapse_shape %[[GOT]] {{.*}} into tensor<1x6x4xf32>
// CHECK: %[[DWT:.*]] = linalg.batch_matmul ins(%[[XCOL]], %[[GOT3]] : tensor<1x6x6xf32>, tensor<1x6x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[T3]], {{.*}}]{{.*}} ins(%[[DWT]] : tensor<1x6x4xf32>) outs(%{{.*}} : tensor<1x4x6xf32>)
// CHECK: %[[GW:.*]] = tensor.expand_shape %{{.*}} output_shape [4, 3, 2]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[GO]] : tensor<2x4x3xf32>) outs(%{{.*}} : tensor<4xf64>)
// CHECK:   arith.extf
// CHECK:   arith.addf
// CHECK: %[[GB:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xf64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:   arith.truncf
// CHECK: return %[[GI]], %[[GW]], %[[GB]]
func.func @conv1d_backward(%go: !torch.vtensor<[2,4,3],f32>, %x: !torch.vtensor<[2,3,6],f32>, %w: !torch.vtensor<[4,3,2],f32>) -> (!torch.vtensor<[2,3,6],f32>, !torch.vtensor<[4,3,2],f32>, !torch.vtensor<[4],f32>) {
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int4 = torch.constant.int 4
  %bias = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  %pad = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %dil = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %opad = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %mask = torch.prim.ListConstruct %true, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %0:3 = torch.aten.convolution_backward %go, %x, %w, %bias, %stride, %pad, %dil, %false, %opad, %int1, %mask : (!torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2,3,6],f32>, !torch.vtensor<[4,3,2],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool>) -> (!torch.vtensor<[2,3,6],f32>, !torch.vtensor<[4,3,2],f32>, !torch.vtensor<[4],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,3,6],f32>, !torch.vtensor<[4,3,2],f32>, !torch.vtensor<[4],f32>
}

// -----

// Only grad_weight wanted (the input needs no gradient, no bias): the
// undefined results LTC types [] and [0] are zeros, one batch_matmul.
// CHECK-LABEL: func.func @conv1d_backward_weight_only(
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.batch_matmul
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[Z0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[Z2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<0xf32>)
// CHECK: return %[[Z0]], %{{.*}}, %[[Z2]] : tensor<f32>, tensor<4x3x2xf32>, tensor<0xf32>
func.func @conv1d_backward_weight_only(%go: !torch.vtensor<[2,4,3],f32>, %x: !torch.vtensor<[2,3,6],f32>, %w: !torch.vtensor<[4,3,2],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[4,3,2],f32>, !torch.vtensor<[0],f32>) {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %stride = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  %pad = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %dil = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %opad = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %mask = torch.prim.ListConstruct %false, %true, %false : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %0:3 = torch.aten.convolution_backward %go, %x, %w, %none, %stride, %pad, %dil, %false, %opad, %int1, %mask : (!torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2,3,6],f32>, !torch.vtensor<[4,3,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[4,3,2],f32>, !torch.vtensor<[0],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[],f32>, !torch.vtensor<[4,3,2],f32>, !torch.vtensor<[0],f32>
}

// -----

// constant_pad_nd with pads (-1, 2) on the last dim and (0, -2) on the one
// before: [3,4,5] -> [3,2,6]; the surviving [3,2,4] box of self is copied
// to [0, 0, 0] of a tensor filled with the value (an int converted to f32).
// CHECK-LABEL: func.func @constant_pad_nd_crop(
// CHECK-SAME: %[[X:.*]]: tensor<3x4x5xf32>, %[[V:.*]]: i64)
// CHECK: %[[VF:.*]] = arith.sitofp %[[V]] : i64 to f32
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[VF]] : f32) outs(%{{.*}} : tensor<3x2x6xf32>)
// CHECK: %[[SRC:.*]] = tensor.extract_slice %[[X]][0, 0, 1] [3, 2, 4] [1, 1, 1]
// CHECK: %[[DST:.*]] = tensor.extract_slice %[[FILL]][0, 0, 0] [3, 2, 4] [1, 1, 1]
// CHECK: %[[COPY:.*]] = linalg.copy ins(%[[SRC]] : tensor<3x2x4xf32>) outs(%[[DST]] : tensor<3x2x4xf32>)
// CHECK: %[[R:.*]] = tensor.insert_slice %[[COPY]] into %[[FILL]][0, 0, 0] [3, 2, 4] [1, 1, 1]
// CHECK: return %[[R]]
func.func @constant_pad_nd_crop(%x: !torch.vtensor<[3,4,5],f32>, %v: !torch.int) -> !torch.vtensor<[3,2,6],f32> {
  %int-1 = torch.constant.int -1
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %int-2 = torch.constant.int -2
  %pad = torch.prim.ListConstruct %int-1, %int2, %int0, %int-2 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.constant_pad_nd %x, %pad, %v : (!torch.vtensor<[3,4,5],f32>, !torch.list<int>, !torch.int) -> !torch.vtensor<[3,2,6],f32>
  return %0 : !torch.vtensor<[3,2,6],f32>
}

// -----

// conv2d 5x5 (25 taps, above the per-tap limit), stride 2, padding 2: the
// input is padded once (6 -> 9: low 2, high 1 so that the last window fits)
// and one generic reads it at o * 2 + k into [G, Cg, 5, 5, N, 3, 3].
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d1, d5 * 2 + d2, d6 * 2 + d3)>
// CHECK-LABEL: func.func @conv2d_5x5_one_copy(
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 2, 2] [1, 1, 2, 6, 6] [1, 1, 1, 1, 1] : tensor<1x1x2x6x6xf32> into tensor<1x1x2x9x9xf32>
// CHECK: %[[COL:.*]] = linalg.generic {indexing_maps = [#[[READ]], {{.*}}]{{.*}} ins(%[[PADDED]] : tensor<1x1x2x9x9xf32>) outs(%{{.*}} : tensor<1x2x5x5x1x3x3xf32>)
// CHECK-NOT: tensor.insert_slice
// CHECK: tensor.collapse_shape %[[COL]] {{\[\[}}0], [1, 2, 3], [4, 5, 6]] : tensor<1x2x5x5x1x3x3xf32> into tensor<1x50x9xf32>
// CHECK: linalg.batch_matmul
func.func @conv2d_5x5_one_copy(%x: !torch.vtensor<[1,2,6,6],f32>, %w: !torch.vtensor<[3,2,5,5],f32>) -> !torch.vtensor<[1,3,3,3],f32> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %stride = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %pad = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %dil = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %opad = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.convolution %x, %w, %none, %stride, %pad, %dil, %false, %opad, %int1 : (!torch.vtensor<[1,2,6,6],f32>, !torch.vtensor<[3,2,5,5],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,3,3,3],f32>
  return %0 : !torch.vtensor<[1,3,3,3],f32>
}
