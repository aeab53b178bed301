//===- Collectives.cpp - torch.distributed collectives through the runtime ===//
//
// torch.ltc_mlir.collective becomes two runtime calls (runtime/collectives.h):
//
//   %bytes = memref.alloc : memref<Nxi8>          the result's storage
//   memref.copy %input -> view(%bytes)            all_reduce, broadcast: in place
//   %ticket = call @ltc_mlir_rt_collective_start(kind, group, op, root, dtype,
//                                                 %in_bytes, %bytes)
//   ...                                           computation that does not
//                                                 read the result
//   call @ltc_mlir_rt_collective_wait(%ticket, %in_bytes)
//   %result = bufferization.to_tensor view(%bytes) restrict
//
// The wait and the tensor are placed just before the result's first reader
// (or the return), so the process group's threads communicate while the
// code computes; the result tensor is defined only after the wait, so no
// later pass can move a reader above it. The `after` operand (the previous
// collective of the chain) ordered the ops in the graph; starts are issued
// in program order, which is that order, and it is not read here.
// Buffers are contiguous bytes: the process group reads them with the
// dtype the op carries (`ltc.dtype`, c10::ScalarType).
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"

#include "DenseLinearAlgebra.h"
#include "RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

constexpr llvm::StringLiteral kCollectiveOp = "torch.ltc_mlir.collective";
constexpr int64_t kAllReduce = 0, kBroadcast = 1, kAllGather = 2,
                  kReduceScatter = 3;

/// The earliest operation of `op`'s block that reads its result (not as
/// another collective's `after`), else the block's terminator.
Operation *firstReader(Operation *op) {
  Block *block = op->getBlock();
  Operation *first = nullptr;
  for (OpOperand &use : op->getResult(0).getUses()) {
    Operation *user = use.getOwner();
    if (user->getName().getStringRef() == kCollectiveOp &&
        use.getOperandNumber() == 1)
      continue;
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (inBlock && (!first || inBlock->isBeforeInBlock(first)))
      first = inBlock;
  }
  return first ? first : block->getTerminator();
}

class ConvertCollective : public dense_la::NamedTorchPattern {
public:
  ConvertCollective(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, kCollectiveOp, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    auto inType = dyn_cast<RankedTensorType>(operands[0].getType());
    if (failed(types) || !inType || !inType.hasStaticShape())
      return fail(op, rewriter, "expects static shapes");
    RankedTensorType outType = (*types)[0];
    std::optional<int64_t> kind = getConstantInt(op->getOperand(2));
    std::optional<int64_t> group = getConstantInt(op->getOperand(3));
    std::optional<int64_t> reduceOp = getConstantInt(op->getOperand(4));
    std::optional<int64_t> root = getConstantInt(op->getOperand(5));
    auto dtype = op->getAttrOfType<IntegerAttr>("ltc.dtype");
    if (!kind || !group || !reduceOp || !root || !dtype)
      return fail(op, rewriter, "kind, group, reduce_op, root and ltc.dtype must be constants");
    if (*kind < kAllReduce || *kind > kReduceScatter)
      return fail(op, rewriter, "unknown collective kind");
    Type elem = outType.getElementType();
    if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8 != 0 ||
        elem != inType.getElementType())
      return fail(op, rewriter, "expects one byte-sized dtype (bool is not lowered)");

    Location loc = op->getLoc();
    Type i8 = rewriter.getI8Type();
    int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
    auto bytesOf = [&](RankedTensorType t) {
      return MemRefType::get({t.getNumElements() * elemBytes}, i8);
    };
    auto dynamicBytes = MemRefType::get({ShapedType::kDynamic}, i8);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    auto typedView = [&](Value bytes, RankedTensorType t) -> Value {
      return memref::ViewOp::create(rewriter, loc,
                                    MemRefType::get(t.getShape(), elem), bytes,
                                    zero, ValueRange{});
    };

    Value outBytes = memref::AllocOp::create(rewriter, loc, bytesOf(outType));
    Value outView = typedView(outBytes, outType);
    Value inBytes = outBytes;
    Value input = readAsRuntimeOperand(rewriter, loc, operands[0]);
    if (*kind == kAllReduce || *kind == kBroadcast) {
      memref::CopyOp::create(rewriter, loc, input, outView);
    } else {
      inBytes = memref::AllocOp::create(rewriter, loc, bytesOf(inType));
      memref::CopyOp::create(rewriter, loc, input, typedView(inBytes, inType));
    }
    Value inArg = memref::CastOp::create(rewriter, loc, dynamicBytes, inBytes);
    Value outArg = memref::CastOp::create(rewriter, loc, dynamicBytes, outBytes);
    SmallVector<Value> startArgs;
    for (int64_t v : {*kind, *group, *reduceOp, *root, dtype.getInt()})
      startArgs.push_back(
          arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(v)));
    startArgs.push_back(inArg);
    startArgs.push_back(outArg);
    Type i64 = rewriter.getI64Type();
    func::FuncOp start = getOrDeclareFunction(
        rewriter, op, "ltc_mlir_rt_collective_start",
        rewriter.getFunctionType(ValueRange(startArgs).getTypes(), {i64}),
        /*cInterface=*/true);
    Value ticket = func::CallOp::create(rewriter, loc, start, startArgs).getResult(0);

    rewriter.setInsertionPoint(firstReader(op));
    func::FuncOp wait = getOrDeclareFunction(
        rewriter, op, "ltc_mlir_rt_collective_wait",
        rewriter.getFunctionType({i64, dynamicBytes}, {}), /*cInterface=*/true);
    func::CallOp::create(rewriter, loc, wait, ValueRange{ticket, inArg});
    Value result = bufferization::ToTensorOp::create(
        rewriter, loc, outType, outView, /*restrict=*/true, /*writable=*/true);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void scheduleCollectivesEarly(func::FuncOp func) {
  if (func.getBody().empty())
    return;
  Block &block = func.getBody().front();
  llvm::DenseMap<Operation *, unsigned> position;
  SmallVector<Operation *> collectives;
  for (Operation &op : block) {
    position[&op] = position.size();
    if (op.getName().getStringRef() == kCollectiveOp)
      collectives.push_back(&op);
  }
  if (collectives.empty())
    return;
  llvm::DenseSet<Operation *> placed;
  Operation *last = nullptr;
  for (Operation *collective : collectives) {
    SmallVector<Operation *> cone{collective}, worklist{collective};
    llvm::DenseSet<Operation *> seen{collective};
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && def->getBlock() == &block && !placed.contains(def) &&
            seen.insert(def).second) {
          cone.push_back(def);
          worklist.push_back(def);
        }
      }
    }
    llvm::sort(cone, [&](Operation *a, Operation *b) {
      return position[a] < position[b];
    });
    for (Operation *op : cone) {
      if (last)
        op->moveAfter(last);
      else
        op->moveBefore(&block.front());
      last = op;
      placed.insert(op);
    }
  }
}

void populateCollectivePatterns(TorchTypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  patterns.add<ConvertCollective>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
