// RUN: ltc-mlir-opt %s | FileCheck %s
// RUN: ltc-mlir-opt %s --mlir-print-op-generic | ltc-mlir-opt | FileCheck %s
// RUN: ltc-mlir-opt %s --cse | FileCheck %s --check-prefix=CSE

// Ops generated from torch's operator registry (tools/torch_ods_gen) parse,
// verify their operand and result types and print, whether or not anything
// lowers them: convolutions, pooling with indices, normalization, masks,
// constructors, scans, sorting, advanced indexing, bags, RNNs, resampling
// and random ops.

// CHECK-LABEL: func.func @conv_pool_norm
func.func @conv_pool_norm(%x: !torch.vtensor<[2,3,8,8],f32>, %w: !torch.vtensor<[4,3,3,3],f32>, %b: !torch.vtensor<[4],f32>, %mean: !torch.vtensor<[4],f32>, %var: !torch.vtensor<[4],f32>, %momentum: !torch.float) -> (!torch.vtensor<[2,4,6,6],f32>, !torch.vtensor<[2,4,3,3],f32>, !torch.vtensor<[2,4,3,3],si64>, !torch.vtensor<[2,4,6,6],f32>, !torch.vtensor<[2,4,12,12],f32>) {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int12 = torch.constant.int 12
  %eps = torch.constant.float 1.0e-05
  %ones = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %twos = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %size = torch.prim.ListConstruct %int12, %int12 : (!torch.int, !torch.int) -> !torch.list<int>
  // CHECK: torch.aten.convolution %{{.*}} : (!torch.vtensor<[2,3,8,8],f32>, !torch.vtensor<[4,3,3,3],f32>, !torch.vtensor<[4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,4,6,6],f32>
  %conv = torch.aten.convolution %x, %w, %b, %ones, %zeros, %ones, %false, %zeros, %int1 : (!torch.vtensor<[2,3,8,8],f32>, !torch.vtensor<[4,3,3,3],f32>, !torch.vtensor<[4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,4,6,6],f32>
  // CHECK: torch.aten.max_pool2d_with_indices {{.*}} -> (!torch.vtensor<[2,4,3,3],f32>, !torch.vtensor<[2,4,3,3],si64>)
  %pool:2 = torch.aten.max_pool2d_with_indices %conv, %twos, %twos, %zeros, %ones, %false : (!torch.vtensor<[2,4,6,6],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> (!torch.vtensor<[2,4,3,3],f32>, !torch.vtensor<[2,4,3,3],si64>)
  // Optional tensors: weight and bias given, running stats given.
  // CHECK: torch.aten.native_batch_norm {{.*}} : (!torch.vtensor<[2,4,6,6],f32>, !torch.vtensor<[4],f32>, !torch.none, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[2,4,6,6],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>)
  %bn:3 = torch.aten.native_batch_norm %conv, %b, %none, %mean, %var, %true, %momentum, %eps : (!torch.vtensor<[2,4,6,6],f32>, !torch.vtensor<[4],f32>, !torch.none, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[2,4,6,6],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>)
  // CHECK: torch.aten.upsample_bilinear2d {{.*}} : (!torch.vtensor<[2,4,6,6],f32>, !torch.list<int>, !torch.bool, !torch.none, !torch.none) -> !torch.vtensor<[2,4,12,12],f32>
  %up = torch.aten.upsample_bilinear2d %bn#0, %size, %false, %none, %none : (!torch.vtensor<[2,4,6,6],f32>, !torch.list<int>, !torch.bool, !torch.none, !torch.none) -> !torch.vtensor<[2,4,12,12],f32>
  return %conv, %pool#0, %pool#1, %bn#0, %up : !torch.vtensor<[2,4,6,6],f32>, !torch.vtensor<[2,4,3,3],f32>, !torch.vtensor<[2,4,3,3],si64>, !torch.vtensor<[2,4,6,6],f32>, !torch.vtensor<[2,4,12,12],f32>
}

// CHECK-LABEL: func.func @masks_and_constructors
func.func @masks_and_constructors(%x: !torch.vtensor<[4,5],f32>, %m: !torch.vtensor<[4,5],i1>, %v: !torch.float) -> (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[10],si64>, !torch.vtensor<[4,5],f32>) {
  %none = torch.constant.none
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int10 = torch.constant.int 10
  %int4 = torch.constant.int 4
  // CHECK: torch.aten.where.self
  %w = torch.aten.where.self %m, %x, %x : (!torch.vtensor<[4,5],i1>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4,5],f32>
  // CHECK: torch.aten.masked_fill.Scalar %{{.*}}, %{{.*}}, %{{.*}} : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],i1>, !torch.float) -> !torch.vtensor<[4,5],f32>
  %f = torch.aten.masked_fill.Scalar %x, %m, %v : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],i1>, !torch.float) -> !torch.vtensor<[4,5],f32>
  // dtype (ScalarType 4 = int64), layout, device and pin_memory as None.
  // CHECK: torch.aten.arange.start_step {{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[10],si64>
  %a = torch.aten.arange.start_step %int0, %int10, %int1, %int4, %none, %none, %none : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[10],si64>
  // CHECK: torch.aten.cumsum {{.*}} : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.none) -> !torch.vtensor<[4,5],f32>
  %c = torch.aten.cumsum %x, %int1, %none : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.none) -> !torch.vtensor<[4,5],f32>
  return %w, %f, %a, %c : !torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[10],si64>, !torch.vtensor<[4,5],f32>
}

// CHECK-LABEL: func.func @sorting_and_indexing
func.func @sorting_and_indexing(%x: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[3],si64>, %vals: !torch.vtensor<[4,3],f32>) -> (!torch.vtensor<[4,2],f32>, !torch.vtensor<[4,2],si64>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],si64>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[4,5],f32>) {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  // CHECK: torch.aten.topk {{.*}} -> (!torch.vtensor<[4,2],f32>, !torch.vtensor<[4,2],si64>)
  %t:2 = torch.aten.topk %x, %int2, %int1, %true, %true : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.int, !torch.bool, !torch.bool) -> (!torch.vtensor<[4,2],f32>, !torch.vtensor<[4,2],si64>)
  // CHECK: torch.aten.sort {{.*}} -> (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],si64>)
  %s:2 = torch.aten.sort %x, %int1, %false : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.bool) -> (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],si64>)
  // x[:, i]: a Tensor?[] list mixing None and a tensor.
  // CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.none, !torch.vtensor<[3],si64>) -> !torch.list<none>
  %idx = torch.prim.ListConstruct %none, %i : (!torch.none, !torch.vtensor<[3],si64>) -> !torch.list<none>
  // CHECK: torch.aten.index.Tensor {{.*}} : (!torch.vtensor<[4,5],f32>, !torch.list<none>) -> !torch.vtensor<[4,3],f32>
  %g = torch.aten.index.Tensor %x, %idx : (!torch.vtensor<[4,5],f32>, !torch.list<none>) -> !torch.vtensor<[4,3],f32>
  // CHECK: torch.aten.index_put {{.*}} : (!torch.vtensor<[4,5],f32>, !torch.list<none>, !torch.vtensor<[4,3],f32>, !torch.bool) -> !torch.vtensor<[4,5],f32>
  %p = torch.aten.index_put %x, %idx, %vals, %false : (!torch.vtensor<[4,5],f32>, !torch.list<none>, !torch.vtensor<[4,3],f32>, !torch.bool) -> !torch.vtensor<[4,5],f32>
  return %t#0, %t#1, %s#0, %s#1, %g, %p : !torch.vtensor<[4,2],f32>, !torch.vtensor<[4,2],si64>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],si64>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[4,5],f32>
}

// CHECK-LABEL: func.func @bags_rnns_random
func.func @bags_rnns_random(%w: !torch.vtensor<[10,3],f32>, %i: !torch.vtensor<[6],si64>, %o: !torch.vtensor<[2],si64>, %x: !torch.vtensor<[5,2,3],f32>, %h: !torch.vtensor<[1,2,4],f32>, %c: !torch.vtensor<[1,2,4],f32>, %wih: !torch.vtensor<[16,3],f32>, %whh: !torch.vtensor<[16,4],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[5,2,4],f32>, !torch.vtensor<[5,2,3],f32>, !torch.vtensor<[5,2,3],i1>, !torch.vtensor<[5,2,3],f32>) {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %p = torch.constant.float 5.000000e-01
  %zero = torch.constant.float 0.000000e+00
  // CHECK: torch.aten.embedding_bag {{.*}} -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[0],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>)
  %bag:4 = torch.aten.embedding_bag %w, %i, %o, %false, %int0, %false, %none, %false : (!torch.vtensor<[10,3],f32>, !torch.vtensor<[6],si64>, !torch.vtensor<[2],si64>, !torch.bool, !torch.int, !torch.bool, !torch.none, !torch.bool) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[0],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>)
  %hx = torch.prim.ListConstruct %h, %c : (!torch.vtensor<[1,2,4],f32>, !torch.vtensor<[1,2,4],f32>) -> !torch.list<vtensor<[1,2,4],f32>>
  %params = torch.prim.ListConstruct %wih, %whh : (!torch.vtensor<[16,3],f32>, !torch.vtensor<[16,4],f32>) -> !torch.list<vtensor<[16,3],f32>>
  // CHECK: torch.aten.lstm.input {{.*}} -> (!torch.vtensor<[5,2,4],f32>, !torch.vtensor<[1,2,4],f32>, !torch.vtensor<[1,2,4],f32>)
  %lstm:3 = torch.aten.lstm.input %x, %hx, %params, %false, %int1, %zero, %false, %false, %false : (!torch.vtensor<[5,2,3],f32>, !torch.list<vtensor<[1,2,4],f32>>, !torch.list<vtensor<[16,3],f32>>, !torch.bool, !torch.int, !torch.float, !torch.bool, !torch.bool, !torch.bool) -> (!torch.vtensor<[5,2,4],f32>, !torch.vtensor<[1,2,4],f32>, !torch.vtensor<[1,2,4],f32>)
  // CHECK: torch.aten.native_dropout {{.*}} : (!torch.vtensor<[5,2,3],f32>, !torch.float, !torch.bool) -> (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[5,2,3],i1>)
  %d:2 = torch.aten.native_dropout %x, %p, %true : (!torch.vtensor<[5,2,3],f32>, !torch.float, !torch.bool) -> (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[5,2,3],i1>)
  // Random ops are not Pure: two identical draws stay two ops under CSE.
  // CSE-LABEL: func.func @bags_rnns_random
  // CSE: %[[R1:.*]] = torch.aten.bernoulli.p
  // CSE: %[[R2:.*]] = torch.aten.bernoulli.p
  // CSE: torch.aten.add.Tensor %[[R1]], %[[R2]]
  %r1 = torch.aten.bernoulli.p %x, %p, %none : (!torch.vtensor<[5,2,3],f32>, !torch.float, !torch.none) -> !torch.vtensor<[5,2,3],f32>
  %r2 = torch.aten.bernoulli.p %x, %p, %none : (!torch.vtensor<[5,2,3],f32>, !torch.float, !torch.none) -> !torch.vtensor<[5,2,3],f32>
  %r = torch.aten.add.Tensor %r1, %r2, %int1 : (!torch.vtensor<[5,2,3],f32>, !torch.vtensor<[5,2,3],f32>, !torch.int) -> !torch.vtensor<[5,2,3],f32>
  return %bag#0, %lstm#0, %d#0, %d#1, %r : !torch.vtensor<[2,3],f32>, !torch.vtensor<[5,2,4],f32>, !torch.vtensor<[5,2,3],f32>, !torch.vtensor<[5,2,3],i1>, !torch.vtensor<[5,2,3],f32>
}

// Devices and generators have their own types.
// CHECK-LABEL: func.func @device_and_generator
func.func @device_and_generator(%x: !torch.vtensor<[3],f32>, %g: !torch.Generator) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) {
  %none = torch.constant.none
  %false = torch.constant.bool false
  // CHECK: torch.constant.device "cpu"
  %cpu = torch.constant.device "cpu"
  // CHECK: torch.aten._to_copy {{.*}} : (!torch.vtensor<[3],f32>, !torch.none, !torch.none, !torch.Device, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[3],f32>
  %0 = torch.aten._to_copy %x, %none, %none, %cpu, %none, %false, %none : (!torch.vtensor<[3],f32>, !torch.none, !torch.none, !torch.Device, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[3],f32>
  // CHECK: torch.aten.bernoulli {{.*}} : (!torch.vtensor<[3],f32>, !torch.Generator) -> !torch.vtensor<[3],f32>
  %1 = torch.aten.bernoulli %x, %g : (!torch.vtensor<[3],f32>, !torch.Generator) -> !torch.vtensor<[3],f32>
  return %0, %1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}
