// RUN: ltc-mlir-opt %s | FileCheck %s
// RUN: ltc-mlir-opt %s --mlir-print-op-generic | ltc-mlir-opt | FileCheck %s

// The example shape of what ltc_backend emits, in custom syntax.
// CHECK-LABEL: func.func @forward
func.func @forward(%arg0: !torch.vtensor<[64,784],f32>, %arg1: !torch.vtensor<[512,784],f32>, %arg2: !torch.vtensor<[512],f32>, %arg3: !torch.int, %arg4: !torch.float) -> (!torch.vtensor<[64,512],f32>, !torch.vtensor<[512],f32>) {
  // CHECK: torch.aten.t_copy %{{.*}} : (!torch.vtensor<[512,784],f32>) -> !torch.vtensor<[784,512],f32>
  %0 = torch.aten.t_copy %arg1 : (!torch.vtensor<[512,784],f32>) -> !torch.vtensor<[784,512],f32>
  // CHECK: torch.aten.addmm
  %1 = torch.aten.addmm %arg2, %arg0, %0, %arg3, %arg3 : (!torch.vtensor<[512],f32>, !torch.vtensor<[64,784],f32>, !torch.vtensor<[784,512],f32>, !torch.int, !torch.int) -> !torch.vtensor<[64,512],f32>
  %2 = torch.aten.relu %1 : (!torch.vtensor<[64,512],f32>) -> !torch.vtensor<[64,512],f32>
  // CHECK: torch.constant.int 0
  %c0 = torch.constant.int 0
  // CHECK: torch.prim.ListConstruct %{{.*}} : (!torch.int) -> !torch.list<int>
  %l = torch.prim.ListConstruct %c0 : (!torch.int) -> !torch.list<int>
  // CHECK: torch.constant.bool false
  %t = torch.constant.bool false
  // CHECK: torch.constant.none
  %n = torch.constant.none
  // CHECK: torch.aten.sum.dim_IntList %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.vtensor<[64,512],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[512],f32>
  %3 = torch.aten.sum.dim_IntList %2, %l, %t, %n : (!torch.vtensor<[64,512],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[512],f32>
  // CHECK: torch.constant.float 2.500000e-01
  %f = torch.constant.float 0.25
  // Broadcasting of a 0-dim tensor and a scalar.
  %s = torch.aten.mul.Scalar %3, %f : (!torch.vtensor<[512],f32>, !torch.float) -> !torch.vtensor<[512],f32>
  %z = torch.aten.add.Tensor %s, %arg2, %arg4 : (!torch.vtensor<[512],f32>, !torch.vtensor<[512],f32>, !torch.float) -> !torch.vtensor<[512],f32>
  return %2, %z : !torch.vtensor<[64,512],f32>, !torch.vtensor<[512],f32>
}

// Multi-result op, optional tensor operand, 0-dim results.
// CHECK-LABEL: func.func @nll
func.func @nll(%x: !torch.vtensor<[4,10],f32>, %y: !torch.vtensor<[4],si64>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) {
  %none = torch.constant.none
  %one = torch.constant.int 1
  %ign = torch.constant.int -100
  // CHECK: torch.aten.nll_loss_forward {{.*}} -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>)
  %out:2 = torch.aten.nll_loss_forward %x, %y, %none, %one, %ign : (!torch.vtensor<[4,10],f32>, !torch.vtensor<[4],si64>, !torch.none, !torch.int, !torch.int) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>)
  return %out#0, %out#1 : !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
}

// Empty lists and views.
// CHECK-LABEL: func.func @views
func.func @views(%x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[6,4],f32> {
  // CHECK: torch.prim.ListConstruct  : () -> !torch.list<int>
  %empty = torch.prim.ListConstruct : () -> !torch.list<int>
  %a = torch.constant.int 6
  %b = torch.constant.int -1
  %l = torch.prim.ListConstruct %a, %b : (!torch.int, !torch.int) -> !torch.list<int>
  // CHECK: torch.aten.view_copy
  %v = torch.aten.view_copy %x, %l : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[6,4],f32>
  return %v : !torch.vtensor<[6,4],f32>
}
