//===- ObjectArtifacts.cpp - compiled objects: identity, loading ---------===//
//
// A graph compiled once is kept as a relocatable object (CompileOptions::
// keepObject). A later process links it with LLVM's JIT linker and calls it:
// no MLIR parsing, no pass pipeline, no code generation. The fingerprint
// says which compiler, target and options produced an object, so that a
// cache never hands out code built for another CPU or by another build.
//
//===----------------------------------------------------------------------===//

#include "JitSupport.h"
#include "ltc_mlir/Compiler/Compiler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace ltc_mlir {
namespace detail {

void initializeNativeTargetOnce() {
  static std::once_flag flag;
  std::call_once(flag, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

void *defaultSymbol(llvm::StringRef name) {
  if (name == "_mlir_memref_to_llvm_alloc")
    return reinterpret_cast<void *>(&std::malloc);
  if (name == "_mlir_memref_to_llvm_aligned_alloc")
    return reinterpret_cast<void *>(&std::aligned_alloc);
  if (name == "_mlir_memref_to_llvm_free")
    return reinterpret_cast<void *>(&std::free);
  return nullptr;
}

std::string jitTargetFeatures(const std::string &extra) {
  // The host's features spelled out, then -avx512bf16 (and its newer
  // siblings), then the extra ones. Without the BF16 instructions: bf16 is
  // computed in f32 and converted with integer ops (the pipeline), so they
  // are never needed, and with them LLVM 22's x86 backend aborts the
  // process ("Do not know how to soft promote this operator's operand") on
  // an insertelement into a vector of bf16, which a strided bf16 copy
  // produces.
  std::string features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features += (feature.getValue() ? "+" : "-") + feature.getKey().str() + ",";
  features += "-avx512bf16,-amx-bf16,-avxneconvert";
  if (!extra.empty())
    features += "," + extra;
  return features;
}

} // namespace detail

std::string sha256Hex(const std::string &data) {
  llvm::SHA256 hash;
  hash.update(llvm::StringRef(data));
  std::array<uint8_t, 32> digest = hash.final();
  static const char *hex = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

namespace {

// The lowering library's file identity (path, size, modification time):
// any rebuild of the compiler changes it. Read once.
const std::string &libraryIdentity() {
  static const std::string identity = [] {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(&sha256Hex), &info) || !info.dli_fname)
      return std::string("unknown-library");
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(info.dli_fname, status))
      return std::string(info.dli_fname);
    return std::string(info.dli_fname) + ":" + std::to_string(status.getSize()) + ":" +
           std::to_string(status.getLastModificationTime().time_since_epoch().count());
  }();
  return identity;
}

} // namespace

std::string compilerFingerprint(const CompileOptions &options) {
  std::string text = "ltc_mlir-object-v2\nllvm " LLVM_VERSION_STRING "\n";
  text += "cpu " + llvm::sys::getHostCPUName().str() + "\n";
  text += "features " + detail::jitTargetFeatures(options.targetFeatures) + "\n";
  text += "opt " + std::to_string(std::min(options.optLevel, 3u)) + "\n";
  text += std::string("external-gemm ") + (options.externalGemm ? "1" : "0") + "\n";
  text += "library " + libraryIdentity() + "\n";
  return sha256Hex(text);
}

CompileResult loadCompiledObject(const std::string &object,
                                 const std::vector<ValueDesc> &inputs,
                                 const std::vector<ValueDesc> &outputs,
                                 const std::vector<std::string> &checkMessages,
                                 const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  CompileResult result;
  auto fail = [&](const std::string &why) {
    result.error = "cannot load the compiled object: " + why;
    return result;
  };
  detail::initializeNativeTargetOnce();

  std::vector<std::string> parts;
  std::string error;
  if (!detail::unpackObjects(object, parts, error))
    return fail(error);

  // The objects' undefined symbols that none of them defines: the caller's
  // resolver, MLIR's allocation functions, then the process (libm, libc).
  llvm::StringSet<> defined, undefined;
  for (const std::string &part : parts) {
    auto objectFile = llvm::object::ObjectFile::createObjectFile(
        llvm::MemoryBufferRef(part, "ltc_mlir_object"));
    if (!objectFile)
      return fail(llvm::toString(objectFile.takeError()));
    for (const llvm::object::SymbolRef &symbol : (*objectFile)->symbols()) {
      auto flags = symbol.getFlags();
      auto name = symbol.getName();
      if (!flags || !name) {
        llvm::consumeError(flags.takeError());
        llvm::consumeError(name.takeError());
        continue;
      }
      if (name->empty())
        continue;
      if (*flags & llvm::object::SymbolRef::SF_Undefined)
        undefined.insert(*name);
      else
        defined.insert(*name);
    }
  }
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return fail(llvm::toString(jit.takeError()));
  llvm::orc::SymbolMap externals;
  std::vector<std::string> unresolved;
  for (const auto &entry : undefined) {
    llvm::StringRef name = entry.getKey();
    if (defined.contains(name))
      continue;
    void *address = options.symbolResolver ? options.symbolResolver(name.str()) : nullptr;
    if (!address)
      address = detail::defaultSymbol(name);
    if (address)
      externals[(*jit)->mangleAndIntern(name)] = {
          llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
    else if (!llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name.str()))
      unresolved.push_back(name.str());
  }
  // Checked before linking: an unresolved symbol would otherwise only
  // surface as an ORC session error on stderr.
  if (!unresolved.empty()) {
    std::sort(unresolved.begin(), unresolved.end());
    return fail("unresolved external symbols: " + llvm::join(unresolved, ", ") +
                " (missing CompileOptions::symbolResolver?)");
  }
  detail::addPerfMapPlugin(**jit, options.dumpName);
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  if (llvm::Error err = main.define(llvm::orc::absoluteSymbols(std::move(externals))))
    return fail(llvm::toString(std::move(err)));
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return fail(llvm::toString(process.takeError()));
  main.addGenerator(std::move(*process));
  for (const std::string &part : parts)
    if (llvm::Error err = (*jit)->addObjectFile(
            llvm::MemoryBuffer::getMemBufferCopy(part, "ltc_mlir_object")))
      return fail(llvm::toString(std::move(err)));
  // The packed wrapper is "_mlir_" + the function (addPackedEntry).
  auto entry = (*jit)->lookup("_mlir__mlir_ciface_forward");
  if (!entry)
    return fail(llvm::toString(entry.takeError()));

  auto function = std::make_shared<CompiledFunction>();
  function->entry = entry->toPtr<CompiledFunction::PackedEntry>();
  function->inputs = inputs;
  function->outputs = outputs;
  function->checkMessages = checkMessages;
  function->owner = std::shared_ptr<llvm::orc::LLJIT>(std::move(*jit));
  result.function = std::move(function);
  result.compileTimeMs = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  result.stageMs.push_back({"object_load", result.compileTimeMs});
  return result;
}

} // namespace ltc_mlir
