// RUN: ltc-mlir-opt --convert-torch-to-linalg --cse --split-input-file %s | FileCheck %s

// An f32 2-D convolution calls oneDNN through the runtime: input, weight and
// bias (each through a to_buffer of its own), a fresh output buffer, then
// stride, padding and dilation of H and W, and groups.
// CHECK-LABEL: func.func @conv2d_groups_stride_pad(
// CHECK: %[[X:.*]] = bufferization.to_buffer %{{.*}} read_only {ltc.runtime_operand = 0 : i64} : tensor<2x4x5x5xf32>
// CHECK: %[[W:.*]] = bufferization.to_buffer %{{.*}} read_only {ltc.runtime_operand = 1 : i64} : tensor<6x2x3x3xf32>
// CHECK: %[[B:.*]] = bufferization.to_buffer %{{.*}} read_only {ltc.runtime_operand = 2 : i64} : tensor<6xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x6x3x3xf32>
// CHECK: call @ltc_mlir_rt_conv2d_forward_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c2_i64)
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NOT: linalg.batch_matmul
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

// convolution_backward of a conv1d: the 2-D calls of height 1 (stride 1,
// padding 0, dilation 1 in H). grad_output is read by both calls, each
// through its own to_buffer (numbered apart, so that CSE cannot merge
// them); the bias gradient stays a generated reduction.
// CHECK-LABEL: func.func @conv1d_backward(
// CHECK: %[[GO:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [2, 4, 1, 3]
// CHECK: bufferization.to_buffer %[[GO]] read_only {ltc.runtime_operand = 0 : i64} : tensor<2x4x1x3xf32>
// CHECK: call @ltc_mlir_rt_conv2d_backward_data_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c2_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64)
// CHECK: bufferization.to_buffer %[[GO]] read_only {ltc.runtime_operand = 3 : i64} : tensor<2x4x1x3xf32>
// CHECK: call @ltc_mlir_rt_conv2d_backward_weights_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c2_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel", "reduction"]
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

// Transposed and f64 convolutions keep the im2col lowering.
// CHECK-LABEL: func.func @conv_transpose_and_f64(
// CHECK-NOT: call @ltc_mlir_rt_conv2d
// CHECK: linalg.batch_matmul
// CHECK-NOT: call @ltc_mlir_rt_conv2d
// CHECK: linalg.batch_matmul
// CHECK-NOT: call @ltc_mlir_rt_conv2d
func.func @conv_transpose_and_f64(%x: !torch.vtensor<[1,2,4,4],f32>, %w: !torch.vtensor<[2,3,3,3],f32>, %xd: !torch.vtensor<[1,2,4,4],f64>, %wd: !torch.vtensor<[3,2,3,3],f64>) -> (!torch.vtensor<[1,3,6,6],f32>, !torch.vtensor<[1,3,2,2],f64>) {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %ones = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.convolution %x, %w, %none, %ones, %zeros, %ones, %true, %zeros, %int1 : (!torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[2,3,3,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,3,6,6],f32>
  %1 = torch.aten.convolution %xd, %wd, %none, %ones, %zeros, %ones, %false, %zeros, %int1 : (!torch.vtensor<[1,2,4,4],f64>, !torch.vtensor<[3,2,3,3],f64>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,3,2,2],f64>
  return %0, %1 : !torch.vtensor<[1,3,6,6],f32>, !torch.vtensor<[1,3,2,2],f64>
}
