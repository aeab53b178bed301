//===- AotCompile.cpp - exported module -> native objects, weights loader -===//
//
// The ahead-of-time half of export: the exported module (model.mlir) goes
// through the same ltc-linalg-to-llvm pipeline as a JIT compile and becomes
// relocatable objects with one `_mlir_ciface_<entry>` per entry point.
// Globals either get their bytes from a safetensors file (attached
// zero-copy: each dense_resource blob points into one mmap of the file) or
// are left as external declarations, which the program that links the
// objects defines and fills at run time (the generated C wrapper does, from
// the weights file named to its init function).
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Export/Export.h"

#include "../Compiler/JitSupport.h"
#include "ltc_mlir/InitAll.h"
#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <map>

using namespace mlir;

namespace ltc_mlir {
namespace {

/// A safetensors file mapped into memory: the tensors' byte ranges by name.
struct MappedSafetensors {
  std::shared_ptr<llvm::MemoryBuffer> file;
  std::map<std::string, llvm::ArrayRef<char>> tensors;
};

bool mapSafetensors(const std::string &path, MappedSafetensors &mapped,
                    std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false,
                                            /*IsVolatile=*/false);
  if (!buffer) {
    error = "cannot open weights file " + path + ": " +
            buffer.getError().message();
    return false;
  }
  mapped.file = std::move(*buffer);
  llvm::StringRef bytes = mapped.file->getBuffer();
  if (bytes.size() < 8) {
    error = path + " is not a safetensors file (shorter than its header)";
    return false;
  }
  uint64_t headerSize = 0;
  for (int i = 7; i >= 0; --i)
    headerSize = headerSize << 8 | static_cast<unsigned char>(bytes[i]);
  if (headerSize > bytes.size() - 8) {
    error = path + " is not a safetensors file (header size " +
            std::to_string(headerSize) + " beyond the file)";
    return false;
  }
  llvm::Expected<llvm::json::Value> header =
      llvm::json::parse(bytes.substr(8, headerSize));
  if (!header || !header->getAsObject()) {
    error = path + ": the safetensors header is not a JSON object";
    if (!header)
      llvm::consumeError(header.takeError());
    return false;
  }
  llvm::StringRef data = bytes.drop_front(8 + headerSize);
  for (auto &[key, value] : *header->getAsObject()) {
    if (key == "__metadata__")
      continue;
    const llvm::json::Object *tensor = value.getAsObject();
    const llvm::json::Array *offsets =
        tensor ? tensor->getArray("data_offsets") : nullptr;
    std::optional<int64_t> begin, end;
    if (offsets && offsets->size() == 2) {
      begin = (*offsets)[0].getAsInteger();
      end = (*offsets)[1].getAsInteger();
    }
    if (!begin || !end || *begin < 0 || *end < *begin ||
        static_cast<uint64_t>(*end) > data.size()) {
      error = path + ": tensor '" + key.str() + "' has invalid data_offsets";
      return false;
    }
    mapped.tensors[key.str()] =
        llvm::ArrayRef<char>(data.data() + *begin, *end - *begin);
  }
  return true;
}

/// Attaches every dense_resource blob of `module` that `mapped` has, without
/// copying. Fails on a blob of the wrong size.
bool attachBlobs(ModuleOp module, const MappedSafetensors &mapped,
                 LoadedModuleStats &stats, std::string &error) {
  bool ok = true;
  module.walk([&](Operation *op) {
    for (NamedAttribute attr : op->getAttrs()) {
      auto resource = llvm::dyn_cast<DenseResourceElementsAttr>(attr.getValue());
      if (!resource)
        continue;
      DenseResourceElementsHandle handle = resource.getRawHandle();
      if (handle.getBlob())
        continue;
      auto it = mapped.tensors.find(handle.getKey().str());
      if (it == mapped.tensors.end())
        continue;
      auto type = resource.getType();
      int64_t bits = type.getElementTypeBitWidth();
      int64_t expected = type.getNumElements() * std::max<int64_t>(bits / 8, 1);
      if (static_cast<int64_t>(it->second.size()) != expected) {
        error = "weights for '" + handle.getKey().str() + "' have " +
                std::to_string(it->second.size()) + " bytes, the module's " +
                std::to_string(expected);
        ok = false;
        return WalkResult::interrupt();
      }
      // The blob keeps the mapping alive; nothing is copied.
      std::shared_ptr<llvm::MemoryBuffer> keepAlive = mapped.file;
      uintptr_t address = reinterpret_cast<uintptr_t>(it->second.data());
      size_t alignment = address % 64 == 0 ? 64 : address % 8 == 0 ? 8 : 1;
      handle.getResource()->setBlob(AsmResourceBlob(
          it->second, alignment,
          [keepAlive](void *, size_t, size_t) mutable { keepAlive.reset(); },
          /*dataIsMutable=*/false));
      ++stats.resources;
      stats.resourceBytes += it->second.size();
    }
    return WalkResult::advance();
  });
  return ok;
}

DialectRegistry registry() {
  DialectRegistry r;
  registerAllDialects(r);
  return r;
}

/// An MLIR context for an exported module, its errors collected.
struct ExportContext {
  MLIRContext context{registry(), MLIRContext::Threading::DISABLED};
  std::string diagnostics;

  ExportContext() {
    context.loadAllAvailableDialects(); // the passes create ops of any of them
    context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        diagnostics += diag.str() + "\n";
      return success();
    });
  }

  OwningOpRef<ModuleOp> parse(const std::string &text, std::string &error) {
    ParserConfig config(&context);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(text, config, "model.mlir");
    if (!module)
      error = "the exported module does not parse: " + diagnostics;
    return module;
  }
};

void compileAot(const std::string &moduleText, const AotOptions &options,
                AotResult &result) {
  ExportContext export_;
  MLIRContext &context = export_.context;
  std::string &diagnostics = export_.diagnostics;
  OwningOpRef<ModuleOp> module = export_.parse(moduleText, result.error);
  if (!module)
    return;
  MappedSafetensors mapped;
  if (!options.weightsPath.empty()) {
    LoadedModuleStats stats;
    if (!mapSafetensors(options.weightsPath, mapped, result.error) ||
        !attachBlobs(*module, mapped, stats, result.error))
      return;
  }
  std::vector<std::string> entries;
  for (auto func : module->getOps<func::FuncOp>())
    if (!func.isExternal())
      entries.push_back("_mlir_ciface_" + func.getSymName().str());

  PassManager pm(&context);
  LinalgToLLVMOptions lowering;
  lowering.externalGemm = options.externalGemm;
  if (failed(buildLinalgToLLVMPipeline(pm, lowering)) ||
      failed(pm.run(*module))) {
    result.error = "lowering the exported module failed: " + diagnostics;
    return;
  }
  // Exported functions never write their inputs.
  (*module)->removeAttr(kOverwritableInputsAttrName);
  // Globals whose bytes are not here become declarations: the linking
  // program defines them (external linkage, no initializer).
  for (auto global : module->getOps<LLVM::GlobalOp>()) {
    auto resource =
        llvm::dyn_cast_or_null<DenseResourceElementsAttr>(global.getValueOrNull());
    if (!resource || resource.getRawHandle().getBlob())
      continue;
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
    global.setConstant(false);
  }

  detail::CodegenOptions codegen;
  codegen.optLevel = std::min(options.optLevel, 3u);
  codegen.features = detail::jitTargetFeatures("");
  result.target = std::string("llvm ") + LLVM_VERSION_STRING + "; cpu " +
                  llvm::sys::getHostCPUName().str() + "; features " + codegen.features;
  codegen.wideVectors = getHostVectorBits() >= 512;
  codegen.noInlinePrefixes = {kOutlinedNestPrefix};
  codegen.exportedSymbols = entries;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, "ltc_mlir_export");
  if (!llvmModule) {
    result.error = "the translation to LLVM IR failed: " + diagnostics;
    return;
  }
  detail::addFunctionAttributes(*llvmModule, codegen);
  if (!detail::compileToObjects(std::move(llvmModule), codegen,
                                result.objects, result.error))
    result.objects.clear();
}

} // namespace

AotResult compileExportedModule(const std::string &moduleText,
                                const AotOptions &options) {
  auto start = std::chrono::steady_clock::now();
  AotResult result;
  std::string crash;
  if (!detail::runWithCrashRecovery([&] { compileAot(moduleText, options, result); },
                                    crash)) {
    result.objects.clear();
    result.error = "the compiler crashed: " + crash +
                   ". This is a bug in ltc_mlir or MLIR/LLVM; please report it";
  }
  result.compileTimeMs = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  return result;
}

LoadedModuleStats loadExportedModule(const std::string &moduleText,
                                     const std::string &safetensorsPath) {
  LoadedModuleStats stats;
  std::string crash;
  bool completed = detail::runWithCrashRecovery(
      [&] {
        ExportContext export_;
        OwningOpRef<ModuleOp> module = export_.parse(moduleText, stats.error);
        if (!module)
          return;
        MappedSafetensors mapped;
        if (!mapSafetensors(safetensorsPath, mapped, stats.error))
          return;
        stats.mappedBytes = mapped.file->getBufferSize();
        (void)attachBlobs(*module, mapped, stats, stats.error);
      },
      crash);
  if (!completed && stats.error.empty())
    stats.error = "the loader crashed: " + crash;
  return stats;
}

} // namespace ltc_mlir
