#!/bin/bash
# Builds an exported model with stock MLIR 22 tools only (no ltc_mlir
# compiler): the module joined with its weights, lowered by upstream passes,
# translated to LLVM IR, compiled by llc, linked with the generated C ABI.
#   tools/export/build_with_upstream_mlir.sh DIR NAME [RUNTIME_LIB_DIR]
# DIR holds NAME.mlir, NAME.weights.mlir and NAME_abi.c + NAME.h (export
# with aot=True writes the C files). Writes DIR/NAME.upstream.so.
# RUNTIME_LIB_DIR: where libltc_mlir_runtime.so is, for modules that call
# it (exported without portable=True); a portable module needs only MLIR's
# own libmlir_c_runner_utils.
set -euo pipefail
dir=$1 name=$2 runtime=${3:-}
llvm=/usr/lib/llvm-22/bin
# Serial loops (no OpenMP) keep the program free of any runtime library.
# canonicalize,cse first, as most pipelines do: the exported stores must
# survive it (tests/export/test_export_training.py).
pipeline="builtin.module(\
canonicalize,cse,\
one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},\
buffer-results-to-out-params{modify-public-functions},\
buffer-deallocation-pipeline,\
func.func(convert-linalg-to-loops),\
func.func(llvm-request-c-wrappers),\
expand-strided-metadata,lower-affine,finalize-memref-to-llvm,\
convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,\
convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,\
convert-ub-to-llvm,reconcile-unrealized-casts)"
cat "$dir/$name.mlir" "$dir/$name.weights.mlir" |
  "$llvm/mlir-opt" --pass-pipeline="$pipeline" -o "$dir/$name.upstream.llvm.mlir"
"$llvm/mlir-translate" --mlir-to-llvmir "$dir/$name.upstream.llvm.mlir" -o "$dir/$name.upstream.ll"
"$llvm/llc" -O2 -filetype=obj -relocation-model=pic "$dir/$name.upstream.ll" -o "$dir/$name.upstream.o"
# memrefCopy (strided copies) comes from upstream MLIR's own runtime library.
libs=(-L/usr/lib/llvm-22/lib -l:libmlir_c_runner_utils.so -Wl,-rpath,/usr/lib/llvm-22/lib -lm)
if [ -n "$runtime" ]; then libs+=(-L"$runtime" -lltc_mlir_runtime -Wl,-rpath,"$runtime"); fi
cc -shared -fPIC -O2 -std=c11 -DLTC_MLIR_UPSTREAM_BUILD -o "$dir/$name.upstream.so" \
  "$dir/${name}_abi.c" "$dir/$name.upstream.o" "${libs[@]}"
