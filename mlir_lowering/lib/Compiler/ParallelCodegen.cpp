//===- ParallelCodegen.cpp - LLVM IR -> objects on several threads --------===//
//
// LLVM's optimizer and code generator work on one module on one thread. A
// large graph (a ResNet training step: ~1000 functions once its loop nests
// are outlined, see OutlineLoopNests.cpp) spends most of its compile time
// there. The module is cut into one part per core: every function
// The whole module is optimized first (interprocedural clean-up needs it,
// see optimizeModule), then cut: every function definition goes to the
// least loaded part (by instruction count), local symbols become hidden
// globals so that any part can reference them, and each part is compiled
// to an ELF object on its own thread in its own LLVMContext. The objects are packed into one artifact, which the
// loader links like any object (ObjectArtifacts.cpp).
//
// Every worker runs under its own llvm::CrashRecoveryContext: a crash or an
// LLVM fatal error in the code generator fails the compile (the graph then
// runs through the fallback) instead of killing the process.
//
//===----------------------------------------------------------------------===//

#include "JitSupport.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace ltc_mlir {
namespace detail {

namespace {

constexpr const char *kPackMagic = "ltc_mlir-objects-v1\n";

std::unique_ptr<llvm::TargetMachine> hostTargetMachine(unsigned optLevel,
                                                       const std::string &features,
                                                       std::string &error) {
  llvm::Triple triple(llvm::sys::getProcessTriple());
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::TargetOptions targetOptions;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features, targetOptions,
      llvm::Reloc::PIC_, llvm::CodeModel::Small,
      static_cast<llvm::CodeGenOptLevel>(std::min(optLevel, 3u))));
}

/// Below this many instructions a module is compiled in one piece (cutting
/// it costs more than the second thread saves).
constexpr size_t kMinInstructionsToSplit = 2000;
/// More parts add clones and objects but little speed.
constexpr unsigned kMaxParts = 8;

unsigned codegenThreads() {
  if (const char *text = std::getenv("LTC_MLIR_COMPILE_THREADS"))
    if (int n = std::atoi(text); n > 0)
      return static_cast<unsigned>(n);
  // The CPUs this process may run on (affinity), not the machine's.
  unsigned cpus = llvm::hardware_concurrency().compute_thread_count();
  return std::clamp(cpus, 1u, kMaxParts);
}

size_t instructionCount(const llvm::Function &function) {
  size_t count = 0;
  for (const llvm::BasicBlock &block : function)
    count += block.size();
  return count;
}

/// Internal linkage for every definition but the exported ones, then -O3
/// on the whole module: the outlined nests' unused memref descriptor fields
/// (everything but the aligned pointer of a static memref) become dead
/// arguments that DeadArgElim removes. Without that, @forward is one huge
/// block of calls with ~20 arguments each, on which instruction selection
/// is superlinear (6 s of a nanoGPT step's 13 s went to that block).
bool optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    const CodegenOptions &options, std::string &error) {
  module.setDataLayout(machine.createDataLayout());
  module.setTargetTriple(machine.getTargetTriple());
  for (llvm::Function &function : module)
    if (!function.isDeclaration() &&
        !llvm::is_contained(options.exportedSymbols, function.getName().str()))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  auto optimize = mlir::makeOptimizingTransformer(
      std::min(options.optLevel, 3u), /*sizeLevel=*/0, &machine);
  if (llvm::Error err = optimize(&module)) {
    error = "LLVM optimization failed: " + llvm::toString(std::move(err));
    return false;
  }
  return true;
}

/// Compiles an optimized module to an ELF object.
bool emitObject(llvm::Module &module, const CodegenOptions &options,
                std::string &object, std::string &error) {
  std::unique_ptr<llvm::TargetMachine> machine =
      hostTargetMachine(options.optLevel, options.features, error);
  if (!machine)
    return false;
  // The data layout and triple were set by optimizeModule (bitcode keeps
  // them in every part).
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, stream, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return false;
  }
  passes.run(module);
  object.assign(buffer.begin(), buffer.end());
  return true;
}

/// Splits `module` into at most `parts` modules serialized as bitcode.
std::vector<std::string> splitToBitcode(llvm::Module &module, unsigned parts) {
  // Any part may reference any symbol: locals become globals (the names
  // are unique within the module, and each graph is linked alone). Not
  // hidden and not dso_local (which a local keeps when it becomes
  // external): PIC code then reaches another part's data through the GOT.
  // A symbol assumed local is read PC-relative, within +-2 GB, but the JIT
  // allocates each part's object on its own, and such a reference failed
  // to link ("out of range of Delta32 fixup") when the allocations landed
  // further apart (BERT's graphs, now and then).
  unsigned anonymous = 0;
  for (llvm::GlobalValue &value : module.global_values()) {
    if (value.isDeclaration() || !value.hasLocalLinkage())
      continue;
    if (!value.hasName())
      value.setName("ltc_mlir_local_" + std::to_string(anonymous++));
    value.setLinkage(llvm::GlobalValue::ExternalLinkage);
    value.setDSOLocal(false);
  }
  // Largest first, each to the least loaded part (sizes counted once).
  std::vector<std::pair<size_t, llvm::Function *>> functions;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      functions.push_back({instructionCount(function), &function});
  std::stable_sort(functions.begin(), functions.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });
  parts = std::max(1u, std::min<unsigned>(parts, functions.size()));
  std::vector<size_t> load(parts, 0);
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> partOf;
  for (auto [size, function] : functions) {
    unsigned part = std::min_element(load.begin(), load.end()) - load.begin();
    partOf[function] = part;
    load[part] += size + 1;
  }
  std::vector<std::string> bitcode(parts);
  for (unsigned part = 0; part < parts; ++part) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> piece =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
          auto it = partOf.find(value);
          // Global variables (constants) live in part 0.
          return it == partOf.end() ? part == 0 : it->second == part;
        });
    llvm::raw_string_ostream stream(bitcode[part]);
    llvm::WriteBitcodeToFile(*piece, stream);
  }
  return bitcode;
}

} // namespace

void addFunctionAttributes(llvm::Module &module, const CodegenOptions &options) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    // Our tiles assume full-width registers; skylake-style tuning would
    // otherwise split 512-bit vectors in two.
    if (options.wideVectors)
      function.addFnAttr("prefer-vector-width", "512");
    function.addFnAttr("target-features", options.features);
    for (const std::string &prefix : options.noInlinePrefixes)
      if (function.getName().starts_with(prefix))
        function.addFnAttr(llvm::Attribute::NoInline);
  }
}

bool addPackedEntry(llvm::Module &module, llvm::StringRef name,
                    std::string &error) {
  llvm::Function *function = module.getFunction(name);
  if (!function || function->isDeclaration() ||
      !function->getReturnType()->isVoidTy()) {
    error = ("no void function " + name + " to call").str();
    return false;
  }
  // MLIR's packed convention: entry(void **args), args[i] points to the
  // value of argument i.
  llvm::LLVMContext &context = module.getContext();
  auto *pointer = llvm::PointerType::getUnqual(context);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                       {pointer}, /*isVarArg=*/false);
  auto *entry = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                       "_mlir_" + name, module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::SmallVector<llvm::Value *> arguments;
  for (llvm::Argument &argument : function->args()) {
    llvm::Value *slot = builder.CreateConstGEP1_64(pointer, entry->getArg(0),
                                                   argument.getArgNo());
    llvm::Value *address = builder.CreateLoad(pointer, slot);
    arguments.push_back(builder.CreateLoad(argument.getType(), address));
  }
  builder.CreateCall(function, arguments);
  builder.CreateRetVoid();
  return true;
}

bool compileToObjects(std::unique_ptr<llvm::Module> module,
                      const CodegenOptions &options,
                      std::vector<std::string> &objects, std::string &error) {
  objects.clear();
  {
    std::unique_ptr<llvm::TargetMachine> machine =
        hostTargetMachine(options.optLevel, options.features, error);
    if (!machine || !optimizeModule(*module, *machine, options, error))
      return false;
  }
  size_t instructions = 0;
  for (const llvm::Function &function : *module)
    instructions += instructionCount(function);
  unsigned threads =
      instructions < kMinInstructionsToSplit ? 1 : codegenThreads();
  if (threads <= 1) {
    objects.emplace_back();
    return emitObject(*module, options, objects.back(), error);
  }
  std::vector<std::string> bitcode = splitToBitcode(*module, threads);
  module.reset();
  objects.assign(bitcode.size(), std::string());
  std::vector<std::string> errors(bitcode.size());
  auto work = [&](size_t part) {
    llvm::CrashRecoveryContext recovery;
    bool completed = recovery.RunSafely([&] {
      llvm::LLVMContext context;
      auto parsed = llvm::parseBitcodeFile(
          llvm::MemoryBufferRef(bitcode[part], "ltc_mlir_part"), context);
      if (!parsed) {
        errors[part] = llvm::toString(parsed.takeError());
        return;
      }
      if (!emitObject(**parsed, options, objects[part], errors[part]) &&
          errors[part].empty())
        errors[part] = "code generation failed";
    });
    if (!completed)
      errors[part] = "the LLVM code generator crashed (signal or fatal error "
                     "in part " + std::to_string(part) + ", see stderr)";
  };
  std::vector<std::thread> workers;
  for (size_t part = 1; part < bitcode.size(); ++part)
    workers.emplace_back(work, part);
  work(0);
  for (std::thread &worker : workers)
    worker.join();
  for (const std::string &message : errors)
    if (!message.empty()) {
      error = message;
      return false;
    }
  return true;
}

std::string packObjects(const std::vector<std::string> &objects) {
  std::string packed = kPackMagic;
  packed += std::to_string(objects.size()) + "\n";
  for (const std::string &object : objects)
    packed += std::to_string(object.size()) + "\n";
  for (const std::string &object : objects)
    packed += object;
  return packed;
}

bool unpackObjects(const std::string &packed, std::vector<std::string> &objects,
                   std::string &error) {
  objects.clear();
  llvm::StringRef rest(packed);
  if (!rest.consume_front(kPackMagic)) {
    error = "not an ltc_mlir object bundle";
    return false;
  }
  auto readNumber = [&](size_t &value) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    return !line.getAsInteger(10, value);
  };
  size_t count = 0;
  if (!readNumber(count) || count == 0 || count > 4096) {
    error = "corrupt object bundle header";
    return false;
  }
  std::vector<size_t> sizes(count);
  for (size_t &size : sizes)
    if (!readNumber(size)) {
      error = "corrupt object bundle header";
      return false;
    }
  for (size_t size : sizes) {
    if (size > rest.size()) {
      error = "truncated object bundle";
      return false;
    }
    objects.push_back(rest.take_front(size).str());
    rest = rest.drop_front(size);
  }
  if (!rest.empty()) {
    error = "trailing bytes after the object bundle";
    return false;
  }
  return true;
}

} // namespace detail
} // namespace ltc_mlir
