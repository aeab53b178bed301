//===- ExportModule.cpp - captured graphs -> one ml_program module -------===//
//
// Each entry's torch-dialect module goes through the same ltc-torch-to-linalg
// stage as a JIT compile. Its @forward is then moved into the exported module
// under the entry's name, and its boundary rewritten:
//  - arguments that are state become ml_program.global_load of a global
//    initialised with dense_resource<name> (the blob is not in the module);
//  - arguments that are constants (Python scalars LTC passed as data) become
//    arith.constant and fold into the code;
//  - results that are new state values become ml_program.global_store.
// Stores come last, each of a fresh copy nothing else reads
// (bufferization.alloc_tensor copy(...)): MLIR 22.1's one-shot bufferization
// treats the stored operand as not read (GlobalStoreOpInterface::
// bufferizesToMemoryRead is false), so the value's buffer may be shared with
// one written later, such as the other result of a linalg op whose two inits
// are the same tensor.empty (SGD's new parameter and momentum buffer); the
// global then receives the wrong value. Fixed upstream by llvm-project PR
// 177387, not in 22.1.8.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Export/Export.h"

#include "../Compiler/JitSupport.h"
#include "ltc_mlir/Conversion/TorchToLinalg/TorchToLinalg.h"
#include "ltc_mlir/InitAll.h"
#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;

namespace ltc_mlir {
namespace {

std::string typeText(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

bool isCIdentifier(llvm::StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

class Exporter {
public:
  Exporter(const std::vector<ExportEntry> &entries,
           const std::vector<ExportGlobal> &globals,
           const ExportOptions &options, ExportedModule &result)
      : entries(entries), globals(globals), options(options), result(result),
        context(makeRegistry(), MLIRContext::Threading::DISABLED) {
    context.loadAllAvailableDialects();
    context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        diagnostics += diag.str() + "\n";
      return success();
    });
  }

  bool run() {
    OpBuilder builder(&context);
    out = ModuleOp::create(UnknownLoc::get(&context));
    for (const ExportGlobal &global : globals) {
      if (!isCIdentifier(global.name))
        return fail("global name '" + global.name +
                    "' is not a C identifier");
      globalSpecs[global.name] = global;
    }
    if (options.portable)
      globalSpecs[kFailedCheckGlobal] = ExportGlobal{kFailedCheckGlobal, true};
    llvm::StringSet<> names;
    for (const ExportEntry &entry : entries) {
      if (!isCIdentifier(entry.name) || !names.insert(entry.name).second)
        return fail("entry point name '" + entry.name +
                    "' is not a unique C identifier");
      if (!exportEntry(entry))
        return false;
    }
    // Fold the constants in, merge what the entries compute alike; before
    // the stores, whose copies canonicalization would remove.
    {
      PassManager pm(&context);
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
      if (failed(pm.run(*out)))
        return fail("canonicalizing the exported module failed: " +
                    diagnostics);
    }
    for (auto &[func, stores] : pendingStores) {
      Value failedCheck;
      if (options.portable && !checksToState(func, failedCheck))
        return false;
      addStores(func, stores, failedCheck);
    }
    if (options.portable)
      if (auto decl = out->lookupSymbol<func::FuncOp>(kRuntimeCheckFailedFuncName))
        if (SymbolTable::symbolKnownUseEmpty(decl, *out))
          decl.erase();
    if (failed(verify(*out)))
      return fail("the exported module does not verify: " + diagnostics);

    if (!checkMessages.empty())
      result.checkMessages = checkMessages;
    for (auto func : out->getOps<func::FuncOp>()) {
      if (func.isExternal()) {
        result.runtimeFunctions.push_back(func.getSymName().str());
        continue;
      }
      ExportedSignature signature;
      signature.name = func.getSymName().str();
      for (Type t : func.getFunctionType().getInputs())
        signature.inputTypes.push_back(typeText(t));
      for (Type t : func.getFunctionType().getResults())
        signature.resultTypes.push_back(typeText(t));
      result.entries.push_back(std::move(signature));
    }
    if (options.portable) {
      std::vector<std::string> needed;
      for (const std::string &name : result.runtimeFunctions)
        if (name != kRuntimeCheckFailedFuncName)
          needed.push_back(name);
      if (!needed.empty())
        return fail("the graph needs ltc_mlir's runtime library (" +
                    llvm::join(needed, ", ") +
                    ") and cannot be exported portable; export it without "
                    "portable=True and link the runtime library");
    }
    for (auto global : out->getOps<ml_program::GlobalOp>())
      result.globalTypes.emplace_back(global.getSymName().str(),
                                      typeText(global.getType()));
    llvm::raw_string_ostream os(result.text);
    out->print(os);
    return true;
  }

  std::string diagnostics;

private:
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }

  bool fail(const std::string &message) {
    result.error = message;
    return false;
  }

  // One entry: lower, move @forward into the exported module, rewrite its
  // boundary.
  bool exportEntry(const ExportEntry &entry) {
    diagnostics.clear();
    ParserConfig config(&context);
    OwningOpRef<ModuleOp> graph =
        parseSourceString<ModuleOp>(entry.torchText, config, entry.name);
    if (!graph)
      return fail("entry '" + entry.name +
                  "': the torch-dialect module does not parse: " +
                  diagnostics);
    PassManager pm(&context);
    if (failed(buildTorchToLinalgPipeline(pm, !options.portable)) ||
        failed(pm.run(*graph)))
      return fail("entry '" + entry.name +
                  "': lowering to linalg failed: " + diagnostics);

    // Runtime checks are numbered per graph: renumber after the previous
    // entries' (the check call takes its number as a constant).
    int64_t checkOffset = checkMessages.size();
    if (auto checks =
            (*graph)->getAttrOfType<ArrayAttr>(kRuntimeChecksAttrName)) {
      for (Attribute message : checks)
        checkMessages.push_back(
            llvm::isa<StringAttr>(message)
                ? llvm::cast<StringAttr>(message).getValue().str()
                : "runtime check failed");
    }

    auto forward = graph->lookupSymbol<func::FuncOp>("forward");
    if (!forward || forward.isExternal())
      return fail("entry '" + entry.name + "': no @forward after lowering");
    if (forward.getNumArguments() != entry.arguments.size() ||
        forward.getNumResults() != entry.results.size())
      return fail("entry '" + entry.name + "': the spec has " +
                  std::to_string(entry.arguments.size()) + " arguments and " +
                  std::to_string(entry.results.size()) +
                  " results, the graph " +
                  std::to_string(forward.getNumArguments()) + " and " +
                  std::to_string(forward.getNumResults()));

    // External declarations (runtime calls): once per module.
    for (auto decl :
         llvm::make_early_inc_range(graph->getOps<func::FuncOp>())) {
      if (!decl.isExternal())
        continue;
      if (out->lookupSymbol(decl.getSymName()))
        continue;
      decl->moveBefore(out->getBody(), out->getBody()->end());
    }
    forward->moveBefore(out->getBody(), out->getBody()->end());
    forward.setSymName(entry.name);
    if (checkOffset > 0)
      renumberChecks(forward, checkOffset);
    return rewriteBoundary(forward, entry);
  }

  void renumberChecks(func::FuncOp func, int64_t offset) {
    func.walk([&](func::CallOp call) {
      if (call.getCallee() != kRuntimeCheckFailedFuncName ||
          call.getNumOperands() != 1)
        return;
      OpBuilder b(call);
      Value index = call.getOperand(0);
      Value shift = arith::ConstantOp::create(
          b, call.getLoc(), b.getIntegerAttr(index.getType(), offset));
      call->setOperand(0,
                       arith::AddIOp::create(b, call.getLoc(), index, shift));
    });
  }

  /// A global holds a 0-d value as tensor<1xT>: MLIR 22's
  /// finalize-memref-to-llvm reads a 0-d memref.global's initial value as a
  /// splat, which a dense_resource cannot give (it aborts).
  static RankedTensorType globalType(RankedTensorType type) {
    if (type.getRank() != 0)
      return type;
    return RankedTensorType::get({1}, type.getElementType());
  }

  Value loadGlobal(OpBuilder &b, Location loc, ml_program::GlobalOp global,
                   RankedTensorType type) {
    Value value = ml_program::GlobalLoadOp::create(
        b, loc, global.getType(), SymbolRefAttr::get(global.getSymNameAttr()));
    if (global.getType() == type)
      return value;
    return tensor::CollapseShapeOp::create(b, loc, type, value,
                                           ArrayRef<ReassociationIndices>{});
  }

  void storeGlobal(OpBuilder &b, Location loc, StringRef name, Value value) {
    auto type = llvm::cast<RankedTensorType>(value.getType());
    RankedTensorType stored = globalType(type);
    if (stored != type)
      value = tensor::ExpandShapeOp::create(b, loc, stored, value,
                                            ArrayRef<ReassociationIndices>{});
    ml_program::GlobalStoreOp::create(b, loc, SymbolRefAttr::get(&context, name),
                                      value);
  }

  ml_program::GlobalOp getOrCreateGlobal(const std::string &name,
                                         RankedTensorType valueType,
                                         std::string &error) {
    RankedTensorType type = globalType(valueType);
    if (auto existing = out->lookupSymbol<ml_program::GlobalOp>(name)) {
      if (existing.getType() != type)
        error = "global '" + name + "' is read as " + typeText(type) +
                " and as " + typeText(existing.getType());
      return existing;
    }
    auto spec = globalSpecs.find(name);
    if (spec == globalSpecs.end()) {
      error = "global '" + name + "' is not declared";
      return {};
    }
    auto &manager = DenseResourceElementsHandle::getManagerInterface(&context);
    DenseResourceElementsHandle handle = manager.insert(name);
    if (handle.getKey() != name) {
      error = "resource key '" + name + "' is taken";
      return {};
    }
    auto value = DenseResourceElementsAttr::get(type, handle);
    OpBuilder b = OpBuilder::atBlockBegin(out->getBody());
    // Globals before the functions, in declaration order.
    if (lastGlobal)
      b.setInsertionPointAfter(lastGlobal);
    auto global = ml_program::GlobalOp::create(
        b, out->getLoc(), name, type, spec->second.isMutable, value,
        b.getStringAttr(spec->second.isMutable ? "public" : "private"));
    lastGlobal = global;
    return global;
  }

  bool rewriteBoundary(func::FuncOp func, const ExportEntry &entry) {
    Block &body = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    llvm::BitVector erase(func.getNumArguments());
    for (auto [i, spec] : llvm::enumerate(entry.arguments)) {
      BlockArgument arg = body.getArgument(i);
      if (spec.kind == ExportArgument::Kind::Input)
        continue;
      erase.set(i);
      if (spec.kind == ExportArgument::Kind::Constant) {
        Attribute value = parseAttribute(spec.constant, &context);
        auto typed = llvm::dyn_cast_or_null<TypedAttr>(value);
        if (!typed || typed.getType() != arg.getType())
          return fail("entry '" + entry.name + "' argument #" +
                      std::to_string(i) + ": constant '" + spec.constant +
                      "' does not have type " + typeText(arg.getType()));
        arg.replaceAllUsesWith(
            arith::ConstantOp::create(b, func.getLoc(), typed));
        continue;
      }
      auto type = llvm::dyn_cast<RankedTensorType>(arg.getType());
      if (!type || !type.hasStaticShape())
        return fail("entry '" + entry.name + "' argument #" +
                    std::to_string(i) + " ('" + spec.name +
                    "') has type " + typeText(arg.getType()) +
                    "; globals must be statically shaped tensors");
      std::string error;
      ml_program::GlobalOp global = getOrCreateGlobal(spec.name, type, error);
      if (!error.empty())
        return fail(error);
      arg.replaceAllUsesWith(loadGlobal(b, func.getLoc(), global, type));
    }
    if (failed(func.eraseArguments(erase)))
      return fail("entry '" + entry.name + "': could not drop arguments");

    // Results: the stores are added after canonicalization (addStores).
    auto ret = llvm::cast<func::ReturnOp>(body.getTerminator());
    std::vector<std::pair<std::string, unsigned>> stores;
    for (auto [j, spec] : llvm::enumerate(entry.results)) {
      if (spec.storeTo.empty())
        continue;
      auto specIt = globalSpecs.find(spec.storeTo);
      if (specIt == globalSpecs.end() || !specIt->second.isMutable)
        return fail("entry '" + entry.name + "' result #" +
                    std::to_string(j) + " is stored into '" + spec.storeTo +
                    "', which is not a declared mutable global");
      auto type = llvm::dyn_cast<RankedTensorType>(ret.getOperand(j).getType());
      if (!type || !type.hasStaticShape())
        return fail("entry '" + entry.name + "' result #" +
                    std::to_string(j) + " is not a static tensor");
      std::string error;
      (void)getOrCreateGlobal(spec.storeTo, type, error);
      if (!error.empty())
        return fail(error);
      stores.emplace_back(spec.storeTo, j);
    }
    std::vector<bool> returned;
    for (const ExportResult &spec : entry.results)
      returned.push_back(spec.returned);
    pendingStores.push_back({func, {std::move(stores), std::move(returned)}});
    return true;
  }

  struct Stores {
    std::vector<std::pair<std::string, unsigned>> stores; // (global, result)
    std::vector<bool> returned;
  };

  // Copies first (they may read globals about to be written), then the
  // stores, then the return of what the caller gets.
  /// Portable modules call nothing outside: each runtime check
  /// (`scf.if %failed { func.call @ltc_mlir_rt_check_failed(%i) }` at the
  /// function's top level) instead selects its number into a running "first
  /// failed check" value (-1: none), which the entry stores into the global
  /// kFailedCheckGlobal for the caller to read after the call.
  bool checksToState(func::FuncOp func, Value &first) {
    std::vector<scf::IfOp> checks;
    bool nested = false;
    func.walk([&](func::CallOp call) {
      if (call.getCallee() != kRuntimeCheckFailedFuncName)
        return;
      auto ifOp = llvm::dyn_cast<scf::IfOp>(call->getParentOp());
      if (!ifOp || ifOp->getParentOp() != func || ifOp.getNumResults() != 0 ||
          !ifOp.getElseRegion().empty() ||
          ifOp.getThenRegion().front().getOperations().size() != 2)
        nested = true;
      else
        checks.push_back(ifOp);
    });
    if (nested)
      return fail("entry '" + func.getSymName().str() +
                  "': a runtime check inside a loop cannot be exported portable; "
                  "export it without portable=True");
    if (checks.empty())
      return true;
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    Location loc = func.getLoc();
    first = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(-1));
    Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
    for (scf::IfOp check : checks) {
      auto call = llvm::cast<func::CallOp>(check.getThenRegion().front().front());
      b.setInsertionPoint(check);
      Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, first, zero);
      Value take = arith::AndIOp::create(b, loc, check.getCondition(), none);
      first = arith::SelectOp::create(b, loc, take, call.getOperand(0), first);
      check.erase();
    }
    std::string error;
    (void)getOrCreateGlobal(kFailedCheckGlobal,
                            RankedTensorType::get({}, b.getI64Type()), error);
    return error.empty() || fail(error);
  }

  void addStores(func::FuncOp func, const Stores &spec, Value failedCheck) {
    auto ret = llvm::cast<func::ReturnOp>(
        func.getBody().front().getTerminator());
    OpBuilder b(ret);
    Location loc = ret.getLoc();
    if (failedCheck) {
      Value tensor = tensor::FromElementsOp::create(
          b, loc, RankedTensorType::get({}, failedCheck.getType()), failedCheck);
      storeGlobal(b, loc, kFailedCheckGlobal, tensor);
    }
    // An allocation with a copy: canonicalization folds a linalg.copy into
    // a tensor.empty away (and the bug back in), not this.
    auto copyOf = [&](Value value) -> Value {
      auto type = llvm::cast<RankedTensorType>(value.getType());
      return bufferization::AllocTensorOp::create(b, loc, type, ValueRange{}, value);
    };
    std::vector<std::pair<std::string, Value>> copies;
    for (auto &[global, index] : spec.stores)
      copies.emplace_back(global, copyOf(ret.getOperand(index)));
    // A returned value that is a stored global's load would be read after
    // the store: return a copy taken before.
    llvm::StringSet<> stored;
    for (auto &store : spec.stores)
      stored.insert(store.first);
    std::vector<Value> results;
    for (auto [j, keep] : llvm::enumerate(spec.returned)) {
      if (!keep)
        continue;
      Value value = ret.getOperand(j);
      Value source = value;
      if (auto collapse = source.getDefiningOp<tensor::CollapseShapeOp>())
        source = collapse.getSrc();
      if (auto load = source.getDefiningOp<ml_program::GlobalLoadOp>())
        if (stored.contains(load.getGlobal().getLeafReference().getValue()))
          value = copyOf(value);
      results.push_back(value);
    }
    for (auto &[global, value] : copies)
      storeGlobal(b, loc, global, value);
    func::ReturnOp::create(b, loc, results);
    ret.erase();
    func.setFunctionType(FunctionType::get(
        &context, func.getFunctionType().getInputs(),
        ValueRange(results).getTypes()));
  }

  const std::vector<ExportEntry> &entries;
  const std::vector<ExportGlobal> &globals;
  const ExportOptions &options;
  ExportedModule &result;
  MLIRContext context;
  OwningOpRef<ModuleOp> out;
  Operation *lastGlobal = nullptr;
  std::map<std::string, ExportGlobal> globalSpecs;
  std::vector<std::string> checkMessages;
  std::vector<std::pair<func::FuncOp, Stores>> pendingStores;
};

} // namespace

ExportedModule exportTorchGraphs(const std::vector<ExportEntry> &entries,
                                 const std::vector<ExportGlobal> &globals,
                                 const ExportOptions &options) {
  ExportedModule result;
  std::string crash;
  bool completed = detail::runWithCrashRecovery(
      [&] {
        Exporter exporter(entries, globals, options, result);
        if (!exporter.run())
          result.text.clear();
      },
      crash);
  if (!completed) {
    result.text.clear();
    result.error = "the exporter crashed: " + crash +
                   ". This is a bug in ltc_mlir or MLIR/LLVM; please report it";
  }
  return result;
}

} // namespace ltc_mlir
