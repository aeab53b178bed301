// RUN: ltc-mlir-opt %s --ltc-linalg-to-llvm="vector-bits=256" | FileCheck %s
// RUN: ltc-mlir-opt %s --ltc-linalg-to-llvm="vector-bits=256" | FileCheck %s --check-prefix=EXPAND

// bf16 needs no bf16 instruction (AVX512-BF16) and no __truncsfbf2 libcall:
// the arithmetic is done in f32 (rounded to bf16 after each op, as ATen),
// bf16 -> f32 is a 16-bit shift and f32 -> bf16 rounds to nearest even with
// integer ops. f16/bf16 math functions are computed in f32 (exp as its f32
// polynomial, ltc-approximate-vector-math).
// CHECK-LABEL: llvm.func @forward(
// CHECK-NOT: llvm.fadd {{.*}}bf16
// CHECK-NOT: llvm.fmul {{.*}}bf16
// CHECK-NOT: llvm.fptrunc {{.*}} to {{.*}}bf16
// CHECK-NOT: llvm.fpext {{.*}}bf16
// CHECK-NOT: llvm.intr.exp({{.*}}bf16
// CHECK-NOT: __truncsfbf2
// CHECK: llvm.return
// EXPAND-LABEL: llvm.func @forward(
// EXPAND: llvm.shl %{{.*}} : vector<{{[0-9]+}}xi32>
// EXPAND: llvm.fadd %{{.*}} : vector<{{[0-9]+}}xf32>
// EXPAND: llvm.intr.fma(%{{.*}}) : (vector<{{[0-9]+}}xf32>
// EXPAND: llvm.lshr %{{.*}} : vector<{{[0-9]+}}xi32>
func.func @forward(%a: tensor<64xbf16>, %b: tensor<64xbf16>) -> tensor<64xbf16> {
  %e = tensor.empty() : tensor<64xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<64xbf16>, tensor<64xbf16>) outs(%e : tensor<64xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %s = arith.addf %x, %y : bf16
    %m = arith.mulf %s, %x : bf16
    %x2 = math.exp %m : bf16
    linalg.yield %x2 : bf16
  }  -> tensor<64xbf16>
  return %r : tensor<64xbf16>
}
