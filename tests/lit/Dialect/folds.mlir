// RUN: ltc-mlir-opt %s -canonicalize | FileCheck %s

// Constants are uniqued by the folder; dead ones disappear.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT: %[[C:.*]] = torch.constant.int 3
// CHECK-NEXT: %[[L:.*]] = torch.prim.ListConstruct %[[C]], %[[C]] : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK-NEXT: return %[[L]]
func.func @constants() -> !torch.list<int> {
  %a = torch.constant.int 3
  %b = torch.constant.int 3
  %unused = torch.constant.float 1.0
  %n = torch.constant.none
  %t = torch.constant.bool true
  %l = torch.prim.ListConstruct %a, %b : (!torch.int, !torch.int) -> !torch.list<int>
  return %l : !torch.list<int>
}
