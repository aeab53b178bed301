// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s | FileCheck %s

// reflection_pad1d of W = 4 by (2, 1): output o reads |o - 2| mirrored at 3,
// a compile-time table of source positions read by a table gather.
// CHECK-LABEL: func.func @reflection_pad1d(
// CHECK: %[[T:.*]] = arith.constant dense<{{\[}}[2], [1], [0], [1], [2], [3], [2]]> : tensor<7x1xindex>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[T]] : tensor<7x1xindex>)
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x3x4xf32>
// CHECK: -> tensor<2x3x7xf32>
func.func @reflection_pad1d(%x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,7],f32> {
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %pad = torch.prim.ListConstruct %int2, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = "torch.aten.reflection_pad1d"(%x, %pad) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,7],f32>
  return %0 : !torch.vtensor<[2,3,7],f32>
}

// -----

// replication_pad1d clamps: [0, 0, 0, 1, 2, 3, 3]; [C, W] input (no batch).
// CHECK-LABEL: func.func @replication_pad1d(
// CHECK: arith.constant dense<{{\[}}[0], [0], [0], [1], [2], [3], [3]]> : tensor<7x1xindex>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
func.func @replication_pad1d(%x: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,7],f32> {
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %pad = torch.prim.ListConstruct %int2, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = "torch.aten.replication_pad1d"(%x, %pad) : (!torch.vtensor<[3,4],f32>, !torch.list<int>) -> !torch.vtensor<[3,7],f32>
  return %0 : !torch.vtensor<[3,7],f32>
}

// -----

// Backward: input position i sums the outputs that read it, in increasing
// output order (-1: no entry): i = 0 <- 2; 1 <- 1, 3; 2 <- 0, 4, 6; 3 <- 5.
// CHECK-LABEL: func.func @reflection_pad1d_backward(
// CHECK: arith.constant dense<{{\[}}[2, -1, -1], [1, 3, -1], [0, 4, 6], [5, -1, -1]]> : tensor<4x3xindex>
// CHECK: linalg.generic
// CHECK: arith.cmpi sge
// CHECK: arith.select
// CHECK: arith.addf
// CHECK: -> tensor<2x3x4xf32>
func.func @reflection_pad1d_backward(%g: !torch.vtensor<[2,3,7],f32>, %x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32> {
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %pad = torch.prim.ListConstruct %int2, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = "torch.aten.reflection_pad1d_backward"(%g, %x, %pad) : (!torch.vtensor<[2,3,7],f32>, !torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// Replication backward: the edges sum the pads: 0 <- 0, 1, 2; 3 <- 5, 6.
// CHECK-LABEL: func.func @replication_pad1d_backward(
// CHECK: arith.constant dense<{{\[}}[0, 1, 2], [3, -1, -1], [4, -1, -1], [5, 6, -1]]> : tensor<4x3xindex>
func.func @replication_pad1d_backward(%g: !torch.vtensor<[2,3,7],f32>, %x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32> {
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %pad = torch.prim.ListConstruct %int2, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = "torch.aten.replication_pad1d_backward"(%g, %x, %pad) : (!torch.vtensor<[2,3,7],f32>, !torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// 2-d: one table per padded dim (H: pads (1, 0) of 3, W: pads (1, 2) of 3).
// CHECK-LABEL: func.func @reflection_pad2d(
// CHECK-DAG: arith.constant dense<{{\[}}[1], [0], [1], [2]]> : tensor<4x1xindex>
// CHECK-DAG: arith.constant dense<{{\[}}[1], [0], [1], [2], [1], [0]]> : tensor<6x1xindex>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
func.func @reflection_pad2d(%x: !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,4,6],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %pad = torch.prim.ListConstruct %int1, %int2, %int1, %int0 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = "torch.aten.reflection_pad2d"(%x, %pad) : (!torch.vtensor<[1,2,3,3],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,4,6],f32>
  return %0 : !torch.vtensor<[1,2,4,6],f32>
}

// -----

// Reflection pads must be smaller than the dim (ATen raises before this);
// negative pads (crops) are not lowered.
func.func @reflection_pad_too_wide(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,9],f32> {
  %int3 = torch.constant.int 3
  %pad = torch.prim.ListConstruct %int3, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  // expected-error @+1 {{unsupported op 'torch.aten.reflection_pad1d': reflection padding must be smaller than the padded dim}}
  %0 = "torch.aten.reflection_pad1d"(%x, %pad) : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[2,9],f32>
  return %0 : !torch.vtensor<[2,9],f32>
}
