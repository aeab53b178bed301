//===- OverwritableInputs.cpp - results that may be written over inputs ---===//
//
// An optimizer step computes `p' = p - lr * g` and its caller then copies p'
// back into p (torch.compile's input mutations): a second pass over every
// parameter. When the code that computes p' is the only reader of p and
// reads each element of p exactly where it writes that element of p', the
// caller may pass p's own buffer as the out-param of p' and skip the copy.
//
// This pass finds those pairs on linalg-on-tensors, before tiling: result j
// of the public `@forward` may overwrite argument a when
//   - result j is returned once and is result k of a linalg.generic G in
//     the function's entry block whose iterators are all parallel and
//     whose output map k is the identity, with a tensor.empty as init
//     (so nothing writes result j's buffer before G);
//   - every use of a is an input of G read through the identity map, and a
//     has result j's type.
// Tiling keeps that property (every tile reads a's elements where it writes
// result j's), and the tiles of G are its only accesses of a, so G reads
// each element of a before overwriting it and nothing reads a after G.
// G's init becomes a bufferization.alloc_tensor of its own: a tensor.empty
// that CSE merged with another op's could give both results one buffer (the
// other's dead before G writes), and that other op would write into a's
// memory before G reads it.
// The pairs go to the module attribute kOverwritableInputsAttrName (one
// array of argument indices per result), which the compiler turns into
// ValueDesc::overwritableInputs.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

/// The arguments `result` (an operand of the return) may overwrite.
SmallVector<int64_t> overwritableBy(func::FuncOp func, Value result) {
  auto generic = result.getDefiningOp<linalg::GenericOp>();
  auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
  if (!generic || !type || !type.hasStaticShape() ||
      generic->getBlock() != &func.getBody().front() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return {};
  unsigned k = llvm::cast<OpResult>(result).getResultNumber();
  OpOperand *init = generic.getDpsInitOperand(k);
  if (!generic.getMatchingIndexingMap(init).isIdentity() ||
      !init->get().getDefiningOp<tensor::EmptyOp>())
    return {};
  SmallVector<int64_t> args;
  for (BlockArgument arg : func.getArguments()) {
    if (arg.getType() != result.getType() || arg.use_empty())
      continue;
    bool onlyIdentityReads = llvm::all_of(arg.getUses(), [&](OpOperand &use) {
      return use.getOwner() == generic.getOperation() &&
             generic.isDpsInput(&use) &&
             generic.getMatchingIndexingMap(&use).isIdentity();
    });
    if (onlyIdentityReads)
      args.push_back(arg.getArgNumber());
  }
  return args;
}

/// The init of `result` becomes an allocation that only its op writes.
void giveOwnInit(OpResult result) {
  auto generic = llvm::cast<linalg::GenericOp>(result.getOwner());
  OpOperand *init = generic.getDpsInitOperand(result.getResultNumber());
  OpBuilder builder(generic);
  auto type = llvm::cast<RankedTensorType>(init->get().getType());
  init->set(bufferization::AllocTensorOp::create(builder, generic.getLoc(), type,
                                                  /*dynamicSizes=*/ValueRange()));
}

struct MarkOverwritableInputsPass
    : PassWrapper<MarkOverwritableInputsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MarkOverwritableInputsPass)

  StringRef getArgument() const final {
    return "ltc-mark-overwritable-inputs";
  }
  StringRef getDescription() const final {
    return "Record which results of @forward may be written into the buffer "
           "of an argument (elementwise updates that are its only reader)";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<bufferization::BufferizationDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>("forward");
    if (!func || func.isExternal())
      return;
    auto ret = llvm::cast<func::ReturnOp>(func.getBody().front().getTerminator());
    SmallVector<Attribute> perResult;
    bool any = false;
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      bool returnedOnce = llvm::count(ret->getOperands(), v) == 1;
      SmallVector<int64_t> args =
          returnedOnce ? overwritableBy(func, v) : SmallVector<int64_t>();
      any |= !args.empty();
      perResult.push_back(DenseI64ArrayAttr::get(&getContext(), args));
      if (!args.empty())
        giveOwnInit(llvm::cast<OpResult>(v));
    }
    if (any)
      module->setAttr(ltc_mlir::kOverwritableInputsAttrName,
                      ArrayAttr::get(&getContext(), perResult));
    else
      module->removeAttr(ltc_mlir::kOverwritableInputsAttrName);
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createMarkOverwritableInputsPass() {
  return std::make_unique<MarkOverwritableInputsPass>();
}
