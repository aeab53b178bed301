//===- AtenSemantics.h - ATen rules shared by verifiers and lowerings -*- C++ -*-===//
//
// One implementation of the ATen conventions that both the torch dialect's
// verifiers and the TorchToLinalg patterns need: dim wrapping, broadcasting,
// dtype categories, the storage of bool tensors, and reading torch
// constants. (ATen's type promotion still lives in TorchToLinalg's
// Elementwise.cpp.)
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_DIALECT_TORCH_UTILS_ATENSEMANTICS_H
#define LTC_MLIR_DIALECT_TORCH_UTILS_ATENSEMANTICS_H

#include "ltc_mlir/Dialect/Torch/IR/TorchTypes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace ltc_mlir::torch {

//===----------------------------------------------------------------------===//
// Dims and shapes
//===----------------------------------------------------------------------===//

/// Wraps a possibly negative dim into [0, rank) like ATen's maybe_wrap_dim
/// (a 0-dim tensor accepts dims -1 and 0). std::nullopt when out of range.
std::optional<int64_t> normalizeDim(int64_t dim, int64_t rank);

/// ATen broadcasting, aligned at the trailing dims: `from` has at most as
/// many dims as `to`, and each of its dims equals `to`'s or is 1.
bool isBroadcastableTo(llvm::ArrayRef<int64_t> from,
                       llvm::ArrayRef<int64_t> to);

/// Advanced indexing `self[indices]` (aten.index.Tensor, aten.index_put)
/// with index tensors: where the broadcast index tensors and self's other
/// dims go in the result.
struct AdvancedIndexing {
  /// The index tensors' shapes broadcast together (ATen broadcasting).
  llvm::SmallVector<int64_t> broadcastShape;
  /// The result dim where broadcastShape starts: the first indexed dim when
  /// the indexed dims are adjacent, else 0 (eager moves it to the front).
  int64_t broadcastStart = 0;
  llvm::SmallVector<int64_t> resultShape;
  /// Per self dim: its result dim, or -1 for an indexed dim.
  llvm::SmallVector<int64_t> resultDimOfSelfDim;
};

/// The result layout of self[indices], where `indexShapes[k]` is the shape
/// of the index tensor for self's dim k, or std::nullopt for None (the whole
/// dim is kept, as are the dims past the list's end). std::nullopt when
/// there are more indices than dims, no index tensor at all, or the index
/// shapes do not broadcast together.
std::optional<AdvancedIndexing> getAdvancedIndexing(
    llvm::ArrayRef<int64_t> selfShape,
    llvm::ArrayRef<std::optional<llvm::ArrayRef<int64_t>>> indexShapes);

//===----------------------------------------------------------------------===//
// Dtypes (the element types of !torch.vtensor: f16, bf16, f32, f64, si8,
// si16, si32, si64, ui8 and i1 for bool)
//===----------------------------------------------------------------------===//

/// The bool dtype (signless i1). False for a null type.
bool isBoolDtype(mlir::Type dtype);
/// Integer dtypes whose values zero-extend: ui8 and bool.
bool isUnsignedDtype(mlir::Type dtype);
bool isFloatDtype(mlir::Type dtype);
/// ATen's isIntegralType(dtype, includeBool).
bool isIntegralDtype(mlir::Type dtype, bool includeBool);

/// The builtin tensor type holding a vtensor's elements in memory: signless
/// integers, and bools as i8 0/1 (PyTorch's layout; LLVM bit-packs vectors
/// of i1 in memory, so vectorized code on i1 buffers would disagree with
/// scalar code and with PyTorch). Lowerings producing bools compute an i1
/// and zero-extend it.
mlir::RankedTensorType getStorageTensorType(ValueTensorType type);

//===----------------------------------------------------------------------===//
// Torch constants. These look through single-operand unrealized casts and
// arith.constant, so they work on original and on already converted values.
//===----------------------------------------------------------------------===//

/// The value a chain of single-operand unrealized casts starts from.
mlir::Value lookThroughCasts(mlir::Value value);
std::optional<int64_t> getConstantInt(mlir::Value value);
std::optional<double> getConstantFloat(mlir::Value value);
std::optional<bool> getConstantBool(mlir::Value value);
/// The value of a `torch.constant.str`.
std::optional<std::string> getConstantStr(mlir::Value value);
/// Elements of a `torch.prim.ListConstruct` of constant ints.
std::optional<llvm::SmallVector<int64_t>> getConstantIntList(mlir::Value value);
/// Elements of a `torch.prim.ListConstruct` of constant bools.
std::optional<llvm::SmallVector<bool>> getConstantBoolList(mlir::Value value);
bool isNone(mlir::Value value);

} // namespace ltc_mlir::torch

#endif // LTC_MLIR_DIALECT_TORCH_UTILS_ATENSEMANTICS_H
