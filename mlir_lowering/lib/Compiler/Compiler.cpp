//===- Compiler.cpp - torch dialect text -> JIT-compiled entry point ------===//
//
// parse -> verify -> ltc-torch-to-linalg -> ltc-linalg-to-llvm -> LLVM IR ->
// ORC JIT. Every failure becomes a CompileResult error; one MLIRContext per
// call keeps concurrent compiles independent.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Compiler/Compiler.h"
#include "GeneralizeShapes.h"
#include "JitSupport.h"

#include <cstdlib>

#include "ltc_mlir/Conversion/TorchToLinalg/TorchToLinalg.h"
#include "ltc_mlir/Dialect/Torch/IR/TorchTypes.h"
#include "ltc_mlir/InitAll.h"
#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <chrono>
#include <mutex>
#include <unistd.h>

using namespace mlir;

namespace ltc_mlir {
void writeReproducerFile(const std::string &text, const CompileOptions &options,
                         llvm::StringRef error, CompileResult &result);
namespace {

std::atomic<unsigned> reproducerCounter{0};

/// LLVM targets and the global pass registry (the pipelines are parsed from
/// text) are process-wide: set them up once.
void initializeOnce() {
  static std::once_flag flag;
  std::call_once(flag, [] {
    detail::initializeNativeTargetOnce();
    registerAllPasses();
  });
}

std::string printToString(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

using detail::defaultSymbol;

/// Writes `contents` to `dir`/`name` (creating `dir`); on failure returns
/// false and says why in `error`.
bool writeFile(StringRef dir, StringRef name, StringRef contents,
               std::string &path, std::string &error) {
  SmallString<256> p(dir);
  llvm::sys::path::append(p, name);
  path = std::string(p);
  std::error_code ec = llvm::sys::fs::create_directories(dir);
  if (!ec) {
    llvm::raw_fd_ostream os(path, ec);
    if (!ec) {
      os << contents;
      os.close();
      if (os.has_error())
        ec = os.error();
    }
  }
  if (ec)
    error = "cannot write " + path + ": " + ec.message();
  return !ec;
}

/// Keeps the newest `keep` reproducers (*.failed-*.torch.mlir) of `dir`.
void pruneReproducers(StringRef dir, unsigned keep) {
  std::vector<std::pair<llvm::sys::TimePoint<>, std::string>> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef name = llvm::sys::path::filename(it->path());
    if (!name.contains(".failed-") || !name.ends_with(".torch.mlir"))
      continue;
    llvm::sys::fs::file_status status;
    if (!llvm::sys::fs::status(it->path(), status))
      files.emplace_back(status.getLastModificationTime(), it->path());
  }
  if (files.size() <= keep)
    return;
  llvm::sort(files);
  for (size_t i = 0; i + keep < files.size(); ++i)
    (void)llvm::sys::fs::remove(files[i].second);
}

/// Collects every diagnostic as text and the op names of "unsupported op
/// '<name>'" (TorchToLinalg) and "custom op '<name>' is unknown" (parser).
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diag) {
          record(diag);
          return success();
        }) {}

  std::string text;
  std::vector<std::string> unsupportedOps;

  void addUnsupported(StringRef name) {
    if (llvm::find(unsupportedOps, name) == unsupportedOps.end())
      unsupportedOps.push_back(name.str());
  }

private:
  void record(Diagnostic &diag) {
    std::string message = diag.str();
    for (StringRef prefix : {"unsupported op '", "custom op '"}) {
      size_t pos = message.find(prefix.str());
      if (pos == std::string::npos)
        continue;
      StringRef rest = StringRef(message).drop_front(pos + prefix.size());
      StringRef name = rest.take_until([](char c) { return c == '\''; });
      if (!name.empty())
        addUnsupported(name);
    }
    llvm::raw_string_ostream os(text);
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << diag.getLocation() << ": " << message << "\n";
    for (Diagnostic &note : diag.getNotes())
      os << "  note: " << note.getLocation() << ": " << note.str() << "\n";
  }

  ScopedDiagnosticHandler handler;
};

/// Signature element of a torch-level @forward argument or result.
FailureOr<ValueDesc> describe(Type type, std::string &error) {
  ValueDesc desc;
  if (auto tensor = llvm::dyn_cast<torch::ValueTensorType>(type)) {
    desc.kind = ValueKind::Tensor;
    llvm::raw_string_ostream(desc.dtype) << tensor.getDtype();
    desc.shape.assign(tensor.getSizes().begin(), tensor.getSizes().end());
    return desc;
  }
  if (llvm::isa<torch::IntType>(type)) {
    desc.kind = ValueKind::Int;
    return desc;
  }
  if (llvm::isa<torch::FloatType>(type)) {
    desc.kind = ValueKind::Float;
    return desc;
  }
  llvm::raw_string_ostream(error) << type;
  return failure();
}

/// Everything one compile needs; owns the context and the module.
class Compilation {
public:
  Compilation(const std::string &text, const CompileOptions &options,
              CompileResult &result)
      : text(text), options(options), result(result),
        context(registry(), MLIRContext::Threading::DISABLED),
        diagnostics(context) {}

  bool run();

private:
  static const DialectRegistry &registry() {
    static DialectRegistry *r = [] {
      auto *reg = new DialectRegistry();
      registerAllDialects(*reg);
      return reg;
    }();
    return *r;
  }

  bool fail(const Twine &message) {
    std::string error = message.str();
    if (!diagnostics.text.empty())
      error += "\n" + diagnostics.text;
    result.error = error;
    result.unsupportedOps = diagnostics.unsupportedOps;
    // Unsupported ops are a known limit, not a compiler bug to report.
    if (result.unsupportedOps.empty())
      writeReproducer(error);
    return false;
  }
  bool parse();
  bool parseOther();
  bool generalize(CompiledFunction &function);
  bool extractSignature(CompiledFunction &function);
  bool runPipeline(StringRef name,
                   llvm::function_ref<LogicalResult(OpPassManager &)> build);
  bool jit(CompiledFunction &function);
  // Adds the time since the last mark to stage `name` of the result.
  void markStage(const char *name) {
    auto now = std::chrono::steady_clock::now();
    result.stageMs.push_back(
        {name, std::chrono::duration<double, std::milli>(now - lastMark).count()});
    lastMark = now;
  }
  std::chrono::steady_clock::time_point lastMark = std::chrono::steady_clock::now();
  void dump(StringRef stage, StringRef contents);
  void writeReproducer(StringRef error);

  const std::string &text;
  const CompileOptions &options;
  CompileResult &result;
  MLIRContext context;
  DiagnosticCollector diagnostics;
  OwningOpRef<ModuleOp> module;
  OwningOpRef<ModuleOp> other; ///< at the other batch size (otherBatchText)
};

void Compilation::dump(StringRef stage, StringRef contents) {
  if (options.dumpDir.empty())
    return;
  std::string path;
  std::string name = options.dumpName + "." + stage.str() + ".mlir";
  if (writeFile(options.dumpDir, name, contents, path, result.writeError) &&
      stage == "torch")
    result.reproducerPath = path;
}

void Compilation::writeReproducer(StringRef error) {
  writeReproducerFile(text, options, error, result);
}

} // namespace

void writeReproducerFile(const std::string &text, const CompileOptions &options,
                         StringRef error, CompileResult &result) {
  if (options.reproducerDir.empty())
    return;
  std::string name = options.dumpName.empty() ? "graph" : options.dumpName;
  name += ".failed-" + std::to_string(::getpid()) + "-" +
          std::to_string(reproducerCounter++) + ".torch.mlir";
  // The error goes in front as comments, so the file still replays with
  // `ltc-mlir-opt --ltc-torch-to-llvm`.
  std::string contents;
  for (StringRef line : llvm::split(error, '\n'))
    contents += "// " + line.str() + "\n";
  contents += text;
  std::string path;
  if (writeFile(options.reproducerDir, name, contents, path, result.writeError)) {
    result.reproducerPath = path;
    pruneReproducers(options.reproducerDir, options.maxReproducers);
  }
}

namespace {

bool Compilation::parse() {
  // Unknown torch ops (generic syntax) parse, then are reported by name.
  context.allowUnregisteredDialects(true);
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  module = parseSourceString<ModuleOp>(text, config, "torch_module");
  if (!module)
    return fail("failed to parse the torch-dialect module");

  module->walk([&](Operation *op) {
    if (!op->isRegistered())
      diagnostics.addUnsupported(op->getName().getStringRef());
  });
  if (!diagnostics.unsupportedOps.empty())
    return fail("unsupported ops: " +
                llvm::join(diagnostics.unsupportedOps, ", "));
  context.allowUnregisteredDialects(false);

  if (failed(verify(*module)))
    return fail("the torch-dialect module does not verify");
  return true;
}

bool Compilation::parseOther() {
  ParserConfig config(&context, /*verifyAfterParse=*/true);
  other = parseSourceString<ModuleOp>(options.otherBatchText, config,
                                      "other_batch_module");
  if (!other)
    return fail("failed to parse the module at the other batch size");
  annotateBatchSizes(*module, *other);
  return true;
}

bool Compilation::generalize(CompiledFunction &function) {
  (*other)->setAttr(kGenericBatchSizeAttrName,
                    Builder(&context).getI64IntegerAttr(options.otherBatchSize));
  PassManager pm(&context);
  if (failed(buildTorchToLinalgPipeline(pm, options.externalGemm)) ||
      failed(pm.run(*other)))
    return fail("the module at the other batch size does not lower");
  (*module)->removeAttr(kGenericBatchSizeAttrName);
  auto generic = module->lookupSymbol<func::FuncOp>("forward");
  auto second = other->lookupSymbol<func::FuncOp>("forward");
  if (!options.dumpDir.empty()) { // both lowerings, to see why a pair differs
    dump("first.linalg", printToString(*module));
    dump("other.linalg", printToString(*other));
  }
  std::string why;
  if (!generic || !second ||
      failed(generalizeBatchSize(generic, second, options.batchSize,
                                 options.otherBatchSize, why))) {
    result.error = "no code for every batch size: " + why;
    result.generalizeRefused = true;
    return false;
  }
  // Sizes given per call are -1 in the signature.
  FunctionType type = generic.getFunctionType();
  auto markDynamic = [](std::vector<ValueDesc> &descs, TypeRange types) {
    for (auto [desc, t] : llvm::zip(descs, types))
      if (auto tensor = llvm::dyn_cast<RankedTensorType>(t))
        for (int64_t d = 0; d < tensor.getRank(); ++d)
          if (tensor.isDynamicDim(d))
            desc.shape[d] = -1;
  };
  markDynamic(function.inputs, type.getInputs());
  markDynamic(function.outputs, type.getResults());
  return true;
}

bool Compilation::extractSignature(CompiledFunction &function) {
  auto forward = module->lookupSymbol<func::FuncOp>("forward");
  if (!forward || forward.isExternal())
    return fail("the module has no func.func @forward with a body");
  FunctionType type = forward.getFunctionType();
  std::string bad;
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    FailureOr<ValueDesc> desc = describe(input, bad);
    if (failed(desc))
      return fail("argument #" + Twine(i) + " of @forward has type " + bad +
                  "; only !torch.vtensor, !torch.int and !torch.float are "
                  "supported");
    function.inputs.push_back(*desc);
  }
  for (auto [i, output] : llvm::enumerate(type.getResults())) {
    FailureOr<ValueDesc> desc = describe(output, bad);
    if (failed(desc) || desc->kind != ValueKind::Tensor) {
      bad.clear();
      llvm::raw_string_ostream(bad) << output;
      return fail("result #" + Twine(i) + " of @forward has type " + bad +
                  "; results must be !torch.vtensor (use a 0-dim tensor "
                  "for scalars)");
    }
    function.outputs.push_back(*desc);
  }
  return true;
}

bool Compilation::runPipeline(
    StringRef name, llvm::function_ref<LogicalResult(OpPassManager &)> build) {
  PassManager pm(&context);
  if (failed(build(pm)))
    return fail("could not build the " + name +
                " pipeline (a pass is not registered)");
  if (failed(pm.run(*module))) {
    if (!diagnostics.unsupportedOps.empty())
      return fail("unsupported ops: " +
                  llvm::join(diagnostics.unsupportedOps, ", "));
    return fail("pipeline " + name + " failed");
  }
  return true;
}

bool Compilation::jit(CompiledFunction &function) {
  detail::CodegenOptions codegen;
  codegen.optLevel = std::min(options.optLevel, 3u);
  codegen.features = detail::jitTargetFeatures(options.targetFeatures);
  codegen.wideVectors = getHostVectorBits() >= 512;
  codegen.noInlinePrefixes = {kOutlinedNestPrefix};
  codegen.exportedSymbols = {"_mlir__mlir_ciface_forward"};
  detail::initializeNativeTargetOnce();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, "ltc_mlir_graph");
  if (!llvmModule)
    return fail("the translation to LLVM IR failed");
  std::string error;
  if (!detail::addPackedEntry(*llvmModule, "_mlir_ciface_forward", error))
    return fail("JIT compilation failed: " + error);
  detail::addFunctionAttributes(*llvmModule, codegen);
  std::vector<std::string> objects;
  if (!detail::compileToObjects(std::move(llvmModule), codegen, objects, error))
    return fail("JIT compilation failed: " + error);

  // Fresh code is linked exactly as a cached artifact is.
  std::string packed = detail::packObjects(objects);
  CompileResult loaded =
      loadCompiledObject(packed, function.inputs, function.outputs,
                         function.checkMessages, options);
  if (!loaded.function)
    return fail(loaded.error);
  function.entry = loaded.function->entry;
  function.owner = loaded.function->owner;
  if (options.keepObject)
    result.object = std::move(packed);
  return true;
}

bool Compilation::run() {
  dump("torch", text);
  if (!parse())
    return false;
  auto function = std::make_shared<CompiledFunction>();
  if (!extractSignature(*function))
    return false;
  markStage("parse");

  // externalGemm covers every oneDNN kernel: GEMM blocks and convolutions.
  if (!options.otherBatchText.empty() && !parseOther())
    return false;
  if (!options.otherBatchText.empty())
    (*module)->setAttr(kGenericBatchSizeAttrName,
                       Builder(&context).getI64IntegerAttr(options.batchSize));
  if (!runPipeline("ltc-torch-to-linalg", [&](OpPassManager &pm) {
        return buildTorchToLinalgPipeline(pm, options.externalGemm);
      }))
    return false;
  if (!options.otherBatchText.empty() && !generalize(*function))
    return false;
  if (!options.dumpDir.empty())
    dump("linalg", printToString(*module));
  markStage("torch_to_linalg");

  LinalgToLLVMOptions lowering;
  lowering.externalGemm = options.externalGemm;
  if (!runPipeline("ltc-linalg-to-llvm", [&](OpPassManager &pm) {
        return buildLinalgToLLVMPipeline(pm, lowering);
      }))
    return false;
  if (!options.dumpDir.empty())
    dump("llvm", printToString(*module));
  markStage("linalg_to_llvm");

  // The messages of the runtime checks (their index is the argument of
  // ltc_mlir_rt_check_failed). Read after the pipelines, which may fold
  // checks away but never renumber them; removed before translation.
  if (auto checks = (*module)->getAttrOfType<ArrayAttr>(kRuntimeChecksAttrName)) {
    for (Attribute message : checks) {
      auto text = llvm::dyn_cast<StringAttr>(message);
      function->checkMessages.push_back(
          text ? text.getValue().str()
               : "runtime check #" +
                     std::to_string(function->checkMessages.size()) +
                     " failed");
    }
    (*module)->removeAttr(kRuntimeChecksAttrName);
  }
  if (auto perResult =
          (*module)->getAttrOfType<ArrayAttr>(kOverwritableInputsAttrName)) {
    for (auto [output, args] : llvm::zip(function->outputs, perResult))
      if (auto list = llvm::dyn_cast<DenseI64ArrayAttr>(args))
        output.overwritableInputs.assign(list.asArrayRef().begin(),
                                         list.asArrayRef().end());
    (*module)->removeAttr(kOverwritableInputsAttrName);
  }

  if (!jit(*function))
    return false;
  markStage("llvm_codegen");
  result.function = std::move(function);
  return true;
}

} // namespace

namespace {

// LTC_MLIR_TEST_CRASH_IN_COMPILER=segv|fatal makes the next compilations
// crash the way an MLIR/LLVM bug would (tests of the crash recovery).
void crashForTestingIfAsked() {
  const char *mode = std::getenv("LTC_MLIR_TEST_CRASH_IN_COMPILER");
  if (!mode)
    return;
  if (std::string(mode) == "segv")
    std::raise(SIGSEGV);
  if (std::string(mode) == "fatal")
    llvm::report_fatal_error("LTC_MLIR_TEST_CRASH_IN_COMPILER=fatal");
}

std::string describeCrash(int retCode) {
  if (retCode > 128) {
    int signal = retCode - 128;
    const char *name = strsignal(signal);
    std::string text = "signal " + std::to_string(signal) + " (" +
                       (name ? name : "unknown");
    if (signal == SIGABRT)
      text += ": an LLVM fatal error or a failed check, see stderr";
    return text + ")";
  }
  return "an LLVM fatal error (see \"LLVM ERROR\" on stderr)";
}

} // namespace

// Crash recovery installs process-wide signal handlers: one user at a time.
static std::mutex &crashRecoveryMutex() {
  static std::mutex mutex;
  return mutex;
}

namespace detail {

bool runWithCrashRecovery(llvm::function_ref<void()> body, std::string &crash) {
  std::lock_guard<std::mutex> lock(crashRecoveryMutex());
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  bool completed = recovery.RunSafely([&] {
    try {
      initializeOnce();
      body();
    } catch (const std::exception &e) {
      crash = std::string("internal error: ") + e.what();
    }
  });
  llvm::CrashRecoveryContext::Disable();
  if (!completed)
    crash = describeCrash(recovery.RetCode);
  return completed && crash.empty();
}
} // namespace detail

std::string canonicalTorchModule(const std::string &torchDialectText) {
  std::string canonical;
  std::lock_guard<std::mutex> lock(crashRecoveryMutex());
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  MLIRContext *context = nullptr;
  bool completed = recovery.RunSafely([&] {
    DialectRegistry registry;
    registerAllDialects(registry);
    context = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    context->allowUnregisteredDialects(true);
    context->getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
    ParserConfig config(context, /*verifyAfterParse=*/false);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(torchDialectText, config, "torch_module");
    if (!module)
      return;
    PassManager pm(context);
    pm.addPass(createCSEPass());
    if (failed(pm.run(*module)))
      return;
    // CSE merged equal constants and lists; whether a batch size meets an
    // equal number (batch 6 and the dtype code 6) would then change the
    // text's structure, which graphs at two batch sizes must share
    // (ltc_backend/batch_families.h). One clone per use instead.
    // Each user gets its own, right before it, in operand order: lists
    // first, then the constants (of the lists too).
    for (StringRef kind : {"torch.prim.ListConstruct", "torch.constant."}) {
      auto isKind = [&](Operation *def) {
        return def && def->getNumResults() == 1 && def->getNumRegions() == 0 &&
               def->getName().getStringRef().starts_with(kind);
      };
      SmallVector<Operation *> users, originals;
      module->walk([&](Operation *op) { users.push_back(op); });
      llvm::SmallPtrSet<Operation *, 32> seen;
      for (Operation *user : users)
        for (OpOperand &operand : user->getOpOperands()) {
          Operation *def = operand.get().getDefiningOp();
          if (!isKind(def))
            continue;
          OpBuilder b(user);
          operand.set(b.clone(*def)->getResult(0));
          if (seen.insert(def).second)
            originals.push_back(def);
        }
      for (Operation *op : originals)
        if (op->use_empty())
          op->erase();
    }
    llvm::raw_string_ostream os(canonical);
    module->print(os, OpPrintingFlags().printGenericOpForm());
  });
  llvm::CrashRecoveryContext::Disable();
  if (!completed)
    return "";  // leaked, as after a compiler crash; the compile reports it
  delete context;
  return canonical;
}

CompileResult compileTorchModule(const std::string &torchDialectText,
                                 const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  CompileResult result;
  // A crash inside MLIR or LLVM (a segfault, an LLVM fatal error that would
  // exit or abort) must not take the user's process down: the compilation
  // runs under llvm::CrashRecoveryContext, which turns the signal or the
  // exit into a return here on this thread. The Compilation (its MLIR
  // context may be half-updated) is then leaked, not destroyed. Crash
  // recovery installs process-wide signal handlers, so it is enabled only
  // around compilations, one at a time.
  std::lock_guard<std::mutex> lock(crashRecoveryMutex());
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  Compilation *compilation = nullptr;
  bool completed = recovery.RunSafely([&] {
    try {
      initializeOnce();
      crashForTestingIfAsked();
      compilation = new Compilation(torchDialectText, options, result);
      (void)compilation->run();
    } catch (const std::exception &e) {
      result.function.reset();
      result.error = std::string("internal error: ") + e.what();
    }
  });
  llvm::CrashRecoveryContext::Disable();
  if (completed) {
    delete compilation;
  } else {
    result.function.reset();
    result.error = "the compiler crashed: " + describeCrash(recovery.RetCode) +
                   ". This is a bug in ltc_mlir or MLIR/LLVM; please report it "
                   "with the reproducer";
    result.unsupportedOps.clear();
    writeReproducerFile(torchDialectText, options, result.error, result);
  }
  result.compileTimeMs = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  return result;
}

} // namespace ltc_mlir
