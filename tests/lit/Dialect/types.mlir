// RUN: ltc-mlir-opt %s | FileCheck %s
// RUN: ltc-mlir-opt %s | ltc-mlir-opt | FileCheck %s

// CHECK-LABEL: func.func @types
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.vtensor<[2,3],f32>
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.vtensor<[],f64>
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.vtensor<[0,4],si64>
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.vtensor<[8],bf16>
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.vtensor<[1,1],i1>
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.vtensor<[3],ui8>
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.int, %{{[a-z0-9]+}}: !torch.float, %{{[a-z0-9]+}}: !torch.bool, %{{[a-z0-9]+}}: !torch.none
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.list<int>
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.list<int>
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.list<vtensor<[2],f32>>
// CHECK-SAME: %{{[a-z0-9]+}}: !torch.list<list<float>>
func.func @types(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[],f64>,
                 %c: !torch.vtensor<[0,4],si64>, %d: !torch.vtensor<[8],bf16>,
                 %e: !torch.vtensor<[1,1],i1>, %f: !torch.vtensor<[3],ui8>,
                 %g: !torch.int, %h: !torch.float, %i: !torch.bool, %j: !torch.none,
                 %k: !torch.list<int>, %l: !torch.list<!torch.int>,
                 %m: !torch.list<!torch.vtensor<[2],f32>>,
                 %n: !torch.list<list<float>>) {
  return
}
