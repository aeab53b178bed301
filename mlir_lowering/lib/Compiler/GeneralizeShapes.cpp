//===- GeneralizeShapes.cpp - one linalg module for every batch size ------===//
//
// The conversions to linalg are written for static shapes. A graph seen at
// two batch sizes B0 and B1 is lowered at both, and the two linalg functions
// are compared op by op. Where they differ only by multiples of the batch
// size (a tensor dim k*B, an integer constant k*B, a float constant c*B or
// c/B), the first becomes the generic function: those dims dynamic, those
// constants computed from B, which is read from an argument's dim on entry.
// Anything else that differs (another op, other operands, an attribute that
// is not such a multiple) refuses generalization with the reason; the graph
// then compiles per size. The generic function with B = B0 is the first
// function again, with B = B1 the second one.
//
//===----------------------------------------------------------------------===//

#include "GeneralizeShapes.h"

#include "ltc_mlir/Conversion/TorchToLinalg/TorchToLinalg.h"
#include "ltc_mlir/Dialect/Torch/IR/TorchTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <optional>

using namespace mlir;

namespace ltc_mlir {
namespace {

/// How a float constant depends on the batch size.
enum class FloatForm { Times, Over }; // c * B, c / B

struct FloatChange {
  arith::ConstantOp op;
  FloatForm form;
  double c;
};

struct IntChange {
  arith::ConstantOp op;
  int64_t k; // value = k * B
};

/// Replaces `op` (one result) by a clone right before each of its users.
void cloneForEachUse(Operation *op) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : op->getResult(0).getUses())
    uses.push_back(&use);
  for (OpOperand *use : uses) {
    OpBuilder b(use->getOwner());
    use->set(b.clone(*op)->getResult(0));
  }
  op->erase();
}

/// The lowering merges equal constants and equal-typed empty tensors
/// (canonicalize, CSE): whether a batch-sized one meets an equal one
/// depends on the batch size (batch 10 next to 10 input features). With a
/// clone per use in both functions, such coincidences no longer change the
/// structure. (The LLVM pipeline merges them again.)
void unmergeLeaves(func::FuncOp func) {
  SmallVector<Operation *> fills, leaves;
  func.walk([&](Operation *op) {
    bool leaf = isa<arith::ConstantOp, tensor::EmptyOp>(op) &&
                op->getNumOperands() == 0;
    if (auto fill = dyn_cast<linalg::FillOp>(op))
      leaf = fill.hasPureTensorSemantics() &&
             llvm::all_of(op->getOperands(), [](Value v) {
               Operation *def = v.getDefiningOp();
               return def && isa<arith::ConstantOp, tensor::EmptyOp>(def);
             });
    if (leaf && op->getNumResults() == 1 && !op->getResult(0).hasOneUse())
      (isa<linalg::FillOp>(op) ? fills : leaves).push_back(op);
  });
  // Fills first (they are erased): their clones then share the leaves they
  // read, which are cloned next.
  for (Operation *op : fills)
    cloneForEachUse(op);
  for (Operation *op : leaves)
    cloneForEachUse(op);
}

bool hasDynamicStrides(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         llvm::all_of(strides, ShapedType::isDynamic);
}

class Generalizer {
public:
  Generalizer(int64_t b0, int64_t b1, std::string &why)
      : b0(b0), b1(b1), why(why) {}

  LogicalResult run(func::FuncOp generic, func::FuncOp other);

private:
  /// k with a0 == k * B0 and a1 == k * B1 (k >= 1).
  std::optional<int64_t> multiple(int64_t a0, int64_t a1) const {
    if (a0 <= 0 || a0 % b0 != 0 || (a0 / b0) * b1 != a1)
      return std::nullopt;
    return a0 / b0;
  }
  LogicalResult refuse(Operation *op, const Twine &what) {
    why = (op ? op->getName().getStringRef().str() + ": " : std::string()) +
          what.str();
    return failure();
  }
  LogicalResult matchValues(Value v0, Value v1, Operation *where);
  LogicalResult matchOps(Operation *op0, Operation *op1);
  LogicalResult matchAttribute(Operation *op0, NamedAttribute a0,
                               Attribute a1);
  LogicalResult rewrite(func::FuncOp generic);
  Value sizeValue(int64_t k);
  Value batchAsFloat(OpBuilder &b, Location loc, FloatType type);

  int64_t b0, b1;
  std::string &why;
  llvm::DenseMap<Value, Value> counterpart;
  /// Values whose type gets dynamic dims, with their generic type.
  SmallVector<std::pair<Value, Type>> retyped;
  SmallVector<IntChange> intChanges;
  /// Slices with batch-scaled offsets, sizes or strides, and their
  /// counterparts.
  llvm::SetVector<Operation *> slices;
  llvm::DenseMap<Operation *, Operation *> counterpartOp;
  SmallVector<FloatChange> floatChanges;
  Value batch;
  Block *entry = nullptr;
  Operation *lastSizeOp = nullptr;
  llvm::DenseMap<int64_t, Value> sizes;
};

LogicalResult Generalizer::matchValues(Value v0, Value v1, Operation *where) {
  counterpart[v0] = v1;
  Type t0 = v0.getType(), t1 = v1.getType();
  if (t0 == t1)
    return success();
  // Tensors, and memrefs (buffers handed to the runtime's kernels) whose
  // layout does not depend on the sizes: identity, or fully dynamic strides.
  auto r0 = llvm::dyn_cast<ShapedType>(t0);
  auto r1 = llvm::dyn_cast<ShapedType>(t1);
  auto m0 = llvm::dyn_cast<MemRefType>(t0), m1 = llvm::dyn_cast<MemRefType>(t1);
  bool comparable =
      r0 && r1 && r0.hasRank() && r1.hasRank() &&
      r0.getRank() == r1.getRank() &&
      r0.getElementType() == r1.getElementType() &&
      ((llvm::isa<RankedTensorType>(t0) && llvm::isa<RankedTensorType>(t1) &&
        llvm::cast<RankedTensorType>(t0).getEncoding() ==
            llvm::cast<RankedTensorType>(t1).getEncoding()) ||
       (m0 && m1 && m0.getLayout() == m1.getLayout() &&
        (m0.getLayout().isIdentity() || hasDynamicStrides(m0)) &&
        m0.getMemorySpace() == m1.getMemorySpace()));
  if (!comparable)
    return refuse(where, "a value has different types in the two lowerings");
  SmallVector<int64_t> shape(r0.getShape());
  for (auto [d, a0, a1] : llvm::enumerate(r0.getShape(), r1.getShape())) {
    if (a0 == a1)
      continue;
    if (ShapedType::isDynamic(a0) || ShapedType::isDynamic(a1) ||
        !multiple(a0, a1))
      return refuse(where, "size " + Twine(a0) + " vs " + Twine(a1) +
                               " is not a multiple of the batch size " +
                               Twine(b0) + " vs " + Twine(b1));
    shape[d] = ShapedType::kDynamic;
  }
  retyped.push_back({v0, r0.clone(shape)});
  return success();
}

LogicalResult Generalizer::matchAttribute(Operation *op0, NamedAttribute a0,
                                          Attribute a1) {
  if (a0.getValue() == a1)
    return success();
  StringRef name = a0.getName().getValue();
  if (isa<func::FuncOp>(op0) && name == "function_type")
    return success(); // rebuilt from the arguments and the return
  if (isa<tensor::ExpandShapeOp>(op0) && name == "static_output_shape")
    return success(); // rebuilt from the result type
  if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op0) &&
      (name == "static_offsets" || name == "static_sizes" ||
       name == "static_strides")) {
    auto x0 = llvm::dyn_cast<DenseI64ArrayAttr>(a0.getValue());
    auto x1 = llvm::dyn_cast<DenseI64ArrayAttr>(a1);
    bool scaled = x0 && x1 && x0.size() == x1.size();
    for (int64_t i = 0; scaled && i < x0.size(); ++i)
      scaled = x0[i] == x1[i] ||
               (!ShapedType::isDynamic(x0[i]) && multiple(x0[i], x1[i]));
    if (scaled) {
      slices.insert(op0);
      return success(); // rebuilt with the scaled entries computed
    }
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op0); constant &&
                                                        name == "value") {
    if (auto i0 = llvm::dyn_cast<IntegerAttr>(a0.getValue())) {
      auto i1 = llvm::dyn_cast<IntegerAttr>(a1);
      if (i1 && i0.getType().isIntOrIndex())
        if (std::optional<int64_t> k =
                multiple(i0.getValue().getSExtValue(),
                         i1.getValue().getSExtValue())) {
          intChanges.push_back({constant, *k});
          return success();
        }
    }
    if (auto f0 = llvm::dyn_cast<FloatAttr>(a0.getValue())) {
      auto f1 = llvm::dyn_cast<FloatAttr>(a1);
      if (f1) {
        double x0 = f0.getValueAsDouble(), x1 = f1.getValueAsDouble();
        auto close = [](double x, double y) {
          return std::fabs(x - y) <= 1e-6 * std::max(std::fabs(x), std::fabs(y));
        };
        double times = x0 / double(b0), over = x0 * double(b0);
        if (x0 != 0 && close(times * double(b1), x1)) {
          floatChanges.push_back({constant, FloatForm::Times, times});
          return success();
        }
        if (x0 != 0 && close(over / double(b1), x1)) {
          floatChanges.push_back({constant, FloatForm::Over, over});
          return success();
        }
      }
    }
  }
  std::string text0, text1;
  llvm::raw_string_ostream(text0) << a0.getValue();
  llvm::raw_string_ostream(text1) << a1;
  return refuse(op0, "attribute " + name + " is " + text0 + " vs " + text1 +
                         ", not a multiple of the batch size");
}

LogicalResult Generalizer::matchOps(Operation *op0, Operation *op1) {
  counterpartOp[op0] = op1;
  if (op0->getName() != op1->getName() ||
      op0->getNumOperands() != op1->getNumOperands() ||
      op0->getNumResults() != op1->getNumResults() ||
      op0->getNumRegions() != op1->getNumRegions())
    return refuse(op0, "the two lowerings have different ops here (" +
                           op1->getName().getStringRef() + ")");
  for (auto [x0, x1] : llvm::zip(op0->getOperands(), op1->getOperands())) {
    auto it = counterpart.find(x0);
    if (it == counterpart.end() || it->second != x1)
      return refuse(op0, "the two lowerings wire this op differently");
  }
  DictionaryAttr attrs1 = op1->getAttrDictionary();
  if (op0->getAttrDictionary().size() != attrs1.size())
    return refuse(op0, "the two lowerings give it different attributes");
  for (NamedAttribute a0 : op0->getAttrs()) {
    Attribute a1 = attrs1.get(a0.getName());
    if (!a1)
      return refuse(op0, "the two lowerings give it different attributes");
    if (failed(matchAttribute(op0, a0, a1)))
      return failure();
  }
  for (auto [r0, r1] : llvm::zip(op0->getRegions(), op1->getRegions())) {
    if (r0.getBlocks().size() != r1.getBlocks().size())
      return refuse(op0, "the two lowerings have different regions");
    for (auto [blk0, blk1] : llvm::zip(r0, r1)) {
      if (blk0.getNumArguments() != blk1.getNumArguments())
        return refuse(op0, "the two lowerings have different regions");
      for (auto [a0, a1] :
           llvm::zip(blk0.getArguments(), blk1.getArguments()))
        if (failed(matchValues(a0, a1, op0)))
          return failure();
    }
  }
  for (auto [x0, x1] : llvm::zip(op0->getResults(), op1->getResults()))
    if (failed(matchValues(x0, x1, op0)))
      return failure();
  return success();
}

Value Generalizer::sizeValue(int64_t k) {
  if (k == 1)
    return batch;
  Value &v = sizes[k];
  if (!v) {
    OpBuilder b(entry, std::next(Block::iterator(lastSizeOp)));
    Location loc = lastSizeOp->getLoc();
    Value kValue = arith::ConstantIndexOp::create(b, loc, k);
    auto mul = arith::MulIOp::create(b, loc, batch, kValue);
    lastSizeOp = mul;
    v = mul;
  }
  return v;
}

Value Generalizer::batchAsFloat(OpBuilder &b, Location loc, FloatType type) {
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), batch);
  return arith::UIToFPOp::create(b, loc, type, asInt);
}

LogicalResult Generalizer::rewrite(func::FuncOp generic) {
  entry = &generic.getBody().front();
  // B from the first argument with a dim that is a multiple of it.
  for (BlockArgument arg : entry->getArguments()) {
    auto t0 = llvm::dyn_cast<RankedTensorType>(arg.getType());
    auto t1 = llvm::dyn_cast<RankedTensorType>(counterpart[arg].getType());
    if (!t0 || !t1)
      continue;
    for (int64_t d = 0; d < t0.getRank(); ++d) {
      if (t0.getDimSize(d) == t1.getDimSize(d))
        continue;
      int64_t k = *multiple(t0.getDimSize(d), t1.getDimSize(d));
      OpBuilder b = OpBuilder::atBlockBegin(entry);
      Location loc = generic.getLoc();
      Value dim = tensor::DimOp::create(b, loc, arg, d);
      Operation *last = dim.getDefiningOp();
      if (k != 1) {
        Value kValue = arith::ConstantIndexOp::create(b, loc, k);
        last = arith::DivUIOp::create(b, loc, dim, kValue);
      }
      batch = last->getResult(0);
      lastSizeOp = last;
      break;
    }
    if (batch)
      break;
  }
  if (!batch)
    return refuse(generic, "no argument has a size that depends on the "
                           "batch size");

  // Dim values must exist before the types change (tensor.dim folds on
  // static dims, and reading them later keeps the entry block ordered).
  for (auto &[value, type] : retyped)
    value.setType(type);

  for (IntChange &change : intChanges) {
    OpBuilder b(change.op);
    Value v = sizeValue(change.k);
    if (!change.op.getType().isIndex())
      v = arith::IndexCastOp::create(b, change.op.getLoc(), change.op.getType(),
                                     v);
    change.op.replaceAllUsesWith(v);
    change.op.erase();
  }
  for (FloatChange &change : floatChanges) {
    auto type = llvm::dyn_cast<FloatType>(change.op.getType());
    if (!type)
      return refuse(change.op, "a batch-dependent constant that is not a "
                               "scalar float");
    OpBuilder b(change.op);
    Location loc = change.op.getLoc();
    Value n = batchAsFloat(b, loc, type);
    Value c = arith::ConstantOp::create(b, loc, type,
                                        b.getFloatAttr(type, change.c));
    Value v = change.form == FloatForm::Times
                  ? arith::MulFOp::create(b, loc, c, n).getResult()
                  : arith::DivFOp::create(b, loc, c, n).getResult();
    change.op.replaceAllUsesWith(v);
    change.op.erase();
  }

  // Ops whose sizes are operands when dynamic.
  auto dynamicSizes = [&](ShapedType type, ArrayRef<int64_t> staticShape) {
    SmallVector<OpFoldResult> mixed;
    for (auto [d, size] : llvm::enumerate(staticShape)) {
      if (type.isDynamicDim(d))
        mixed.push_back(sizeValue(size / b0));
      else
        mixed.push_back(OpBuilder(type.getContext()).getIndexAttr(size));
    }
    return mixed;
  };
  SmallVector<Operation *> toRebuild;
  generic.walk([&](Operation *op) {
    if (isa<tensor::EmptyOp, tensor::ExpandShapeOp, memref::AllocOp>(op) &&
        !llvm::cast<ShapedType>(op->getResult(0).getType()).hasStaticShape())
      toRebuild.push_back(op);
  });
  for (Operation *op : toRebuild) {
    OpBuilder b(op);
    auto type = llvm::cast<ShapedType>(op->getResult(0).getType());
    // The static sizes of the first lowering, from its counterpart's type
    // scaled back (the counterpart keeps the second lowering's sizes).
    auto other = llvm::cast<ShapedType>(counterpart[op->getResult(0)].getType());
    SmallVector<int64_t> first(other.getShape());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        first[d] = first[d] / b1 * b0;
    SmallVector<OpFoldResult> mixed = dynamicSizes(type, first);
    Value replacement;
    if (isa<tensor::EmptyOp>(op)) {
      replacement = tensor::EmptyOp::create(b, op->getLoc(), mixed,
                                            type.getElementType());
    } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      SmallVector<Value> dynamic;
      for (OpFoldResult size : mixed)
        if (auto v = llvm::dyn_cast<Value>(size))
          dynamic.push_back(v);
      replacement = memref::AllocOp::create(
          b, op->getLoc(), llvm::cast<MemRefType>(type), dynamic,
          alloc.getAlignmentAttr());
    } else {
      auto expand = cast<tensor::ExpandShapeOp>(op);
      replacement = tensor::ExpandShapeOp::create(
          b, op->getLoc(), type, expand.getSrc(),
          expand.getReassociationIndices(), mixed);
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }

  // Slices: each offset, size or stride that differs is k * B.
  for (Operation *op : slices) {
    auto s0 = cast<OffsetSizeAndStrideOpInterface>(op);
    auto s1 = cast<OffsetSizeAndStrideOpInterface>(counterpartOp[op]);
    auto scaled = [&](SmallVector<OpFoldResult> mixed, ArrayRef<int64_t> x0,
                      ArrayRef<int64_t> x1) {
      for (size_t i = 0; i < mixed.size(); ++i)
        if (x0[i] != x1[i])
          mixed[i] = sizeValue(x0[i] / b0);
      return mixed;
    };
    SmallVector<OpFoldResult> offsets = scaled(
        s0.getMixedOffsets(), s0.getStaticOffsets(), s1.getStaticOffsets());
    SmallVector<OpFoldResult> sizes = scaled(
        s0.getMixedSizes(), s0.getStaticSizes(), s1.getStaticSizes());
    SmallVector<OpFoldResult> strides = scaled(
        s0.getMixedStrides(), s0.getStaticStrides(), s1.getStaticStrides());
    OpBuilder b(op);
    Value replacement;
    if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
      replacement = tensor::ExtractSliceOp::create(
          b, op->getLoc(),
          llvm::cast<RankedTensorType>(extract.getType()), extract.getSource(),
          offsets, sizes, strides);
    } else {
      auto insert = cast<tensor::InsertSliceOp>(op);
      replacement = tensor::InsertSliceOp::create(
          b, op->getLoc(), insert.getSource(), insert.getDest(), offsets, sizes,
          strides);
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }

  auto ret = cast<func::ReturnOp>(entry->getTerminator());
  generic.setFunctionType(FunctionType::get(
      generic.getContext(), entry->getArgumentTypes(), ret.getOperandTypes()));
  if (failed(verify(generic)))
    return refuse(generic, "the generic function does not verify");
  return success();
}

LogicalResult Generalizer::run(func::FuncOp generic, func::FuncOp other) {
  if (b0 < 2 || b1 < 2 || b0 == b1)
    return refuse(nullptr, "the two batch sizes must differ and be at least 2");
  unmergeLeaves(generic);
  unmergeLeaves(other);
  SmallVector<Operation *> ops0, ops1;
  generic.getBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) { ops0.push_back(op); });
  other.getBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) { ops1.push_back(op); });
  if (ops0.size() != ops1.size())
    return refuse(generic, "the two lowerings have " + Twine(ops0.size()) +
                               " and " + Twine(ops1.size()) + " ops");
  Block &e0 = generic.getBody().front(), &e1 = other.getBody().front();
  if (e0.getNumArguments() != e1.getNumArguments() ||
      generic.getBody().getBlocks().size() != 1 ||
      other.getBody().getBlocks().size() != 1)
    return refuse(generic, "the two functions have different signatures");
  for (auto [a0, a1] : llvm::zip(e0.getArguments(), e1.getArguments()))
    if (failed(matchValues(a0, a1, generic)))
      return failure();
  for (auto [op0, op1] : llvm::zip(ops0, ops1))
    if (failed(matchOps(op0, op1)))
      return failure();
  if (retyped.empty() && intChanges.empty() && floatChanges.empty())
    return refuse(generic, "the two lowerings are the same");
  return rewrite(generic);
}

} // namespace

void annotateBatchSizes(ModuleOp first, ModuleOp second) {
  SmallVector<Operation *> ops0, ops1;
  first.walk<WalkOrder::PreOrder>([&](Operation *op) { ops0.push_back(op); });
  second.walk<WalkOrder::PreOrder>([&](Operation *op) { ops1.push_back(op); });
  if (ops0.size() != ops1.size())
    return; // not one graph: generalizeBatchSize refuses later
  Builder b(first.getContext());
  for (auto [op0, op1] : llvm::zip(ops0, ops1)) {
    if (op0->getName() != op1->getName() ||
        op0->getNumOperands() != op1->getNumOperands() ||
        op0->getNumResults() != op1->getNumResults())
      return;
    llvm::SetVector<int64_t> sizes0, sizes1;
    auto compare = [&](Type t0, Type t1) {
      auto v0 = llvm::dyn_cast<torch::ValueTensorType>(t0);
      auto v1 = llvm::dyn_cast<torch::ValueTensorType>(t1);
      if (!v0 || !v1 || v0.getSizes().size() != v1.getSizes().size())
        return;
      for (auto [s0, s1] : llvm::zip(v0.getSizes(), v1.getSizes()))
        if (s0 != s1) {
          sizes0.insert(s0);
          sizes1.insert(s1);
        }
    };
    for (auto [x0, x1] : llvm::zip(op0->getOperandTypes(), op1->getOperandTypes()))
      compare(x0, x1);
    for (auto [x0, x1] : llvm::zip(op0->getResultTypes(), op1->getResultTypes()))
      compare(x0, x1);
    if (sizes0.empty() || isa<func::FuncOp, ModuleOp>(op0))
      continue;
    op0->setAttr(kBatchSizesAttrName, b.getDenseI64ArrayAttr(sizes0.getArrayRef()));
    op1->setAttr(kBatchSizesAttrName, b.getDenseI64ArrayAttr(sizes1.getArrayRef()));
  }
}

LogicalResult generalizeBatchSize(func::FuncOp generic, func::FuncOp other,
                                  int64_t firstBatch, int64_t otherBatch,
                                  std::string &why) {
  return Generalizer(firstBatch, otherBatch, why).run(generic, other);
}

} // namespace ltc_mlir

//===----------------------------------------------------------------------===//
// ltc-test-generalize-batch: lit access to generalizeBatchSize. The module
// holds @forward (at first-batch) and @forward_other (at other-batch); on
// success @forward is generic and @forward_other is erased, else an error
// says why.
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"
#include "mlir/Pass/Pass.h"

namespace {
struct TestGeneralizeBatchPass
    : PassWrapper<TestGeneralizeBatchPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGeneralizeBatchPass)
  TestGeneralizeBatchPass() = default;
  TestGeneralizeBatchPass(const TestGeneralizeBatchPass &other)
      : PassWrapper(other) {}

  Option<int64_t> firstBatch{*this, "first-batch",
                             llvm::cl::desc("batch size of @forward")};
  Option<int64_t> otherBatch{*this, "other-batch",
                             llvm::cl::desc("batch size of @forward_other")};

  StringRef getArgument() const final { return "ltc-test-generalize-batch"; }
  StringRef getDescription() const final {
    return "Test: make @forward generic over the batch size using "
           "@forward_other";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, tensor::TensorDialect>();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto generic = module.lookupSymbol<func::FuncOp>("forward");
    auto other = module.lookupSymbol<func::FuncOp>("forward_other");
    if (!generic || !other) {
      module.emitError("needs @forward and @forward_other");
      return signalPassFailure();
    }
    std::string why;
    if (failed(ltc_mlir::generalizeBatchSize(generic, other, firstBatch,
                                             otherBatch, why))) {
      generic.emitError("not generalized: " + why);
      return signalPassFailure();
    }
    other.erase();
  }
};
} // namespace

std::unique_ptr<Pass> ltc_mlir::createTestGeneralizeBatchPass() {
  return std::make_unique<TestGeneralizeBatchPass>();
}
