// runtime/memref.h - the MLIR memref descriptor entry points receive.
//
// A func.call to a function declared with llvm.emit_c_interface passes each
// memref operand as a pointer to this struct (the _mlir_ciface_ wrappers).
#ifndef LTC_MLIR_RUNTIME_MEMREF_H
#define LTC_MLIR_RUNTIME_MEMREF_H

#include <cstdint>

namespace ltc_mlir {
namespace runtime {

/// An MLIR ranked memref descriptor.
template <typename T, int Rank> struct MemRefDescriptor {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_MEMREF_H
