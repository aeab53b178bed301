//===- AdvancedIndexingOps.cpp - verifiers of index.Tensor, index_put -----===//
//
// aten.index.Tensor, aten.index_put and aten._index_put_impl take a
// `Tensor?[]`: a torch.prim.ListConstruct of vtensors and Nones, whose list
// type names only a representative element (see prim.ListConstruct). The
// verifiers check the elements themselves and, for integer index tensors,
// the shapes against ATen's advanced-indexing rule (getAdvancedIndexing).
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Dialect/Torch/IR/TorchOps.h"

#include "ltc_mlir/Dialect/Torch/Utils/AtenSemantics.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace ltc_mlir::torch {
namespace {

std::string shapeText(ArrayRef<int64_t> sizes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleave(sizes, os, ",");
  os << "]";
  return s;
}

/// Checks the elements of `indices` against `self`; `layout` gets the
/// indexing result layout when every element is None or an integer tensor
/// (and stays empty for masks, whose result shape depends on the values,
/// or a list that is not a prim.ListConstruct).
LogicalResult verifyIndexList(Operation *op, Value indices,
                              ValueTensorType self,
                              std::optional<AdvancedIndexing> &layout) {
  layout.reset();
  auto list = indices.getDefiningOp<PrimListConstructOp>();
  if (!list)
    return success();
  if (static_cast<int64_t>(list.getElements().size()) > self.getRank())
    return op->emitOpError()
           << "has " << list.getElements().size()
           << " indices for a self of rank " << self.getRank();
  SmallVector<std::optional<ArrayRef<int64_t>>> shapes;
  bool hasMask = false;
  for (auto [k, element] : llvm::enumerate(list.getElements())) {
    if (llvm::isa<NoneType>(element.getType())) {
      shapes.push_back(std::nullopt);
      continue;
    }
    auto type = llvm::dyn_cast<ValueTensorType>(element.getType());
    if (!type || !isIntegralDtype(type.getDtype(), /*includeBool=*/true))
      return op->emitOpError()
             << "index " << k << " must be an integer or bool tensor or None";
    hasMask |= isUnsignedDtype(type.getDtype());
    shapes.push_back(type.getSizes());
  }
  if (hasMask)
    return success();
  if (llvm::all_of(shapes, [](const auto &s) { return !s.has_value(); }))
    return success();
  layout = getAdvancedIndexing(self.getSizes(), shapes);
  if (!layout) {
    std::string text;
    for (auto [i, s] : llvm::enumerate(shapes))
      text += (i ? ", " : "") + (s ? shapeText(*s) : std::string("None"));
    return op->emitOpError()
           << "index tensors of shapes " << text
           << " cannot be broadcast together";
  }
  return success();
}

template <typename OpTy>
LogicalResult verifyIndexPut(OpTy op) {
  ValueTensorType self = op.getSelf().getType();
  if (op.getType() != self)
    return op.emitOpError() << "result type " << op.getType()
                            << " differs from self's " << self;
  ValueTensorType values = op.getValues().getType();
  if (values.getDtype() != self.getDtype())
    return op.emitOpError() << "values dtype " << values.getDtype()
                            << " differs from self's " << self.getDtype();
  std::optional<AdvancedIndexing> layout;
  if (failed(verifyIndexList(op, op.getIndices(), self, layout)))
    return failure();
  if (layout && !isBroadcastableTo(values.getSizes(), layout->resultShape))
    return op.emitOpError()
           << "values of shape " << shapeText(values.getSizes())
           << " cannot be broadcast to the indexing result of shape "
           << shapeText(layout->resultShape);
  return success();
}

} // namespace

LogicalResult AtenIndexTensorOp::verify() {
  ValueTensorType self = getSelf().getType();
  if (getType().getDtype() != self.getDtype())
    return emitOpError() << "result dtype " << getType().getDtype()
                         << " differs from self dtype " << self.getDtype();
  std::optional<AdvancedIndexing> layout;
  if (failed(verifyIndexList(*this, getIndices(), self, layout)))
    return failure();
  if (layout && getType().getSizes() != ArrayRef<int64_t>(layout->resultShape))
    return emitOpError() << "result shape " << shapeText(getType().getSizes())
                         << " differs from the indexing result's "
                         << shapeText(layout->resultShape);
  return success();
}

LogicalResult AtenIndexPutOp::verify() { return verifyIndexPut(*this); }

LogicalResult AtenIndexPutImplOp::verify() { return verifyIndexPut(*this); }

} // namespace ltc_mlir::torch
