// runtime/lapack.h - matrix decompositions compiled code calls (LAPACK).
//
// SVD, symmetric eigendecomposition and QR have no unique answer: singular
// and eigenvectors are defined up to sign, and which sign comes out depends
// on the algorithm. So that a lazy graph gives exactly eager's vectors, the
// TorchToLinalg lowerings (LapackDecompositions.cpp) call the LAPACK
// routines eager PyTorch calls (gesdd, syevd, geqrf + orgqr), from the same
// library (the MKL inside libtorch_cpu in a torch process, else the
// system's liblapack.so.3), with the same arguments: column-major
// copies, the same job letters and workspace queries.
//
// Each entry point takes MLIR memref descriptors (func.call with
// llvm.emit_c_interface, hence the _mlir_ciface_ names). Matrices are batched
// [B, rows, cols] with any strides; inputs are read, never written. The
// library is opened on first use; when it cannot be loaded, symbol
// resolution fails and so does the compile (the graph then runs eagerly).
#ifndef LTC_MLIR_RUNTIME_LAPACK_H
#define LTC_MLIR_RUNTIME_LAPACK_H

#include "ltc_mlir/runtime/memref.h"

#include <string>

namespace ltc_mlir {
namespace runtime {

/// Address of a decomposition entry point ("_mlir_ciface_ltc_mlir_rt_svd_f32",
/// ...), or null when `name` is not one or LAPACK cannot be loaded.
void *resolveLapackSymbol(const std::string &name);

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_LAPACK_H
